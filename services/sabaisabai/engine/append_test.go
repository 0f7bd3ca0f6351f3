package engine

import (
	"testing"

	"cardroom.dev/services/kit/engine/enginetest"
)

// TestAppender: at every state of random games (every option varied, random timeouts), every
// seat's legal actions are appended as EncodeAction's bytes and DescribeAction's label.
func TestAppender(t *testing.T) {
	games := 600
	if raceEnabled || testing.Short() {
		games = 60
	}
	p := enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05}
	n := enginetest.CheckAppender(t, p, Game{}, games, randomConfig)
	t.Logf("%d actions checked", n)
}
