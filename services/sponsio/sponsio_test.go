package sponsio

import (
	"math/rand/v2"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
)

// TestErasedGame plays a whole game through the type-erased engine, as the harness does: every
// move the bot suggests, encoded and decoded, with a state round trip at each step.
func TestErasedGame(t *testing.T) {
	e := Engine()
	if e.Info().Name != "sponsio" {
		t.Fatal(e.Info().Name)
	}
	st, _, err := e.Setup(engine.Config{Seats: 4, Seed: 3, Options: &sponsiov1.Options{}, Start: time.Unix(1_800_000_000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for steps := 0; ; steps++ {
		if _, over := st.Outcome(); over {
			break
		}
		if steps > 5000 {
			t.Fatal("game too long")
		}
		acted := false
		for seat := range 4 {
			m, ok := st.Suggest(seat, gamev1.BotLevel_BOT_LEVEL_NORMAL, r)
			if !ok {
				continue
			}
			if _, err := st.Apply(seat, m, time.Unix(1_800_000_000+int64(steps), 0)); err != nil {
				t.Fatalf("step %d: %v", steps, err)
			}
			acted = true
			break
		}
		if !acted {
			t.Fatal("nobody can act")
		}
		b, err := st.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if st, err = e.DecodeState(b); err != nil {
			t.Fatal(err)
		}
	}
	o, _ := st.Outcome()
	t.Log(o.GetSummary())
	// An illegal move is refused with a violation and nothing changes.
	if _, err := st.Apply(0, &sponsiov1.Action{Kind: &sponsiov1.Action_Pass{Pass: &sponsiov1.Pass{}}}, time.Unix(1_900_000_000, 0)); err == nil {
		t.Fatal("move after the end accepted")
	}
}
