package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/sabaisabai"
	rules "cardroom.dev/services/sabaisabai/engine"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestConcurrentPlayers has every seat act at once through the service on the Redis store: two
// goroutines per seat pick random legal actions (throws out of turn included) and send them, some
// twice with the same action id. Refusals of actions that lost a race are expected; afterwards the
// log is gap-free, no action id was applied twice, retries were answered from the log, and the
// table still holds exactly the 61 cards.
func TestConcurrentPlayers(t *testing.T) {
	st := rulestest.RedisStore(t)
	h := rulestest.Start(t, sabaisabai.Engine(), st)
	const seats = 4
	// The harness's seats are bots and its clock stands still: without the bots' delays (Ruling B1)
	// every seat's moves count at once, as this test of concurrent arrivals needs.
	zero := durationpb.New(0)
	untimed := &sabaisabaiv1.Options{Rounds: 1, ThrowWindow: zero, BotReactionMin: zero, BotReactionMax: zero, BotThink: zero}
	if _, err := h.Client.CreateTable(t.Context(), rulestest.CreateRequest("race", rulestest.Config("sabaisabai", seats, 11, untimed))); err != nil {
		t.Fatal(err)
	}
	var applied, refused, replays atomic.Int64
	var wg sync.WaitGroup
	for g := range 2 * seats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seat := uint32(g % seats)
			r := rand.New(rand.NewPCG(uint64(g), 3))
			ctx := context.Background()
			for i := 0; i < 400 && applied.Load() < 300; i++ {
				l, err := h.Client.ListLegalActions(ctx, &rulesv1.ListLegalActionsRequest{TableId: "race", Seat: seat})
				if err != nil {
					t.Error(err)
					return
				}
				if len(l.GetActions()) == 0 {
					continue
				}
				req := &rulesv1.ActRequest{TableId: "race", Seat: seat, Action: l.GetActions()[r.IntN(len(l.GetActions()))], ActionId: fmt.Sprint(g, "-", i)}
				resp, err := h.Client.Act(ctx, req)
				switch status.Code(err) {
				case codes.OK:
					applied.Add(1)
					if r.IntN(8) == 0 {
						again, err := h.Client.Act(ctx, req)
						if err != nil || !again.GetReplayed() || again.GetVersion() != resp.GetVersion() {
							t.Errorf("retry of %s: %v %v", req.GetActionId(), err, again)
						}
						replays.Add(1)
					}
				case codes.FailedPrecondition, codes.Aborted:
					refused.Add(1) // the table moved on between listing and acting
				default:
					t.Errorf("action %v: %v", req.GetAction(), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	log := h.Log(t, "race")
	if int64(len(log.GetEntries())) != applied.Load() {
		t.Fatalf("%d log entries for %d applied actions", len(log.GetEntries()), applied.Load())
	}
	tb, _, err := st.Load(t.Context(), "race", "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := rules.Game{}.DecodeState(tb.State)
	if err != nil {
		t.Fatalf("final state: %v", err)
	}
	if n := s.Conservation(); n != rules.NumCards {
		t.Fatalf("the table holds %d cards, not %d", n, rules.NumCards)
	}
	t.Logf("%d actions applied, %d refused after losing a race, %d retries answered from the log", applied.Load(), refused.Load(), replays.Load())
	if applied.Load() < 50 || refused.Load() == 0 {
		t.Fatalf("too little contention to mean anything: %d applied, %d refused", applied.Load(), refused.Load())
	}
}
