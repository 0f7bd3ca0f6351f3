package bot

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/saboteur/engine"
	"google.golang.org/protobuf/proto"
)

// StrongOptions tune the search bot. Zero values take the defaults.
type StrongOptions struct {
	// Iterations per decision (default StrongIterations).
	Iterations int
	// Budget per decision in time (default none: iterations only, deterministic given the rand
	// source).
	Budget time.Duration
	// Width is how many of the heuristic's best actions the search weighs at each of the seat's
	// decisions (default StrongWidth).
	Width int
	// Horizon is how many moves a playout runs before it is scored (default StrongHorizon).
	Horizon int
	// Exploration is UCB1's constant (see search.Options).
	Exploration float64
}

// StrongIterations is the search's default number of iterations per decision, sized to decide in
// well under 50 ms on one core (see docs/performance.md, "Bots").
var StrongIterations = 200

// StrongWidth is how many actions the search weighs by default: the heuristic's best few.
var StrongWidth = 8

// NewStrong is the strong bot: information-set Monte Carlo tree search (package search) over
// worlds engine.Sample deals from the seat's view, played out to the end of the round with every
// seat playing the role-aware heuristic as that seat could (its own role, hand and knowledge), and
// scored by the seat's own result in the round: whether its side won, and its share. The other
// seats move by the heuristic inside the tree too (an opponent model): the tree holds the seat's
// own decisions, each narrowed to the heuristic's best Width actions. Gold picking and thefts,
// which come after the round's result, are left to the heuristic.
func NewStrong(o StrongOptions) *search.Bot[*engine.State, engine.Action] {
	it := cmp.Or(o.Iterations, StrongIterations)
	width := cmp.Or(o.Width, StrongWidth)
	horizon := cmp.Or(o.Horizon, StrongHorizon)
	return search.New(search.Options[*engine.State, engine.Action]{
		Game:    engine.Game{},
		Sample:  sample,
		ToAct:   func(s *engine.State) int { return s.ToAct() },
		Apply:   func(s *engine.State, seat int, a engine.Action) { s.Play(seat, a) },
		Value:   value,
		Rollout: rollout,
		Stop:    func(_, _ *engine.State, depth int) bool { return depth >= horizon },
		Prune: func(s *engine.State, seat int, legal []engine.Action) []engine.Action {
			return prune(s, seat, legal, width)
		},
		ModelOthers: true,
		Iterations:  it,
		Budget:      o.Budget,
		Exploration: o.Exploration,
		Fallback:    RoleAware{},
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

// rollout plays seat's heuristic choice in the world, from what that seat knows there.
func rollout(s *engine.State, seat int, legal []engine.Action, r *rand.Rand) engine.Action {
	in := stateInfo(s, seat)
	return in.choose(legal, r)
}

// prune keeps the heuristic's width best actions, those within StrongMargin of its best.
func prune(s *engine.State, seat int, legal []engine.Action, width int) []engine.Action {
	if len(legal) <= width {
		return legal
	}
	in := stateInfo(s, seat)
	type scored struct {
		a engine.Action
		v int
	}
	var buf [256]scored
	sc := buf[:0]
	for _, a := range legal {
		sc = append(sc, scored{a, in.score(a, nil)})
	}
	slices.SortStableFunc(sc, func(x, y scored) int { return cmp.Compare(y.v, x.v) })
	out := legal[:0]
	for i, x := range sc[:width] {
		if i > 0 && x.v < sc[0].v-StrongMargin {
			break
		}
		out = append(out, x.a)
	}
	return out
}

// StrongMargin bounds the actions the search weighs to those the heuristic scores within this
// much of its best: on a clear choice (mend one's own tool, extend the tunnel rather than discard)
// the search does not spend its iterations, nor risk its noise, on the alternatives.
var StrongMargin = 50

// value scores a playout for seat. At the round's end: its side's result (a saboteur wins when the
// gold is not reached, a digger when its colour reaches it), with a little for its share of
// nuggets, so that a geologist (never a winner) plays for crystals and a winner prefers fewer
// partners. At the horizon, before the end: how much nearer the tunnel came to the gold since the
// decision, and how many more of the seats who want it reached cannot build, good for the
// diggers and bad for the saboteurs, kept between a lost round's score and a won one's.
func value(root, s *engine.State, seat int) float64 {
	saboteur := s.RoleOf(seat) == uint8(pb.Role_ROLE_SABOTEUR)
	if s.RoundOfResult() == root.Round() {
		win, payout := s.RoundResult(seat)
		v := 0.2 * float64(min(payout, 5)) / 5
		switch {
		case win:
			v += 0.8
		case !saboteur && s.LastRoundGold():
			v += 0.3
		}
		return v
	}
	f0, b0 := s.Dealt()
	d := 0.5 + 0.04*float64(f0-s.GoldFront()) - 0.04*float64(s.BlockedBuilders()-b0)
	d = max(0.25, min(0.75, d))
	if saboteur {
		return 1 - d
	}
	return d
}

// StrongHorizon is how many moves past the decision a playout runs before it is scored, unless
// the round ends first: two turns of every seat at a 6-seat table.
var StrongHorizon = 12
