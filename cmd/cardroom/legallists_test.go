package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/store"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// generic is an engine whose states hide engine.LegalAppender: the rules service lists their
// legal actions through messages and DescribeAction, as it does for a game that appends nothing.
type generic struct{ engine.Engine }

type genericState struct{ engine.State }

func (g generic) Setup(cfg engine.Config) (engine.State, []engine.Event, error) {
	st, evs, err := g.Engine.Setup(cfg)
	if err != nil {
		return nil, nil, err
	}
	return genericState{st}, evs, nil
}

func (g generic) DecodeState(b []byte) (engine.State, error) {
	st, err := g.Engine.DecodeState(b)
	if err != nil {
		return nil, err
	}
	return genericState{st}, nil
}

// liveRecorder keeps every live update a rules service sends.
type liveRecorder struct{ updates [][]byte }

func (r *liveRecorder) Publish(context.Context, []bus.Message) error { return nil }
func (r *liveRecorder) PublishLive(_ context.Context, _ string, data []byte) error {
	r.updates = append(r.updates, slices.Clone(data))
	return nil
}

// TestAppendedLegalListsUnchanged plays random 4-seat games of every game on two rules services,
// one listing legal actions as the games append them and one through their messages and labels,
// and requires byte-identical live updates (cardroom.rules.v1.TableUpdate) after every commit,
// and equal legal-action answers (ListLegalActions, Act's include_legal_actions) for every seat.
func TestAppendedLegalListsUnchanged(t *testing.T) {
	ctx := context.Background()
	start := time.Unix(1_700_000_000, 0)
	games := 4
	if testing.Short() {
		games = 1
	}
	for _, e := range engines() {
		name := e.Info().Name
		t.Run(name, func(t *testing.T) {
			if _, ok := must(e.Setup(engine.Config{Seats: 4, Options: e.Info().Options.ProtoReflect().New().Interface(), Start: start})).(engine.LegalAppender); !ok {
				t.Fatalf("%s's states do not append their legal actions", name)
			}
			now := start
			clock := func() time.Time { return now }
			fast, slow := &liveRecorder{}, &liveRecorder{}
			srvs := [2]*rules.Server{
				rules.New(e, store.NewMemory(), fast, rules.Options{Now: clock}),
				rules.New(generic{e}, store.NewMemory(), slow, rules.Options{Now: clock}),
			}
			r := rand.New(rand.NewPCG(7, 11))
			actions := 0
			for g := range games {
				id := fmt.Sprintf("%s-%d", name, g)
				cfg := &gamev1.TableConfig{Game: name, SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_FIXED, Seed: uint64(g) + 1}
				for i := range 4 {
					cfg.Seats = append(cfg.Seats, &gamev1.Seat{Index: uint32(i), Player: &gamev1.PlayerRef{PlayerId: fmt.Sprint("p", i)}})
				}
				for _, s := range srvs {
					if _, err := s.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: id, Config: cfg}); err != nil {
						t.Fatal(err)
					}
				}
				for step := range 400 {
					var movers []uint32
					var legal [4][]*anypb.Any
					for seat := range uint32(4) {
						var resps [2]*rulesv1.ListLegalActionsResponse
						for i, s := range srvs {
							resp, err := s.ListLegalActions(ctx, &rulesv1.ListLegalActionsRequest{TableId: id, Seat: seat})
							if err != nil {
								t.Fatal(err)
							}
							resps[i] = resp
						}
						if !proto.Equal(resps[0], resps[1]) {
							t.Fatalf("%s step %d seat %d: legal actions\n%v\nlisted the generic way:\n%v", id, step, seat, resps[0], resps[1])
						}
						if len(resps[0].GetActions()) > 0 {
							movers = append(movers, seat)
							legal[seat] = resps[0].GetActions()
						}
					}
					if len(movers) == 0 {
						break
					}
					seat := movers[r.IntN(len(movers))]
					req := &rulesv1.ActRequest{TableId: id, Seat: seat, Action: legal[seat][r.IntN(len(legal[seat]))],
						ActionId: fmt.Sprint(step), IncludeLegalActions: true}
					var acts [2]*rulesv1.ActResponse
					for i, s := range srvs {
						resp, err := s.Act(ctx, req)
						if err != nil {
							t.Fatalf("%s step %d: %v", id, step, err)
						}
						acts[i] = resp
					}
					if !proto.Equal(acts[0], acts[1]) {
						t.Fatalf("%s step %d: Act answered\n%v\nand the generic way:\n%v", id, step, acts[0], acts[1])
					}
					actions++
					now = now.Add(time.Second)
					if acts[0].GetFinished() {
						break
					}
				}
			}
			if len(fast.updates) != len(slow.updates) || len(fast.updates) <= games {
				t.Fatalf("%d live updates, %d the generic way, for %d games", len(fast.updates), len(slow.updates), games)
			}
			for i := range fast.updates {
				if string(fast.updates[i]) != string(slow.updates[i]) {
					t.Fatalf("live update %d differs:\n%x\nthe generic way:\n%x", i, fast.updates[i], slow.updates[i])
				}
				var u rulesv1.TableUpdate
				if err := proto.Unmarshal(fast.updates[i], &u); err != nil {
					t.Fatalf("live update %d: %v", i, err)
				}
			}
			t.Logf("%d actions, %d identical live updates", actions, len(fast.updates))
		})
	}
}

func must[T any](v T, _ []engine.Event, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// benchStates plays random games of e with seats seats and keeps a copy of every state passed.
func benchStates(tb testing.TB, e engine.Engine, seats, n int) []engine.State {
	r := rand.New(rand.NewPCG(1, 2))
	var out []engine.State
	start := time.Unix(1_700_000_000, 0)
	for g := 0; len(out) < n; g++ {
		st, _, err := e.Setup(engine.Config{Seats: seats, Seed: uint64(g), Options: e.Info().Options.ProtoReflect().New().Interface(), Start: start})
		if err != nil {
			tb.Fatal(err)
		}
		now := start
		for step := 0; step < 2000 && len(out) < n; step++ {
			if _, over := st.Outcome(); over {
				break
			}
			b, err := st.Encode()
			if err != nil {
				tb.Fatal(err)
			}
			cp, err := e.DecodeState(b)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, cp)
			var movers []int
			for s := range seats {
				if len(st.Legal(s)) > 0 {
					movers = append(movers, s)
				}
			}
			now = now.Add(time.Second)
			if len(movers) == 0 {
				if dl, ok := st.Deadline(); ok {
					if _, err := st.Timeout(dl); err != nil {
						tb.Fatal(err)
					}
					now = dl
					continue
				}
				break
			}
			s := movers[r.IntN(len(movers))]
			l := st.Legal(s)
			if _, err := st.Apply(s, l[r.IntN(len(l))], now); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return out
}

// BenchmarkLegalLists measures what a live update's legal actions cost per commit: every seat's
// list at a state of a random 4-seat game, encoded and labelled into one buffer as the rules
// service does — path=labelled through a message and a label string per action (sized, then
// marshalled), path=appended as the game appends them (then copied into the update).
func BenchmarkLegalLists(b *testing.B) {
	for _, e := range engines() {
		const seats = 4
		states := benchStates(b, e, seats, 500)
		b.Run(e.Info().Name+"/path=labelled", func(b *testing.B) {
			b.ReportAllocs()
			i, n := 0, 0
			var buf []byte
			for b.Loop() {
				st := states[i%len(states)]
				i++
				buf = buf[:0]
				for s := range seats {
					acts, labels := st.LegalLabelled(s)
					n += len(acts)
					for j, a := range acts {
						buf = append(buf, "type.googleapis.com/"+string(a.ProtoReflect().Descriptor().FullName())...)
						proto.Size(a)
						buf, _ = proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(buf, a)
						buf = append(buf, labels[j]...)
					}
				}
			}
			b.ReportMetric(float64(n)/float64(b.N), "actions/op")
		})
		b.Run(e.Info().Name+"/path=appended", func(b *testing.B) {
			b.ReportAllocs()
			url := "type.googleapis.com/" + string(e.Info().Action.ProtoReflect().Descriptor().FullName())
			i, n := 0, 0
			var buf, raw []byte
			var ends []int
			for b.Loop() {
				st := states[i%len(states)].(engine.LegalAppender)
				i++
				buf, raw, ends = buf[:0], raw[:0], ends[:0]
				for s := range seats {
					raw, ends = st.AppendLegal(s, raw, ends)
				}
				n += len(ends) / 2
				prev := 0
				for _, end := range ends {
					buf = append(buf, url...)
					buf = append(buf, raw[prev:end]...)
					prev = end
				}
			}
			b.ReportMetric(float64(n)/float64(b.N), "actions/op")
		})
	}
}
