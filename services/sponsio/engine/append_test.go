package engine

import (
	"testing"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
)

// TestAppender: at every state of random games (3 and 4 seats, a third with a custom coupon table,
// some with a turn time), every seat's legal actions are appended as EncodeAction's bytes and
// DescribeAction's label.
func TestAppender(t *testing.T) {
	games := 100
	if raceEnabled || testing.Short() {
		games = 10
	}
	p := enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.02}
	n := enginetest.CheckAppender(t, p, Game{}, games, func(i int) engine.Config {
		c := cfg(3+i%2, uint64(i)*37+11)
		if i%3 == 2 {
			c.Options = &sponsiov1.Options{CouponTable: twinTable()}
		}
		if i%4 == 0 {
			c.TurnTime = time.Minute
		}
		return c
	})
	t.Logf("%d actions checked", n)
}
