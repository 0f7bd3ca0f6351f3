package saboteur

import (
	"math/rand/v2"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	kit "cardroom.dev/services/kit/engine"
)

// TestEngineSuggestsPlayableMoves plays whole games through the type-erased engine, every move the
// bot's suggestion, with a state round trip through its encoding at every step.
func TestEngineSuggestsPlayableMoves(t *testing.T) {
	e := Engine()
	if info := e.Info(); info.Name != "saboteur" || info.MinSeats != 2 || info.MaxSeats != 12 {
		t.Fatalf("info %+v", info)
	}
	for i, opts := range []*pb.Options{{}, {Mode: pb.Mode_MODE_CLASSIC}} {
		st, _, err := e.Setup(kit.Config{Seats: 5, Seed: uint64(i), Options: opts, Start: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(i), 1))
		for steps := 0; ; steps++ {
			if out, over := st.Outcome(); over {
				t.Logf("%v: %d steps, %s", opts.GetMode(), steps, out.Summary)
				break
			}
			if steps > 5000 {
				t.Fatal("game too long")
			}
			moved := false
			for seat := range 5 {
				a, ok := st.Suggest(seat, gamev1.BotLevel_BOT_LEVEL_NORMAL, r)
				if !ok {
					continue
				}
				if _, err := st.Apply(seat, a, time.Unix(int64(steps), 0)); err != nil {
					t.Fatalf("suggested move refused: %v", err)
				}
				moved = true
				break
			}
			if !moved {
				t.Fatal("nobody can move")
			}
			b, err := st.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if st, err = e.DecodeState(b); err != nil {
				t.Fatal(err)
			}
		}
	}
}
