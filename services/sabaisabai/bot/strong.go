package bot

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sabaisabai/engine"
	"google.golang.org/protobuf/proto"
)

// StrongOptions tune the search bot. Zero values take the defaults.
type StrongOptions struct {
	// Iterations per decision (default StrongIterations).
	Iterations int
	// Budget per decision in time (default none: iterations only, deterministic).
	Budget time.Duration
	// Seed varies the searches of a deterministic bot (see Strong.Wants).
	Seed uint64
	// Exploration is the search's UCB1 constant (0: the search's default).
	Exploration float64
	// Tree searches with the information-set tree (package search) instead of the flat
	// determinized search with common worlds (see Strong).
	Tree bool
}

// StrongIterations is the search's default number of iterations per decision, sized to decide in
// well under 50 ms on one core (see docs/performance.md, "Bots").
var StrongIterations = 300

// maxRoot bounds the moves a decision searches: a spy or switch may have dozens of targets; the
// heuristic's most liked are kept.
const maxRoot = 12

// horizon bounds a playout: it stops at the end of the round, or after this many moves.
const horizon = 600

// Strong is the strong bot: information-set Monte Carlo tree search (package search) of its turn
// decisions — draw or call, play or keep (and which slot), and the pending effect's target —
// over worlds engine.Sample deals from its view alone, each played out to the end of the round by
// every seat following the heuristic bot's rules (engine.State.Policy) and scored by the victory
// points then (engine.State.Value). Throws, nose touches and calls out of its turn are real-time
// reactions: it makes them as the heuristic bot does, when the heuristic wants to, and the table's
// reaction delay (Ruling B1) applies to them as to every bot.
type Strong struct {
	s      *search.Bot[*engine.State, engine.Action]
	seed   uint64
	tree   bool
	it     int
	budget time.Duration
}

var (
	_ kit.Bot[engine.Action]    = (*Strong)(nil)
	_ kit.Waiter[engine.Action] = (*Strong)(nil)
)

// NewStrong makes the strong bot.
func NewStrong(o StrongOptions) *Strong {
	it := o.Iterations
	if it == 0 {
		it = StrongIterations
	}
	return &Strong{seed: o.Seed, tree: o.Tree, it: it, budget: o.Budget, s: search.New(search.Options[*engine.State, engine.Action]{
		Game:   engine.Game{},
		Sample: sample,
		ToAct:  func(s *engine.State) int { return s.ToAct() },
		Apply: func(s *engine.State, seat int, a engine.Action) {
			_ = s.Step(seat, a) // a refused move ends the world where it stands (see Step)
		},
		Value: func(root, s *engine.State, seat int) float64 { return s.Value(root, seat) },
		Rollout: func(s *engine.State, seat int, legal []engine.Action, _ *rand.Rand) engine.Action {
			return s.Policy(seat, legal)
		},
		Prune: func(s *engine.State, seat int, legal []engine.Action) []engine.Action {
			return s.Narrow(seat, legal, maxRoot)
		},
		Stop:        func(root, s *engine.State, depth int) bool { return s.Round() != root.Round() || depth >= horizon },
		ModelOthers: true,
		Iterations:  it,
		Budget:      o.Budget,
		Exploration: o.Exploration,
		Fallback:    Heuristic{},
	})}
}

// sample is engine.Sample behind the search's signature: it sees the view and nothing else.
func sample(view proto.Message, r *rand.Rand) (*engine.State, bool) {
	v, ok := view.(*pb.View)
	if !ok {
		return nil, false
	}
	return engine.Sample(v, r)
}

// Wants implements engine.Waiter: the heuristic's wish, except that a turn decision (the draw or
// a call before it, the play or a keep, a pending effect's target) is searched. The search's
// random source is seeded from the view (and StrongOptions.Seed), so the same view gets the same
// answer: the harness may ask again while nothing changed.
func (b *Strong) Wants(view proto.Message, legal []engine.Action) (engine.Action, bool) {
	a, ok := Heuristic{}.Wants(view, legal)
	if !ok {
		return a, false
	}
	roots, search := b.roots(view, a, legal)
	if !search {
		return a, true
	}
	return b.choose(view, a, roots, rand.New(rand.NewPCG(b.viewSeed(view), b.seed))), true
}

func (b *Strong) choose(view proto.Message, want engine.Action, roots []engine.Action, r *rand.Rand) engine.Action {
	if b.tree {
		return b.s.Choose(view, roots, r)
	}
	a, _ := b.flat(view, want, roots, r)
	return a
}

// flat is determinized search with common worlds: each world dealt from the view is played out
// once after every root move, so the moves are compared on the same cards (paired samples). The
// heuristic's move (want) stays unless another beats it with confidence: by more than Confidence
// standard errors of their paired differences. iterations counts the playouts (worlds × moves).
func (b *Strong) flat(view proto.Message, want engine.Action, roots []engine.Action, r *rand.Rand) (engine.Action, search.Stats) {
	var st search.Stats
	v, ok := view.(*pb.View)
	if !ok {
		return want, st
	}
	me := seatOf(v)
	h := slices.Index(roots, want)
	if h < 0 {
		h = 0
	}
	sum := make([]float64, len(roots))    // of the values
	diff := make([]float64, 2*len(roots)) // of the differences to h's value, and their squares
	val := make([]float64, len(roots))
	worlds := max(2, b.it/len(roots))
	g := engine.Game{}
	var buf []engine.Action
	var deadline time.Time
	if b.budget > 0 {
		deadline = time.Now().Add(b.budget)
	}
	n := 0
	for k := range worlds {
		if b.budget > 0 && k > 1 && time.Now().After(deadline) {
			break
		}
		w, ok := engine.Sample(v, r)
		if !ok {
			return want, st
		}
		for i, a := range roots {
			s := g.Clone(w)
			_ = s.Step(me, a)
			for depth := 0; depth < horizon && s.Round() == w.Round(); depth++ {
				seat := s.ToAct()
				if seat < 0 {
					break
				}
				buf = g.Legal(s, seat, buf[:0])
				if len(buf) == 0 {
					break
				}
				_ = s.Step(seat, s.Policy(seat, buf))
			}
			val[i] = s.Value(w, me)
			sum[i] += val[i]
			st.Iterations++
		}
		for i := range roots {
			d := val[i] - val[h]
			diff[2*i] += d
			diff[2*i+1] += d * d
		}
		n++
	}
	best := h
	for i := range roots {
		if i == h || sum[i] <= sum[best] {
			continue
		}
		m := diff[2*i] / float64(n)
		sd := math.Sqrt(max(0, diff[2*i+1]/float64(n)-m*m))
		if m > Confidence*sd/math.Sqrt(float64(n)) {
			best = i
		}
	}
	return roots[best], st
}

// Confidence is how many standard errors a move must gain over the heuristic's in the flat search
// to be played instead.
var Confidence = 2.0

// Choose implements engine.Bot: Wants with the harness's random source, and the heuristic's
// forced choice when it would rather wait.
func (b *Strong) Choose(view proto.Message, legal []engine.Action, r *rand.Rand) engine.Action {
	a, ok := Heuristic{}.Wants(view, legal)
	if !ok {
		return Heuristic{}.Choose(view, legal, r)
	}
	if roots, search := b.roots(view, a, legal); search {
		return b.choose(view, a, roots, r)
	}
	return a
}

// Decide is the search of a turn decision with its statistics (tests and benchmarks); searched is
// false when the decision is not searched (a reaction, or a single move).
func (b *Strong) Decide(view proto.Message, legal []engine.Action, r *rand.Rand) (a engine.Action, st search.Stats, searched bool) {
	a, ok := Heuristic{}.Wants(view, legal)
	if !ok {
		return Heuristic{}.Choose(view, legal, r), st, false
	}
	roots, search := b.roots(view, a, legal)
	if !search {
		return a, st, false
	}
	if b.tree {
		a, st = b.s.Decide(view, roots, r)
	} else {
		a, st = b.flat(view, a, roots, r)
	}
	return a, st, true
}

// roots are the moves of a turn decision the heuristic would make (want): the draw and the call
// before it; the play, the keeps (not into a known Ass Joker's slot) and the call; the pending
// effect's targets, at most maxRoot of them by the heuristic's liking. search is false for a
// reaction (a nose touch, a throw, a call out of turn) and for a decision with one move.
func (b *Strong) roots(view proto.Message, want engine.Action, legal []engine.Action) (roots []engine.Action, search bool) {
	v, ok := view.(*pb.View)
	if !ok {
		return nil, false
	}
	me := seatOf(v)
	switch want.Kind {
	case engine.KindDraw, engine.KindPlay, engine.KindKeep, engine.KindResolve:
	case engine.KindCall:
		if !has(legal, engine.KindDraw) && !has(legal, engine.KindPlay) {
			return nil, false
		}
	default:
		return nil, false
	}
	for _, a := range legal {
		switch a.Kind {
		case engine.KindDraw, engine.KindPlay:
			roots = append(roots, a)
		case engine.KindCall:
			if want.Kind != engine.KindResolve {
				roots = append(roots, a)
			}
		case engine.KindKeep:
			if cardAt(v, me, int(a.Slot)) != engine.AssJoker {
				roots = append(roots, a)
			}
		case engine.KindResolve:
			if want.Kind == engine.KindResolve {
				roots = append(roots, a)
			}
		}
	}
	if want.Kind == engine.KindResolve {
		roots = Heuristic{}.liked(v, me, roots, maxRoot)
	}
	return roots, len(roots) > 1
}

func has(legal []engine.Action, k engine.Kind) bool {
	for _, a := range legal {
		if a.Kind == k {
			return true
		}
	}
	return false
}

// viewSeed hashes the view (its deterministic encoding).
func (b *Strong) viewSeed(view proto.Message) uint64 {
	buf, err := proto.MarshalOptions{Deterministic: true}.Marshal(view)
	if err != nil {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write(buf)
	return h.Sum64()
}
