package bot

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/saboteur/engine"
	"google.golang.org/protobuf/proto"
)

// StrongOptions tune the search bot. Zero values take the defaults.
type StrongOptions struct {
	// Iterations per decision of a seat other than a saboteur (default StrongIterations).
	Iterations int
	// SaboteurIterations per decision of a saboteur (default StrongSaboteurIterations).
	SaboteurIterations int
	// Budget per decision in time (default none: iterations only, deterministic given the rand
	// source).
	Budget time.Duration
	// Width is how many of the heuristic's best actions the search weighs at each of the seat's
	// decisions (default StrongWidth).
	Width int
	// SaboteurWidth is Width for a saboteur (default StrongSaboteurWidth).
	SaboteurWidth int
	// Horizon is how many moves a playout runs before it is scored, for a seat other than a
	// saboteur (default StrongHorizon).
	Horizon int
	// SaboteurHorizon is Horizon for a saboteur (default StrongSaboteurHorizon).
	SaboteurHorizon int
	// Exploration is UCB1's constant (see search.Options).
	Exploration float64
}

// StrongIterations is the search's default number of iterations per decision of a seat other
// than a saboteur, sized to decide in well under 50 ms on one core (see docs/performance-log.md,
// "Bots").
var StrongIterations = 200

// StrongSaboteurIterations is a saboteur's playouts per decision: StrongSaboteurWidth candidates,
// each played out in the same StrongSaboteurIterations/StrongSaboteurWidth worlds (search.Paired).
// Its playouts are short (StrongSaboteurHorizon) and it narrows its moves once per decision rather
// than at every iteration, so 600 of them cost about what 400 iterations of the tree search did
// (docs/performance-log.md, "Saboteur: strong saboteurs by paired playouts").
var StrongSaboteurIterations = 600

// StrongWidth is how many actions the search weighs by default: the heuristic's best few.
var StrongWidth = 8

// StrongSaboteurWidth is how many of its heuristic's best moves a saboteur weighs: 12 in 50
// worlds lowered the gold rate by more than 8 in 75 (docs/performance-log.md, "Saboteur: strong
// saboteurs by paired playouts").
var StrongSaboteurWidth = 12

// Strong is the strong bot. Every seat but a saboteur plays information-set Monte Carlo tree search
// (search.Bot) over worlds engine.Sample deals from the seat's view, played out with every seat
// playing the role-aware heuristic as that seat could (its own role, hand and knowledge) to the end
// of the round or a horizon, and scored by the seat's own result: whether its side won, and its
// share. The other seats move by the heuristic inside the tree too (an opponent model): the tree
// holds the seat's own decisions, each narrowed to the heuristic's best actions (prune).
//
// A saboteur, chosen by the role the view shows, weighs its heuristic's best moves by paired flat
// Monte Carlo instead (search.Paired): each move played out in the same sampled worlds with the
// same playout randomness. Its moves (a dead end here or there, a broken tool on one digger or
// another) change the tunnel's progress over the next moves by far less than the worlds do (where
// the gold lies, what the diggers hold), and the tree search's independent worlds hid those
// differences in their noise: paired, the same playouts lowered the gold rate by more
// (docs/performance-log.md, "Saboteur: strong saboteurs by paired playouts"). Gold picking and
// thefts, which come after the round's result, are left to the heuristic.
type Strong struct {
	other    *search.Bot[*engine.State, engine.Action]
	saboteur *search.Paired[*engine.State, engine.Action]
}

var _ kit.Bot[engine.Action] = (*Strong)(nil)

// NewStrong makes the strong bot.
func NewStrong(o StrongOptions) *Strong {
	options := func(iterations, horizon, width int) search.Options[*engine.State, engine.Action] {
		return search.Options[*engine.State, engine.Action]{
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
			Iterations:  iterations,
			Budget:      o.Budget,
			Exploration: o.Exploration,
			Fallback:    RoleAware{},
		}
	}
	return &Strong{
		other: search.New(options(cmp.Or(o.Iterations, StrongIterations), cmp.Or(o.Horizon, StrongHorizon),
			cmp.Or(o.Width, StrongWidth))),
		saboteur: search.NewPaired(options(cmp.Or(o.SaboteurIterations, StrongSaboteurIterations),
			cmp.Or(o.SaboteurHorizon, StrongSaboteurHorizon), cmp.Or(o.SaboteurWidth, StrongSaboteurWidth))),
	}
}

// Choose implements kit.Bot.
func (b *Strong) Choose(view proto.Message, legal []engine.Action, r *rand.Rand) engine.Action {
	a, _ := b.Decide(view, legal, r)
	return a
}

// Decide is Choose that also reports what the search did.
func (b *Strong) Decide(view proto.Message, legal []engine.Action, r *rand.Rand) (engine.Action, search.Stats) {
	if v, _ := view.(*pb.View); v.GetRole() == pb.Role_ROLE_SABOTEUR {
		return b.saboteur.Decide(view, legal, r)
	}
	return b.other.Decide(view, legal, r)
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

// prune keeps the heuristic's width best actions, those within its role's margin of its best
// (StrongMargin, StrongSaboteurMargin).
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
	margin := StrongMargin
	if in.role == pb.Role_ROLE_SABOTEUR {
		margin = StrongSaboteurMargin
	}
	out := legal[:0]
	for i, x := range sc[:width] {
		if i > 0 && x.v < sc[0].v-margin {
			break
		}
		out = append(out, x.a)
	}
	return out
}

// StrongMargin bounds the actions the search weighs, for a seat other than a saboteur, to those
// the heuristic scores within this much of its best: on a clear choice (mend one's own tool,
// extend the tunnel rather than discard) the search does not spend its iterations, nor risk its
// noise, on the alternatives.
var StrongMargin = 50

// StrongSaboteurMargin is StrongMargin for a saboteur, wide enough to keep the moves its heuristic
// considers (a dead end at the front, a broken tool, a rockfall, a discard) and to leave out those
// it does not: its scores of such unlike moves are not comparable enough to narrow by, and with
// the margin of 50 strong saboteurs lowered the gold rate by 2.6 points instead of 6.6
// (docs/performance-log.md, "Saboteur: the tree search").
var StrongSaboteurMargin = 1000

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

// StrongSaboteurHorizon is a saboteur's: the tunnel's progress over the next moves, which its
// blocks and broken tools change, is what its value reads; further on the playouts' noise (the
// diggers' heuristic moves in worlds whose hands and gold are guesses) drowns it (12 moves lowered
// the gold rate by 6.6 points, 24 by 5.0, 8 by 8.2: docs/performance-log.md, "Saboteur: the tree
// search").
var StrongSaboteurHorizon = 8
