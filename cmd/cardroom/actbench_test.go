package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/store"
)

// liveSink takes a rules service's publications as the bus does, copying each live update.
type liveSink struct{ live []byte }

func (s *liveSink) Publish(context.Context, []bus.Message) error { return nil }
func (s *liveSink) PublishLive(_ context.Context, _ string, data []byte) error {
	s.live = append(s.live[:0], data...)
	return nil
}

// BenchmarkRulesActGames is one applied action of each game through the rules service's whole
// path (load, apply, log entry and its events encoded with their labels, state encoded, commit,
// live update with every seat's legal actions, publication), in process, memory store, the bus's
// work left out: a random 4-seat game is recorded once, then played again and again on new tables.
func BenchmarkRulesActGames(b *testing.B) {
	ctx := context.Background()
	start := time.Unix(1_700_000_000, 0)
	for _, e := range engines() {
		name := e.Info().Name
		cfg := &gamev1.TableConfig{Game: name, SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_FIXED, Seed: 1}
		for i := range 4 {
			cfg.Seats = append(cfg.Seats, &gamev1.Seat{Index: uint32(i), Player: &gamev1.PlayerRef{PlayerId: fmt.Sprint("p", i)}})
		}
		// The recorded game: its moves, each at one second after the one before.
		now := start
		clock := func() time.Time { return now }
		rec := rules.New(e, store.NewMemory(), nil, rules.Options{Now: clock})
		if _, err := rec.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: "rec", Config: cfg}); err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, 11))
		var script []*rulesv1.ActRequest
		for step := range 2000 {
			var movers []uint32
			var legal [4]*rulesv1.ListLegalActionsResponse
			for seat := range uint32(4) {
				resp, err := rec.ListLegalActions(ctx, &rulesv1.ListLegalActionsRequest{TableId: "rec", Seat: seat})
				if err != nil {
					b.Fatal(err)
				}
				if len(resp.GetActions()) > 0 {
					movers = append(movers, seat)
					legal[seat] = resp
				}
			}
			if len(movers) == 0 {
				break
			}
			seat := movers[r.IntN(len(movers))]
			req := &rulesv1.ActRequest{Seat: seat, Action: legal[seat].GetActions()[r.IntN(len(legal[seat].GetActions()))], ActionId: fmt.Sprint(step)}
			resp, err := rec.Act(ctx, &rulesv1.ActRequest{TableId: "rec", Seat: req.Seat, Action: req.Action, ActionId: req.ActionId})
			if err != nil {
				b.Fatal(err)
			}
			script = append(script, req)
			now = now.Add(time.Second)
			if resp.GetFinished() {
				break
			}
		}
		b.Run(name, func(b *testing.B) {
			srv := rules.New(e, store.NewMemory(), &liveSink{}, rules.Options{Now: clock})
			b.ReportAllocs()
			cpu0 := enginetest.CPUTime()
			i, tables := len(script), 0
			var table string
			for b.Loop() {
				if i == len(script) {
					tables++
					table, i, now = fmt.Sprint("t", tables), 0, start
					if _, err := srv.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: table, Config: cfg}); err != nil {
						b.Fatal(err)
					}
				}
				req := script[i]
				if _, err := srv.Act(ctx, &rulesv1.ActRequest{TableId: table, Seat: req.Seat, Action: req.Action, ActionId: req.ActionId}); err != nil {
					b.Fatalf("%s action %d: %v", table, i, err)
				}
				i++
				now = now.Add(time.Second)
			}
			b.ReportMetric(float64(b.N)/(enginetest.CPUTime()-cpu0).Seconds(), "actions/cpu-s")
			b.ReportMetric(float64(len(script)), "actions/game")
		})
	}
}
