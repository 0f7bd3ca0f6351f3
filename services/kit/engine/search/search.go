// Package search is cardroom's strong computer player: determinized information-set search.
//
// The method is Single-Observer Information Set Monte Carlo Tree Search (SO-ISMCTS), from Cowling,
// Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE Transactions on
// Computational Intelligence and AI in Games 4(2), 2012. Every iteration
//
//  1. samples one world (a full state, a "determinization") from the searching seat's view alone,
//     with the sampler each game provides: the real state is never read;
//  2. descends one tree shared by all iterations, whose nodes are action sequences from the
//     searching seat's point of view; at each node only the actions legal in this world are
//     considered, and a child is chosen by UCB1 with availability counts (a child's exploration
//     term counts the iterations in which it was legal, not all the parent's visits);
//  3. adds one node, then plays the world out with the game's rollout policy (its heuristic bot, or
//     a fast form of it) to the end or to a horizon the game names, and
//  4. scores the end for every seat (0 to 1) and backs the scores up: each node keeps the score of
//     the seat that made the move leading to it, so every seat plays for itself.
//
// The move chosen is the root child visited most. With one iteration per legal action and no
// tree below the root this is Perfect Information Monte Carlo (Ginsberg's GIB, 2001); the tree is
// what lets later moves of the searching seat and of the others depend on what came before.
//
// Paired (paired.go) is the flat alternative for a seat whose moves differ little against the
// spread of the worlds: every candidate played out in the same worlds with the same randomness.
//
// A search runs a fixed number of iterations or for a time budget, whichever ends first; with
// Budget zero it is deterministic given the rand source it is handed (the seeded mode tests use).
package search

import (
	"math"
	"math/rand/v2"
	"time"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Options configure a search for one game. Sample, ToAct, Value and Apply are required.
type Options[S any, A comparable] struct {
	Game engine.Game[S, A]
	// Sample deals a full state consistent with view (the searching seat's view); false when it
	// cannot (a variant it does not model), and the search falls back to Fallback. It must not
	// read anything but view and r.
	Sample func(view proto.Message, r *rand.Rand) (S, bool)
	// Sampler, when set, replaces Sample: it is called once per decision with the view and
	// returns the function that deals that decision's worlds, so a game reads its view once rather
	// than every iteration. The search uses a world only until it asks for the next one, except
	// the first (the root's, which Value and Stop read), so the function may deal every world
	// after the first into one reused state.
	Sampler func(view proto.Message) (deal func(r *rand.Rand) (S, bool))
	// ToAct is the seat whose move the state waits for, or -1 when none (over, or waiting on time).
	ToAct func(s S) int
	// Apply applies a legal action quietly (no events needed).
	Apply func(s S, seat int, a A)
	// Value is seat's score of state s at the end of a rollout, from 0 (lost) to 1 (won). root
	// is a world sampled at the start of the decision: only what the view showed of it may be
	// read (e.g. the coins each seat held, to score the coins won since).
	Value func(root, s S, seat int) float64
	// Rollout chooses seat's action in a playout; nil: uniformly random. It may read the sampled
	// world but should decide as that seat could (its own hand, public cards).
	Rollout func(s S, seat int, legal []A, r *rand.Rand) A
	// Stop ends a playout early (a horizon: e.g. the end of the round); Value then scores it.
	// root is as for Value; depth counts the moves since it. nil: play to the end.
	Stop func(root, s S, depth int) bool
	// Prune, when set, narrows the actions the tree considers for seat in s (never to none): a
	// game with many near-equal actions keeps the distinct ones, so the iterations are not spread
	// thin. The root's actions are pruned with the sampled world of each iteration.
	Prune func(s S, seat int, legal []A) []A
	// ModelOthers makes the other seats move by the rollout policy inside the tree too, so the tree
	// holds the searching seat's own decisions only: an opponent model rather than a search of the
	// others' moves, for games where their moves are many and the rollout policy plays them well.
	ModelOthers bool
	// Iterations bounds a decision (default 1,000).
	Iterations int
	// Budget bounds a decision in time; zero: iterations only (deterministic).
	Budget time.Duration
	// Exploration is UCB1's constant (default 0.7).
	Exploration float64
	// Fallback decides when the sampler cannot (nil: the first legal action).
	Fallback engine.Bot[A]
}

// Bot is an engine.Bot that searches.
type Bot[S any, A comparable] struct {
	o Options[S, A]
}

// New makes a search bot.
func New[S any, A comparable](o Options[S, A]) *Bot[S, A] {
	if o.Iterations <= 0 {
		o.Iterations = 1000
	}
	if o.Exploration == 0 {
		o.Exploration = 0.7
	}
	return &Bot[S, A]{o: o}
}

var _ engine.Bot[int] = (*Bot[int, int])(nil)

type node[A comparable] struct {
	parent   *node[A]
	action   A
	seat     int // who moved into this node
	children []*node[A]
	visits   int
	avail    int
	reward   float64
}

// dealer deals worlds consistent with view: the Sampler's dealer when there is one, else Sample.
func (o *Options[S, A]) dealer(view proto.Message) func(*rand.Rand) (S, bool) {
	if o.Sampler != nil {
		return o.Sampler(view)
	}
	return func(r *rand.Rand) (S, bool) { return o.Sample(view, r) }
}

// fallback is the decision when no world can be dealt: Fallback's, else the first legal action.
func (o *Options[S, A]) fallback(view proto.Message, legal []A, r *rand.Rand) A {
	if o.Fallback != nil {
		return o.Fallback.Choose(view, legal, r)
	}
	return legal[0]
}

// Stats describes the last decision, for benchmarks and tests.
type Stats struct {
	Iterations int
	Nodes      int
}

// Choose implements engine.Bot.
func (b *Bot[S, A]) Choose(view proto.Message, legal []A, r *rand.Rand) A {
	a, _ := b.Decide(view, legal, r)
	return a
}

// Decide is Choose that also reports what the search did.
func (b *Bot[S, A]) Decide(view proto.Message, legal []A, r *rand.Rand) (A, Stats) {
	var st Stats
	if len(legal) == 1 {
		return legal[0], st
	}
	o := &b.o
	deal := o.dealer(view)
	root0, ok := deal(r)
	if !ok {
		return o.fallback(view, legal, r), st
	}
	var deadline time.Time
	if o.Budget > 0 {
		deadline = time.Now().Add(o.Budget)
	}
	root := &node[A]{seat: -1}
	me := o.ToAct(root0)
	var buf []A
	// Each seat's Value of the iteration's end, computed once (backpropagation asks for it at
	// every node of the path).
	var vals []float64
	var have []bool
	for st.Iterations < o.Iterations {
		if o.Budget > 0 && st.Iterations%8 == 0 && st.Iterations > 0 && time.Now().After(deadline) {
			break
		}
		s, ok := deal(r)
		if !ok {
			break
		}
		st.Iterations++
		n := root
		depth := 0
		// Selection and expansion.
		for {
			seat := o.ToAct(s)
			if seat < 0 {
				break
			}
			buf = o.Game.Legal(s, seat, buf[:0])
			if len(buf) == 0 {
				break
			}
			if n == root {
				buf = append(buf[:0], legal...) // the root's moves are the real ones
			}
			if o.ModelOthers && seat != me {
				o.Apply(s, seat, b.rollout(s, seat, buf, r))
				depth++
				continue
			}
			if o.Prune != nil {
				buf = o.Prune(s, seat, buf)
			}
			child, expanded := b.pick(n, seat, buf, r)
			if expanded {
				st.Nodes++
			}
			o.Apply(s, seat, child.action)
			depth++
			n = child
			if expanded {
				break
			}
		}
		// Playout.
		for o.Stop == nil || !o.Stop(root0, s, depth) {
			seat := o.ToAct(s)
			if seat < 0 {
				break
			}
			buf = o.Game.Legal(s, seat, buf[:0])
			if len(buf) == 0 {
				break
			}
			o.Apply(s, seat, b.rollout(s, seat, buf, r))
			depth++
		}
		// Backpropagation.
		clear(have)
		for ; n != nil; n = n.parent {
			n.visits++
			if seat := n.seat; seat >= 0 {
				if seat >= len(vals) {
					vals = append(vals, make([]float64, seat+1-len(vals))...)
					have = append(have, make([]bool, seat+1-len(have))...)
				}
				if !have[seat] {
					vals[seat], have[seat] = o.Value(root0, s, seat), true
				}
				n.reward += vals[seat]
			}
		}
	}
	best, bestN := legal[0], -1
	for _, c := range root.children {
		if c.visits > bestN {
			best, bestN = c.action, c.visits
		}
	}
	return best, st
}

func (b *Bot[S, A]) rollout(s S, seat int, legal []A, r *rand.Rand) A {
	if b.o.Rollout != nil {
		return b.o.Rollout(s, seat, legal, r)
	}
	return legal[r.IntN(len(legal))]
}

// pick chooses n's child for seat among the legal actions: an untried one at random if any
// (expanded), else by UCB1 with availability counts.
func (b *Bot[S, A]) pick(n *node[A], seat int, legal []A, r *rand.Rand) (*node[A], bool) {
	var untried [64]int
	nu := 0
	var best *node[A]
	bestU := math.Inf(-1)
	for i, a := range legal {
		var c *node[A]
		for _, ch := range n.children {
			if ch.action == a && ch.seat == seat {
				c = ch
				break
			}
		}
		if c == nil {
			if nu < len(untried) {
				untried[nu] = i
				nu++
			}
			continue
		}
		c.avail++
		if nu > 0 {
			continue
		}
		u := c.reward/float64(c.visits) + b.o.Exploration*math.Sqrt(math.Log(float64(c.avail))/float64(c.visits))
		if u > bestU {
			best, bestU = c, u
		}
	}
	if nu > 0 {
		c := &node[A]{parent: n, action: legal[untried[r.IntN(nu)]], seat: seat, avail: 1}
		n.children = append(n.children, c)
		return c, true
	}
	return best, false
}
