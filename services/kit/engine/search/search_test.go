package search

import (
	"math/rand/v2"
	"testing"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// trap is a one-seat game of two moves: first A or B, then x or y. A then x scores 1, A then y 0;
// B scores 0.6 whatever follows. A hidden coin (sampled) adds noise: with it the score is lowered
// by 0.1. Flat Monte Carlo with random playouts values A at 0.5 and B at 0.6 and picks B; a search
// that builds a tree finds A, x.
type trap struct {
	moves []int
	coin  bool
}

// trapGame is the part of engine.Game the search calls (Legal); the rest is never used.
type trapGame struct{ engine.Game[*trap, int] }

func (trapGame) Legal(s *trap, _ int, buf []int) []int {
	if len(s.moves) >= 2 {
		return buf
	}
	return append(buf, 0, 1)
}

func trapScore(s *trap) float64 {
	v := 0.6
	if s.moves[0] == 0 {
		v = 0
		if s.moves[1] == 0 {
			v = 1
		}
	}
	if s.coin {
		v -= 0.1
	}
	return max(v, 0)
}

func trapOptions(sampled *int) Options[*trap, int] {
	return Options[*trap, int]{
		Game: trapGame{},
		Sample: func(view proto.Message, r *rand.Rand) (*trap, bool) {
			*sampled++
			if _, ok := view.(*wrapperspb.Int32Value); !ok {
				return nil, false
			}
			return &trap{coin: r.IntN(2) == 0}, true
		},
		ToAct: func(s *trap) int {
			if len(s.moves) >= 2 {
				return -1
			}
			return 0
		},
		Apply: func(s *trap, _ int, a int) { s.moves = append(s.moves, a) },
		Value: func(_, s *trap, _ int) float64 { return trapScore(s) },
	}
}

func TestSearchFindsTheLineFlatMonteCarloMisses(t *testing.T) {
	var n int
	o := trapOptions(&n)
	o.Iterations = 400
	b := New(o)
	view := wrapperspb.Int32(0)
	a, st := b.Decide(view, []int{0, 1}, rand.New(rand.NewPCG(1, 1)))
	if a != 0 {
		t.Fatalf("chose %d, want 0 (A)", a)
	}
	if st.Iterations != 400 || n != 401 { // one sample checks the view can be sampled
		t.Fatalf("%d iterations, %d samples", st.Iterations, n)
	}
	if st.Nodes < 4 {
		t.Fatalf("%d nodes: no tree below the root", st.Nodes)
	}
}

func TestSearchDeterministicWithoutBudget(t *testing.T) {
	var n int
	o := trapOptions(&n)
	o.Iterations = 50
	b := New(o)
	_, s1 := b.Decide(wrapperspb.Int32(0), []int{0, 1}, rand.New(rand.NewPCG(3, 3)))
	_, s2 := b.Decide(wrapperspb.Int32(0), []int{0, 1}, rand.New(rand.NewPCG(3, 3)))
	if s1 != s2 {
		t.Fatalf("same seed, different searches: %+v, %+v", s1, s2)
	}
}

type firstLegal struct{}

func (firstLegal) Choose(_ proto.Message, legal []int, _ *rand.Rand) int { return legal[len(legal)-1] }

func TestSearchFallsBackWhenTheViewCannotBeSampled(t *testing.T) {
	var n int
	o := trapOptions(&n)
	o.Fallback = firstLegal{}
	a, st := New(o).Decide(wrapperspb.String("x"), []int{0, 1}, rand.New(rand.NewPCG(1, 1)))
	if a != 1 || st.Iterations != 0 {
		t.Fatalf("chose %d after %d iterations, want the fallback's 1 and none", a, st.Iterations)
	}
}

func TestMistakenPlaysRandomlyAtItsRate(t *testing.T) {
	m := Mistaken[int]{Bot: firstLegal{}, Rate: 0.5}
	r := rand.New(rand.NewPCG(1, 1))
	other := 0
	for range 1000 {
		if m.Choose(nil, []int{0, 1}, r) == 0 {
			other++
		}
	}
	// A mistake picks 0 half the time: about 250 of 1,000; sd about 14.
	if other < 180 || other > 320 {
		t.Fatalf("%d of 1,000 choices were not the bot's; want about 250", other)
	}
}

// waiter wants to act (its last legal action) only when the view says so.
type waiter struct{ firstLegal }

func (waiter) Wants(view proto.Message, legal []int) (int, bool) {
	return legal[len(legal)-1], view.(*wrapperspb.Int32Value).GetValue() != 0
}

// TestEasyWaits: the easy level of a bot that may wait waits when it does, and when it acts makes
// mistakes at the rate, the same for the same view.
func TestEasyWaits(t *testing.T) {
	e, ok := Levels[int]{Normal: waiter{}}.Easy().(engine.Waiter[int])
	if !ok {
		t.Fatal("the easy level of a waiter does not wait")
	}
	if _, want := e.Wants(wrapperspb.Int32(0), []int{0, 1}); want {
		t.Fatal("wants to act when its bot waits")
	}
	mistakes := 0
	for i := range int32(1000) {
		v := wrapperspb.Int32(i + 1)
		a, want := e.Wants(v, []int{0, 1})
		if !want {
			t.Fatal("waits when its bot acts")
		}
		if b, _ := e.Wants(v, []int{0, 1}); b != a {
			t.Fatal("the same view got two answers")
		}
		if a == 0 {
			mistakes++
		}
	}
	// A mistake picks the other action half the time: about 250 of 1,000; sd about 14.
	if mistakes < 180 || mistakes > 320 {
		t.Fatalf("%d of 1,000 choices were not the bot's; want about 250", mistakes)
	}
}
