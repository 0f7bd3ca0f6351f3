package bot

import (
	"math"
	"math/rand/v2"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sapotagem/engine"
	"google.golang.org/protobuf/proto"
)

// Levels are the game's bots by level (search.Levels): the heuristic bot, and the search bot.
var Levels = search.Levels[engine.Action]{
	Normal: Heuristic{},
	Strong: func(budget time.Duration) kit.Bot[engine.Action] { return NewStrong(StrongOptions{Budget: budget}) },
}

// StrongOptions tune the search bot. Zero values take the defaults.
type StrongOptions struct {
	// Iterations per decision (default StrongIterations).
	Iterations int
	// Budget per decision in time (default none: iterations only, deterministic given the rand
	// source).
	Budget time.Duration
	// ModelOthers and Exploration are passed to the search (see search.Options).
	ModelOthers bool
	Exploration float64
}

// StrongIterations is the search's default number of iterations per decision, sized to decide in
// well under 50 ms on one core (see docs/performance.md, "Bots").
var StrongIterations = 3000

// NewStrong is the strong bot: information-set Monte Carlo tree search (package search) over
// worlds engine.Sample deals from the seat's view, played out with every seat playing the
// heuristic's fast judgement (engine.State.Greedy). Tables Sample does not model fall back to the
// heuristic bot.
func NewStrong(o StrongOptions) *search.Bot[*engine.State, engine.Action] {
	it := o.Iterations
	if it == 0 {
		it = StrongIterations
	}
	return search.New(search.Options[*engine.State, engine.Action]{
		Game:        engine.Game{},
		Sample:      sample,
		Sampler:     sampler,
		ToAct:       toAct,
		Apply:       func(s *engine.State, seat int, a engine.Action) { s.Apply(seat, a) },
		Value:       value,
		Rollout:     rollout,
		Iterations:  it,
		Budget:      o.Budget,
		ModelOthers: o.ModelOthers,
		Exploration: o.Exploration,
		Fallback:    Heuristic{},
	})
}

// sample is engine.Sample behind the search's signature: it sees the view and nothing else.
func sample(view proto.Message, r *rand.Rand) (*engine.State, bool) {
	v, ok := view.(*pb.View)
	if !ok {
		return nil, false
	}
	return engine.Sample(v, r)
}

// sampler reads the view once per decision; every world after the root's is dealt into one
// reused state (the search's contract).
func sampler(view proto.Message) func(r *rand.Rand) (*engine.State, bool) {
	v, ok := view.(*pb.View)
	if !ok {
		return func(*rand.Rand) (*engine.State, bool) { return nil, false }
	}
	sp, ok := engine.NewSampler(v)
	if !ok {
		return func(*rand.Rand) (*engine.State, bool) { return nil, false }
	}
	var root, scratch *engine.State
	return func(r *rand.Rand) (*engine.State, bool) {
		if root == nil {
			root = &engine.State{}
			sp.Deal(r, root)
			return root, true
		}
		if scratch == nil {
			scratch = &engine.State{}
		}
		sp.Deal(r, scratch)
		return scratch, true
	}
}

func toAct(s *engine.State) int {
	switch s.Phase {
	case engine.PhaseOver:
		return -1
	case engine.PhaseSleeve:
		for seat := range int(s.N) {
			if s.Sleeve[seat] < 0 {
				return seat
			}
		}
		return -1
	}
	return int(s.Turn)
}

func rollout(s *engine.State, seat int, legal []engine.Action, r *rand.Rand) engine.Action {
	if len(legal) == 1 {
		return legal[0] // what Greedy and the draw would give, without their cost
	}
	if s.Phase == engine.PhasePlay {
		return s.Greedy(int8(seat), legal)
	}
	return legal[r.IntN(len(legal))]
}

// value scores a finished game for seat: mostly the win, and the score margin for the rest (so
// a lost game lost by little is worth more than one lost by much).
func value(_, s *engine.State, seat int) float64 {
	win, margin := s.Result(seat)
	v := 0.35 + 0.3*math.Tanh(float64(margin)/8)
	if win {
		v += 0.35
	}
	return v
}
