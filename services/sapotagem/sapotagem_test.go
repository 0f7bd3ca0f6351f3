package sapotagem

import (
	"math/rand/v2"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
)

// TestErasedGame plays a whole game through the type-erased engine with the bot's suggestions,
// re-decoding the state after every move as the harness does.
func TestErasedGame(t *testing.T) {
	e := Engine()
	if e.Info().Name != "sapotagem" {
		t.Fatalf("name %q", e.Info().Name)
	}
	st, _, err := e.Setup(engine.Config{Seats: 4, Seed: 3, Options: &pb.Options{}, Start: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for step := 0; ; step++ {
		if _, over := st.Outcome(); over {
			break
		}
		if step > 200 {
			t.Fatal("game did not end")
		}
		moved := false
		for seat := 0; seat < 4 && !moved; seat++ {
			a, ok := st.Suggest(seat, gamev1.BotLevel_BOT_LEVEL_NORMAL, r)
			if !ok {
				continue
			}
			if _, err := st.Apply(seat, a, time.Unix(int64(step), 0)); err != nil {
				t.Fatalf("suggested move refused: %v", err)
			}
			moved = true
		}
		b, err := st.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if st, err = e.DecodeState(b); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := st.Outcome()
	if len(out.GetResults()) != 4 || out.GetSummary() == "" {
		t.Fatalf("outcome %v", out)
	}
	var _ *gamev1.Outcome = out
}
