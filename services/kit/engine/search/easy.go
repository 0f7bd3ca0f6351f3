package search

import (
	"hash/fnv"
	"math/rand/v2"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Mistaken is a bot that makes mistakes: with probability Rate it plays a uniformly random legal
// action instead of Bot's choice. It is the "easy" level made of a game's heuristic bot. It is
// not a Waiter: for a bot that may wait (real-time games) Levels.Easy makes a MistakenWaiter.
type Mistaken[A any] struct {
	Bot  engine.Bot[A]
	Rate float64
}

// Choose implements engine.Bot.
func (m Mistaken[A]) Choose(view proto.Message, legal []A, r *rand.Rand) A {
	if len(legal) > 1 && r.Float64() < m.Rate {
		return legal[r.IntN(len(legal))]
	}
	return m.Bot.Choose(view, legal, r)
}

// MistakenWaiter is Mistaken for a bot that may prefer to do nothing (engine.Waiter, real-time
// games such as sabai-sabai): it waits when its bot does, and when its bot wants to act it plays a
// uniformly random legal action instead with probability Rate. Wants has no random source: it
// draws from a hash of the view, so the same view gets the same answer (a harness may ask again
// while nothing changed).
type MistakenWaiter[A any] struct {
	Mistaken[A]
}

var _ engine.Waiter[int] = MistakenWaiter[int]{}

// Wants implements engine.Waiter.
func (m MistakenWaiter[A]) Wants(view proto.Message, legal []A) (A, bool) {
	w, ok := m.Bot.(engine.Waiter[A])
	if !ok {
		var zero A
		return zero, false
	}
	a, want := w.Wants(view, legal)
	if !want || len(legal) < 2 {
		return a, want
	}
	h := fnv.New64a()
	if buf, err := (proto.MarshalOptions{Deterministic: true}).Marshal(view); err == nil {
		_, _ = h.Write(buf)
	}
	r := rand.New(rand.NewPCG(h.Sum64(), 0x6d697374616b65))
	if r.Float64() < m.Rate {
		return legal[r.IntN(len(legal))], true
	}
	return a, true
}
