package search

import (
	"math/rand/v2"
	"testing"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// noisy is a one-move game whose hidden draw (sampled) outweighs the moves: move m scores
// 0.9·u + 0.01·m for a uniform u of the world. Played out in independent worlds, two moves'
// estimates differ mostly by their worlds' u; in the same worlds, only by the moves.
type noisy struct {
	u    float64
	move int
	done bool
}

// noisyGame is the part of engine.Game the searches call (Legal, Clone).
type noisyGame struct{ engine.Game[*noisy, int] }

func (noisyGame) Clone(s *noisy) *noisy { c := *s; return &c }

func (noisyGame) Legal(s *noisy, _ int, buf []int) []int {
	if s.done {
		return buf
	}
	return append(buf, 0, 1, 2, 3)
}

func noisyOptions(iterations int) Options[*noisy, int] {
	return Options[*noisy, int]{
		Game: noisyGame{},
		Sample: func(view proto.Message, r *rand.Rand) (*noisy, bool) {
			if _, ok := view.(*wrapperspb.Int32Value); !ok {
				return nil, false
			}
			return &noisy{u: r.Float64()}, true
		},
		ToAct: func(s *noisy) int {
			if s.done {
				return -1
			}
			return 0
		},
		Apply:      func(s *noisy, _ int, a int) { s.move, s.done = a, true },
		Value:      func(_, s *noisy, _ int) float64 { return 0.9*s.u + 0.01*float64(s.move) },
		Iterations: iterations,
	}
}

// TestPairedSeesSmallDifferencesThroughNoise: with two worlds per move the paired search finds the
// best of four moves on every seed; the tree search with the same playouts (each in its own world)
// does not.
func TestPairedSeesSmallDifferencesThroughNoise(t *testing.T) {
	legal := []int{0, 1, 2, 3}
	view := wrapperspb.Int32(0)
	tree := 0
	for seed := range uint64(50) {
		a, st := NewPaired(noisyOptions(8)).Decide(view, legal, rand.New(rand.NewPCG(seed, 1)))
		if a != 3 || st.Iterations != 8 {
			t.Fatalf("seed %d: chose %d after %d playouts, want 3 after 8", seed, a, st.Iterations)
		}
		if b, _ := New(noisyOptions(8)).Decide(view, legal, rand.New(rand.NewPCG(seed, 1))); b == 3 {
			tree++
		}
	}
	if tree == 50 {
		t.Fatal("the tree search found the best move on every seed too: the game does not show the difference")
	}
}

func TestPairedPrunesAndFallsBack(t *testing.T) {
	o := noisyOptions(40)
	o.Prune = func(_ *noisy, _ int, legal []int) []int { return legal[:2] }
	if a, _ := NewPaired(o).Decide(wrapperspb.Int32(0), []int{0, 1, 2, 3}, rand.New(rand.NewPCG(1, 1))); a != 1 {
		t.Fatalf("chose %d, want 1, the better of the two kept", a)
	}
	o.Fallback = firstLegal{}
	if a, st := NewPaired(o).Decide(wrapperspb.String("x"), []int{0, 1, 2, 3}, rand.New(rand.NewPCG(1, 1))); a != 3 || st.Iterations != 0 {
		t.Fatalf("chose %d after %d playouts, want the fallback's 3 and none", a, st.Iterations)
	}
}
