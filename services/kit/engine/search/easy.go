package search

import (
	"math/rand/v2"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Mistaken is a bot that makes mistakes: with probability Rate it plays a uniformly random legal
// action instead of Bot's choice. It is the "easy" level made of a game's heuristic bot. It is
// not a Waiter: real-time games need their own (see sabai-sabai's bot).
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
