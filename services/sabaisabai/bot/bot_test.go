package bot

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/sabaisabai/engine"
)

var start = time.Unix(1_800_000_000, 0).UTC()

// realTime plays one game the way a real-time table plays: at each step one seat among those that
// want to act acts. A random seat always wants to act (a uniformly random legal action, as
// enginetest.Playout plays); the heuristic seat acts only when Wants says so. When nobody wants
// to act the pending deadline passes (or, with no deadline, the heuristic seat is made to choose).
func realTime(cfg kit.Config, heuristic int, r *rand.Rand) (*engine.State, error) {
	g := engine.Game{}
	h := Heuristic{}
	s, _, err := g.Setup(cfg)
	if err != nil {
		return nil, err
	}
	now := cfg.Start
	type cand struct {
		seat int
		a    engine.Action
	}
	var cands []cand
	bufs := make([][]engine.Action, cfg.Seats)
	for step := 0; step < 100_000; step++ {
		if _, over := g.Outcome(s); over {
			return s, nil
		}
		cands = cands[:0]
		for seat := range cfg.Seats {
			bufs[seat] = g.Legal(s, seat, bufs[seat][:0])
			legal := bufs[seat]
			if len(legal) == 0 {
				continue
			}
			if seat == heuristic {
				if a, ok := h.Wants(g.View(s, seat), legal); ok {
					cands = append(cands, cand{seat, a})
				}
				continue
			}
			cands = append(cands, cand{seat, legal[r.IntN(len(legal))]})
		}
		deadline, waits := g.Deadline(s)
		if len(cands) == 0 {
			if waits {
				if deadline.After(now) {
					now = deadline
				}
				if _, err := g.Timeout(s, now); err != nil {
					return s, err
				}
				continue
			}
			if legal := bufs[heuristic]; len(legal) > 0 {
				cands = append(cands, cand{heuristic, h.Choose(g.View(s, heuristic), legal, r)})
			} else {
				return s, enginetest.ErrStuck
			}
		}
		c := cands[r.IntN(len(cands))]
		if next := now.Add(300 * time.Millisecond); !waits || next.Before(deadline) {
			now = next
		}
		if _, err := g.Apply(s, kit.Move[engine.Action]{Seat: c.seat, Action: c.a, At: now}); err != nil {
			return s, fmt.Errorf("seat %d %+v: %w", c.seat, c.a, err)
		}
	}
	return s, fmt.Errorf("game did not end")
}

// TestHeuristicBeatsRandom plays 4-player games, the heuristic bot in a rotating seat against
// three random bots, and requires it to win (alone or shared) at least 60% of them.
func TestHeuristicBeatsRandom(t *testing.T) {
	const games = 600
	wins, sole := 0, 0
	for i := range games {
		seat := i % 4
		cfg := kit.Config{Seats: 4, Seed: uint64(i) + 1000, Options: &pb.Options{}, Start: start}
		s, err := realTime(cfg, seat, rand.New(rand.NewPCG(uint64(i), 99)))
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		o, _ := engine.Game{}.Outcome(s)
		if o.Results[seat].Winner {
			wins++
			n := 0
			for _, r := range o.Results {
				if r.Winner {
					n++
				}
			}
			if n == 1 {
				sole++
			}
		}
	}
	rate := float64(wins) / games
	t.Logf("heuristic bot won %d of %d 4-player games against 3 random bots (%.1f%%; %d alone)", wins, games, 100*rate, sole)
	if rate < 0.60 {
		t.Fatalf("win rate %.1f%% is under 60%%", 100*rate)
	}
}

// TestHeuristicInPlayout: under enginetest.Playout (which makes every seat with a legal action act
// when picked) the heuristic bot's forced choices are always legal and games end.
func TestHeuristicInPlayout(t *testing.T) {
	p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{},
		Bots: []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}}}
	for i := range 50 {
		cfg := kit.Config{Seats: 4, Seed: uint64(i), Options: &pb.Options{PeekAtStart: 2}, Start: start}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 1))); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
	}
}

// view makes a seat-0 view with own cards (0: unknown) and the discard top.
func view(own []uint32, top uint32, others ...[]uint32) *pb.View {
	v := &pb.View{Viewer: 0, Turn: 7, DiscardTop: []uint32{top}}
	rows := append([][]uint32{own}, others...)
	for seat, cards := range rows {
		r := &pb.Row{Seat: uint32(seat)}
		for _, c := range cards {
			r.Slots = append(r.Slots, &pb.Slot{Card: c})
			r.Cards++
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}

func TestHeuristicChoices(t *testing.T) {
	h := Heuristic{}
	t.Run("touches its nose first", func(t *testing.T) {
		legal := []engine.Action{engine.Throw(0, 5, 7, 0), {Kind: engine.KindTouchNose}}
		if a, ok := h.Wants(view([]uint32{5}, 5), legal); !ok || a.Kind != engine.KindTouchNose {
			t.Fatalf("got %+v", a)
		}
	})
	t.Run("throws every known match at once", func(t *testing.T) {
		legal := []engine.Action{engine.Throw(0, 5, 7, 0), engine.Throw(0, 5, 7, 1), engine.Throw(0, 5, 7, 2),
			engine.Throw(0, 5, 7, 0, 2), {Kind: engine.KindCall}}
		a, ok := h.Wants(view([]uint32{5, 0, 5}, 5), legal)
		if !ok || a.Kind != engine.KindThrow || a.N != 2 {
			t.Fatalf("got %+v", a)
		}
	})
	t.Run("waits when it knows nothing useful", func(t *testing.T) {
		legal := []engine.Action{engine.Throw(0, 5, 7, 0), engine.Throw(0, 5, 7, 1), {Kind: engine.KindCall}}
		if a, ok := h.Wants(view([]uint32{9, 0, 8, 7}, 5), legal); ok {
			t.Fatalf("wanted %+v", a)
		}
	})
	t.Run("throws for another who does not know", func(t *testing.T) {
		legal := []engine.Action{engine.Throw(0, 5, 7, 0), engine.Throw(1, 5, 7, 2)}
		a, ok := h.Wants(view([]uint32{9}, 5, []uint32{0, 0, 5}), legal)
		if !ok || a.Owner != 1 {
			t.Fatalf("got %+v", a)
		}
	})
	t.Run("burns the Ass Joker, keeps its jokers", func(t *testing.T) {
		legal := []engine.Action{engine.Throw(0, engine.Joker, 7, 0), engine.Throw(0, engine.Joker, 7, 1)}
		a, ok := h.Wants(view([]uint32{engine.Joker, engine.AssJoker}, engine.Joker), legal)
		if !ok || a.Slots[0] != 1 {
			t.Fatalf("got %+v", a)
		}
	})
	t.Run("calls when its known total is low", func(t *testing.T) {
		legal := []engine.Action{{Kind: engine.KindDraw}, {Kind: engine.KindCall}}
		if a, _ := h.Wants(view([]uint32{1, 2, engine.Joker}, 9), legal); a.Kind != engine.KindCall {
			t.Fatalf("got %+v", a)
		}
		if a, _ := h.Wants(view([]uint32{1, 2, 0, 0}, 9), legal); a.Kind != engine.KindDraw {
			t.Fatalf("called with two unknown cards: %+v", a)
		}
	})
	t.Run("keeps a low card in place of its worst", func(t *testing.T) {
		v := view([]uint32{3, 12, 0, engine.AssJoker}, 9)
		v.DrawnCard = 2
		legal := []engine.Action{{Kind: engine.KindPlay}}
		for i := range 4 {
			legal = append(legal, engine.Action{Kind: engine.KindKeep, Slot: uint8(i)})
		}
		if a, _ := h.Wants(v, legal); a.Kind != engine.KindKeep || a.Slot != 1 {
			t.Fatalf("got %+v", a)
		}
		v.DrawnCard = 8
		if a, _ := h.Wants(v, legal); a.Kind != engine.KindKeep || a.Slot != 1 {
			t.Fatalf("got %+v", a)
		}
		v.DrawnCard = 13
		if a, _ := h.Wants(v, legal); a.Kind != engine.KindPlay {
			t.Fatalf("kept a function card: %+v", a)
		}
	})
	t.Run("gives the Ass Joker away", func(t *testing.T) {
		v := view([]uint32{3, engine.AssJoker, 9}, 13, []uint32{0})
		v.Effects = []*pb.PendingEffect{{Executor: 0, Effect: pb.Effect_EFFECT_GIVE}}
		var legal []engine.Action
		for i := range 3 {
			legal = append(legal, engine.Action{Kind: engine.KindResolve, Slot: uint8(i), Target: 1})
		}
		if a, _ := h.Wants(v, legal); a.Slot != 1 {
			t.Fatalf("got %+v", a)
		}
	})
}
