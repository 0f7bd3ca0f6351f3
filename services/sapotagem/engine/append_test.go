package engine

import (
	"testing"

	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
)

// TestAppender: at every state of random games of every player count and variant, every seat's
// legal actions are appended as EncodeAction's bytes and DescribeAction's label.
func TestAppender(t *testing.T) {
	games := 600
	if raceEnabled || testing.Short() {
		games = 60
	}
	cfgs := func(i int) engine.Config {
		cfg := randomConfig(i + 100_000)
		if i%4 == 0 {
			cfg.Options = OptionsOf()
			cfg.Seats = 3 + i/4%4
		}
		return cfg
	}
	n := enginetest.CheckAppender(t, enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05}, Game{}, games, cfgs)
	t.Logf("%d actions checked", n)
}
