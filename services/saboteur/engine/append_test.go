package engine

import (
	"testing"

	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
)

// TestAppender: at every state of random games of every table size, played by uniform random
// players and by players that dig east (so that gold is reached, shared out and stolen), every
// seat's legal actions are appended as EncodeAction's bytes and DescribeAction's label.
func TestAppender(t *testing.T) {
	games := 100
	if raceEnabled || testing.Short() {
		games = 10
	}
	diggers := make([]engine.Bot[Action], MaxSeats)
	for i := range diggers {
		diggers[i] = eastward{}
	}
	for _, bots := range [][]engine.Bot[Action]{nil, diggers} {
		p := enginetest.Playout[*State, Action]{Game: Game{}, Bots: bots, TimeoutChance: 0.05}
		n := enginetest.CheckAppender(t, p, Game{}, games, cfgFor)
		t.Logf("%d actions checked", n)
	}
}
