package sabaisabai

import (
	"math/rand/v2"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	kit "cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// TestEngine plays a game through the type-erased engine, as the harness does: actions go in as
// proto messages, the state round-trips through its encoding at every step.
func TestEngine(t *testing.T) {
	e := Engine()
	if e.Info().Name != "sabaisabai" || e.Info().MinSeats != 2 || e.Info().MaxSeats != 12 {
		t.Fatalf("info %+v", e.Info())
	}
	now := time.Unix(1_800_000_000, 0)
	st, _, err := e.Setup(kit.Config{Seats: 3, Seed: 5, Options: &pb.Options{Rounds: 2}, Start: now})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for step := 0; ; step++ {
		if step > 20_000 {
			t.Fatal("game did not end")
		}
		if _, over := st.Outcome(); over {
			break
		}
		now = now.Add(time.Second)
		seat := -1
		var act proto.Message
		for s := range 3 {
			if a, ok := st.Suggest((s+step)%3, gamev1.BotLevel_BOT_LEVEL_NORMAL, r); ok {
				seat, act = (s+step)%3, a
				break
			}
		}
		if seat < 0 {
			d, ok := st.Deadline()
			if !ok {
				t.Fatal("stuck")
			}
			if _, err := st.Timeout(d); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := st.Apply(seat, act, now); err != nil {
			t.Fatalf("step %d seat %d: %v", step, seat, err)
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
	if len(o.Results) != 3 || o.Summary == "" {
		t.Fatalf("outcome %v", o)
	}
}
