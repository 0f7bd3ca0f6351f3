package search

import (
	"math/rand/v2"
	"slices"
	"time"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Paired is an engine.Bot that weighs its moves by flat determinized Monte Carlo with common random
// numbers: Perfect Information Monte Carlo (as in Ginsberg's GIB, JAIR 14, 2001) in which every
// candidate move is played out in the same sampled worlds with the same playout randomness. Common
// random numbers (a standard variance reduction of simulation: Law & Kelton, "Simulation Modeling
// and Analysis", the chapter on variance-reduction techniques) make the comparison of two moves a
// paired one: a world in which neither matters scores both alike, so the spread between worlds
// (the hidden cards) drops out of their difference and only the moves' own effect is left. It
// suits a seat whose moves differ little in value against the spread of the worlds, where SO-ISMCTS
// (Bot), whose iterations each meet a new world, spends them telling noise apart.
//
// Each decision samples a world from the view (the root), narrows the legal moves with Prune in
// it, then deals Iterations/len(candidates) worlds, each with a seed for its playouts. Each
// candidate is applied to its own copy of the world (Game.Clone, which must copy deeply) and played
// out with Rollout for every seat, from a rand source of the world's playout seed, until Stop or
// the end; Value scores it for the searching seat. The candidate of the highest total wins, the
// first of equals (Prune's order). ToAct, Apply, Value, Rollout, Stop, Prune, Iterations, Budget
// and Fallback mean what they mean for Bot; Exploration and ModelOthers are not used.
type Paired[S any, A comparable] struct {
	o Options[S, A]
}

// NewPaired makes a paired flat Monte Carlo bot.
func NewPaired[S any, A comparable](o Options[S, A]) *Paired[S, A] {
	if o.Iterations <= 0 {
		o.Iterations = 1000
	}
	return &Paired[S, A]{o: o}
}

var _ engine.Bot[int] = (*Paired[int, int])(nil)

// Choose implements engine.Bot.
func (b *Paired[S, A]) Choose(view proto.Message, legal []A, r *rand.Rand) A {
	a, _ := b.Decide(view, legal, r)
	return a
}

// Decide is Choose that also reports what the search did: Iterations counts the playouts.
func (b *Paired[S, A]) Decide(view proto.Message, legal []A, r *rand.Rand) (A, Stats) {
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
	me := o.ToAct(root0)
	cands := slices.Clone(legal)
	if o.Prune != nil {
		cands = o.Prune(root0, me, cands)
	}
	if len(cands) == 1 {
		return cands[0], st
	}
	var deadline time.Time
	if o.Budget > 0 {
		deadline = time.Now().Add(o.Budget)
	}
	total := make([]float64, len(cands))
	var buf []A
	var world, playout rand.PCG
	wr, pr := rand.New(&world), rand.New(&playout)
	worlds := max(1, o.Iterations/len(cands))
	for k := range worlds {
		if o.Budget > 0 && k > 0 && time.Now().After(deadline) {
			break
		}
		w1, w2, p1, p2 := r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()
		world.Seed(w1, w2)
		w, ok := deal(wr)
		if !ok {
			if k == 0 {
				return o.fallback(view, legal, r), st
			}
			break
		}
		for i, c := range cands {
			s := o.Game.Clone(w)
			playout.Seed(p1, p2)
			o.Apply(s, me, c)
			for depth := 1; o.Stop == nil || !o.Stop(root0, s, depth); depth++ {
				seat := o.ToAct(s)
				if seat < 0 {
					break
				}
				buf = o.Game.Legal(s, seat, buf[:0])
				if len(buf) == 0 {
					break
				}
				if o.Rollout != nil {
					o.Apply(s, seat, o.Rollout(s, seat, buf, pr))
				} else {
					o.Apply(s, seat, buf[pr.IntN(len(buf))])
				}
			}
			total[i] += o.Value(root0, s, me)
			st.Iterations++
		}
	}
	best := 0
	for i, v := range total {
		if v > total[best] {
			best = i
		}
	}
	return cands[best], st
}
