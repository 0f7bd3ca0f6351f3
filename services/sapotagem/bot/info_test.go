package bot

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sapotagem/engine"
	"google.golang.org/protobuf/proto"
)

// TestInformationBound measures what better beliefs could buy the strong bot: the same search,
// in the same seeded games as TestStrongWinRate, dealing its worlds from the real state rather
// than from its view. CARDROOM_INFOBOUND=all shows it everything (the other hands and the pile's
// order); =hands the other hands, with the pile's face-down cards shuffled in every world;
// =history deals from the view as the bot does but weighs the worlds by the game's public history,
// which the view does not carry (historyGame). It is a measurement, not a bot: a bot may read its
// view only. CARDROOM_INFOBOUND_GAMES sets the games (default 200), CARDROOM_INFOBOUND_SEED the
// first seed (default 50,000), CARDROOM_INFOBOUND_KEEP the history's HistoryKeep. Figures:
// docs/performance-log.md, "Sapotagem's strong bot: what better beliefs could buy".
func TestInformationBound(t *testing.T) {
	mode := os.Getenv("CARDROOM_INFOBOUND")
	if mode == "" || raceEnabled {
		t.Skip("measurement: set CARDROOM_INFOBOUND=all or hands, without -race")
	}
	games, seed := 200, uint64(50_000)
	if v, err := strconv.Atoi(os.Getenv("CARDROOM_INFOBOUND_GAMES")); err == nil {
		games = v
	}
	if v, err := strconv.ParseUint(os.Getenv("CARDROOM_INFOBOUND_SEED"), 10, 64); err == nil {
		seed = v
	}
	if v, err := strconv.ParseFloat(os.Getenv("CARDROOM_INFOBOUND_KEEP"), 64); err == nil {
		HistoryKeep = v
	}
	var (
		mu         sync.Mutex
		next, wins int
		alone      int
		errs       []error
		wg         sync.WaitGroup
	)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= games {
					return
				}
				play := informedGame
				if mode == "history" {
					play = historyGame
				}
				won, winners, err := play(i, seed, mode == "hands")
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("game %d: %w", i, err))
				} else if won {
					wins++
					if winners == 1 {
						alone++
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	report(t, "strong seeing the "+mode+" vs 3 normal", wins, alone, games)
}

// informedGame plays game i of TestStrongWinRate's games with the strong search dealing its worlds
// from the live state, and how many seats won (its first decision, before any step, falls back to the heuristic bot).
func informedGame(i int, seed uint64, shufflePile bool) (won bool, winners int, err error) {
	var live *engine.State
	sampler := func(proto.Message) func(r *rand.Rand) (*engine.State, bool) {
		var root, world engine.State
		first := true
		return func(r *rand.Rand) (*engine.State, bool) {
			if live == nil {
				return nil, false
			}
			if first {
				first = false
				root = *live
				return &root, true
			}
			world = *live
			if lo, hi := int(world.PilePos)+1, int(world.PileLen); shufflePile && lo < hi {
				p := world.Pile[lo:hi] // all but the face-up next trump
				r.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
			}
			return &world, true
		}
	}
	one := search.New(search.Options[*engine.State, engine.Action]{
		Game: engine.Game{}, Sampler: sampler, ToAct: toAct,
		Apply: func(s *engine.State, seat int, a engine.Action) { s.Apply(seat, a) },
		Value: value, Rollout: rollout, Iterations: StrongIterations, Fallback: Heuristic{},
	})
	seat := i % 4
	bots := []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}}
	bots[seat] = one
	p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots,
		OnStep: func(s *engine.State, _ enginetest.Step[engine.Action]) error { live = s; return nil }}
	cfg := kit.Config{Seats: 4, Seed: seed + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
	res, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), seed)))
	if err != nil {
		return false, 0, err
	}
	out, _ := (engine.Game{}).Outcome(res.State)
	for _, r := range out.GetResults() {
		if r.GetWinner() {
			winners++
		}
	}
	return out.GetResults()[seat].GetWinner(), winners, nil
}

// HistoryKeep and HistoryPool tune the history mode: a move of another seat that Greedy (with that
// seat's hand in the world) would not have made keeps HistoryKeep of the world's weight; each
// decision weighs HistoryPool worlds dealt from the view and draws its worlds from them.
var (
	HistoryKeep = 0.8
	HistoryPool = 400
)

// historyGame is informedGame with the worlds dealt from the view (as the shipped bot) and weighed
// by the game's public history: every earlier play and jump of the other seats, each judged in
// the public state before it with the hand the world gives that seat then (its hand now and the
// cards it played since). It reads of the live state only what the table showed before each move
// (Greedy and Legal read the acting seat's hand, which the world supplies, and public fields).
func historyGame(i int, seed uint64, _ bool) (won bool, winners int, err error) {
	type move struct {
		before engine.State
		seat   int8
		a      engine.Action
	}
	var hist []move
	var prev engine.State
	seat := i % 4
	sampler := func(view proto.Message) func(r *rand.Rand) (*engine.State, bool) {
		sp, ok := engine.NewSampler(view.(*pb.View))
		if !ok {
			return func(*rand.Rand) (*engine.State, bool) { return nil, false }
		}
		var pool []engine.State
		var cum []float64
		var world engine.State
		var buf []engine.Action
		first := true
		return func(r *rand.Rand) (*engine.State, bool) {
			if first {
				first = false
				pool = make([]engine.State, HistoryPool)
				cum = make([]float64, HistoryPool)
				total := 0.0
				for k := range pool {
					sp.Deal(r, &pool[k])
					w := 1.0
					// The cards each seat played from move m on: its hand before move m is
					// its hand in the world and these.
					var since [6]uint64
					for m := len(hist) - 1; m >= 0; m-- {
						h := &hist[m]
						if h.a.Kind == engine.KindPlay {
							since[h.seat] |= 1 << h.a.Card
						}
						t := h.before
						t.Hands[h.seat] = pool[k].Hands[h.seat] | since[h.seat]
						buf = engine.Game{}.Legal(&t, int(h.seat), buf[:0])
						if len(buf) < 2 {
							continue
						}
						if g := t.Greedy(h.seat, buf); g.Kind != h.a.Kind || g.Card != h.a.Card {
							w *= HistoryKeep
						}
					}
					total += w
					cum[k] = total
				}
				world = pool[0]
				return &world, true
			}
			x := r.Float64() * cum[len(cum)-1]
			k := 0
			for k < len(cum)-1 && cum[k] < x {
				k++
			}
			world = pool[k]
			return &world, true
		}
	}
	one := search.New(search.Options[*engine.State, engine.Action]{
		Game: engine.Game{}, Sampler: sampler, ToAct: toAct,
		Apply: func(s *engine.State, seat int, a engine.Action) { s.Apply(seat, a) },
		Value: value, Rollout: rollout, Iterations: StrongIterations, Fallback: Heuristic{},
	})
	bots := []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}}
	bots[seat] = one
	cfg := kit.Config{Seats: 4, Seed: seed + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
	s0, _, err := engine.Game{}.Setup(cfg)
	if err != nil {
		return false, 0, err
	}
	prev = *s0
	p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots,
		OnStep: func(s *engine.State, st enginetest.Step[engine.Action]) error {
			if st.Seat >= 0 && st.Seat != seat && prev.Phase == engine.PhasePlay {
				hist = append(hist, move{before: prev, seat: int8(st.Seat), a: st.Action})
			}
			prev = *s
			return nil
		}}
	res, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), seed)))
	if err != nil {
		return false, 0, err
	}
	out, _ := (engine.Game{}).Outcome(res.State)
	for _, r := range out.GetResults() {
		if r.GetWinner() {
			winners++
		}
	}
	return out.GetResults()[seat].GetWinner(), winners, nil
}
