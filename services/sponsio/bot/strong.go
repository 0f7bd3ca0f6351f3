package bot

import (
	"math"
	"math/rand/v2"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	spe "cardroom.dev/services/sponsio/engine"
	"google.golang.org/protobuf/proto"
)

// Levels are the game's bots by level (search.Levels): the heuristic bot, and the search bot.
var Levels = search.Levels[spe.Action]{
	Normal: Heuristic{},
	Strong: func(budget time.Duration) engine.Bot[spe.Action] { return NewStrong(StrongOptions{Budget: budget}) },
}

// StrongOptions tune the search bot. Zero values take the defaults.
type StrongOptions struct {
	// Playouts per decision (default StrongPlayouts): worlds × candidate moves.
	Playouts int
	// Steps bounds a decision's work in moves played out (default StrongSteps): a betting turn's
	// playouts are long, and it has many candidates, so it deals fewer worlds.
	Steps int
	// Budget per decision in time (default none: playouts only, deterministic given the rand
	// source).
	Budget time.Duration
	// Confidence is how many standard errors a move must gain over the heuristic's to be played
	// instead (default Confidence).
	Confidence float64
}

// StrongPlayouts and StrongSteps are the search's default bounds of a decision, sized to decide
// in about 30 ms of one core on average and well under 100 ms at p99 (docs/performance.md,
// "Bots").
var (
	StrongPlayouts = 2000
	StrongSteps    = 50_000
)

// Confidence is the default of StrongOptions.Confidence.
var Confidence = 2.0

// Strong is the strong bot: determinized search with common worlds (Perfect Information Monte
// Carlo, Ginsberg's GIB, 2001, with paired samples), guarded by the heuristic bot. It asks the
// heuristic bot for its move and lists the moves worth comparing with it (candidates: every card
// of a trick, option, counter-bet target, Combat card or bet change; in a betting turn passing and
// every bet the card the heuristic opens could place). It deals worlds from the seat's view alone
// (spe.Sample once, spe.State.Redeal for each further world), plays each world out to the end of
// the round once after every candidate, the other seats betting and playing by the heuristic's
// fast rules (rollout, betTurn), and scores each end for the seat (value). The heuristic's move
// stays unless another beats it by more than Confidence standard errors of their paired
// differences: a search that is unsure keeps the move of the bot it refines, so noise cannot make
// it play worse than that bot. A decision ends after Playouts playouts or Steps moves played out.
type Strong struct {
	playouts   int
	steps      int
	budget     time.Duration
	confidence float64
}

var _ engine.Bot[spe.Action] = (*Strong)(nil)

// NewStrong makes the strong bot.
func NewStrong(o StrongOptions) *Strong {
	b := &Strong{playouts: o.Playouts, steps: o.Steps, budget: o.Budget, confidence: o.Confidence}
	if b.playouts <= 0 {
		b.playouts = StrongPlayouts
	}
	if b.steps <= 0 {
		b.steps = StrongSteps
	}
	if b.confidence == 0 {
		b.confidence = Confidence
	}
	return b
}

// Choose implements engine.Bot.
func (b *Strong) Choose(view proto.Message, legal []spe.Action, r *rand.Rand) spe.Action {
	a, _ := b.Decide(view, legal, r)
	return a
}

// Decide is Choose that also reports what the search did (Iterations counts playouts).
func (b *Strong) Decide(view proto.Message, legal []spe.Action, r *rand.Rand) (spe.Action, search.Stats) {
	var st search.Stats
	want := Heuristic{}.Choose(view, legal, r)
	v, ok := view.(*sponsiov1.View)
	if !ok || len(legal) < 2 {
		return want, st
	}
	cands := candidates(v, want, legal)
	if len(cands) < 2 {
		return want, st
	}
	root, ok := spe.Sample(v, r)
	if !ok {
		return want, st
	}
	me := int(v.GetViewer())
	var f follow
	if v.GetDecision() == sponsiov1.Decision_DECISION_TURN {
		f = followUps(v, r)
	}
	h := 0
	for i, a := range cands {
		if a == want {
			h = i
		}
	}
	sum := make([]float64, len(cands))
	diff := make([]float64, len(cands)) // of the differences to the heuristic's move
	sq := make([]float64, len(cands))   // of their squares
	val := make([]float64, len(cands))
	worlds := max(2, b.playouts/len(cands))
	var deadline time.Time
	if b.budget > 0 {
		deadline = time.Now().Add(b.budget)
	}
	pcg := rand.NewPCG(0, 0)
	rr := rand.New(pcg)
	var buf []spe.Action
	n, steps := 0, 0
	for k := range worlds {
		if k > 1 && (steps >= b.steps || b.budget > 0 && time.Now().After(deadline)) {
			break
		}
		w := *root // a state is a value: copies need no allocation
		w.Redeal(me, r)
		s1, s2 := r.Uint64(), r.Uint64()
		for i, a := range cands {
			s := w
			pcg.Seed(s1, s2) // common random numbers: the moves meet the same luck
			var k int
			buf, k = playOut(&s, root, me, a, &f, rr, buf)
			steps += k
			val[i] = value(root, &s, me)
			sum[i] += val[i]
			st.Iterations++
		}
		for i := range cands {
			d := val[i] - val[h]
			diff[i] += d
			sq[i] += d * d
		}
		n++
	}
	best := h
	for i := range cands {
		if i == h || sum[i] <= sum[best] {
			continue
		}
		m := diff[i] / float64(n)
		sd := math.Sqrt(max(0, sq[i]/float64(n)-m*m))
		if m > b.confidence*sd/math.Sqrt(float64(n)) {
			best = i
		}
	}
	return cands[best], st
}

// candidates are the moves compared with the heuristic's (want), want among them; fewer than two:
// nothing to search.
func candidates(v *sponsiov1.View, want spe.Action, legal []spe.Action) []spe.Action {
	switch v.GetDecision() {
	case sponsiov1.Decision_DECISION_PLAY, sponsiov1.Decision_DECISION_OPTION, sponsiov1.Decision_DECISION_TARGET,
		sponsiov1.Decision_DECISION_COMBAT_CARD, sponsiov1.Decision_DECISION_CHANGE_BET:
		return legal
	case sponsiov1.Decision_DECISION_TURN:
		// Which card opens changes nothing in a world dealt face up: the heuristic's move, passing,
		// and every bet opening the card the heuristic opens (its lowest card when it opens none).
		open := want.Card
		if want.Kind != spe.ActOpenBet && want.Kind != spe.ActOpenToken {
			open = spe.NoCard
			for _, a := range legal {
				if a.Kind == spe.ActOpenBet && (open == spe.NoCard || a.Card.Value() < open.Value()) {
					open = a.Card
				}
			}
		}
		out := []spe.Action{want}
		for _, a := range legal {
			if a == want || a.Kind != spe.ActPass && a.Card != open {
				continue
			}
			if a.Kind == spe.ActPass || a.Kind == spe.ActOpenBet {
				out = append(out, a)
			}
		}
		return out
	}
	return nil
}

// follow is what the seat does right after a betting-turn candidate: the option it marks on each
// coupon (by coupon index) and its counter-bet target, as the heuristic would from the view.
type follow struct {
	option [16]int8
	target int8
	ok     bool
}

// followUps are the heuristic's follow-up choices for every coupon, from its estimate of the
// hand under both plans (the option with the best expected gain).
func followUps(v *sponsiov1.View, r *rand.Rand) follow {
	h := Heuristic{}
	t := read(v)
	et, ed := t.estimate(take, h.sims(), r), t.estimate(duck, h.sims(), r)
	f := follow{target: int8(t.counterTarget()), ok: true}
	for _, c := range v.GetCoupons() {
		i := c.GetNumber() - 1
		if i >= uint32(len(f.option)) || c.GetKind() == sponsiov1.CouponKind_COUPON_KIND_COUNTER_BET {
			continue
		}
		ot, _, gt := et.bestOption(c, 1)
		od, _, gd := ed.bestOption(c, 1)
		f.option[i] = int8(ot)
		if gd > gt {
			f.option[i] = int8(od)
		}
	}
	return f
}

// playOut applies the seat's move a to s and plays the round out: the seat's follow-ups of a
// betting turn by f, its later betting turns passed (so that a bet is valued against passing it
// up, not against placing it later), everything else by rollout. It returns the moves played.
func playOut(s, root *spe.State, me int, a spe.Action, f *follow, r *rand.Rand, buf []spe.Action) ([]spe.Action, int) {
	s.Step(me, a)
	steps := 1
	for s.Round == root.Round && s.Phase != spe.PhaseOver {
		seat := int(s.ToAct)
		if s.Decision == spe.DecPlay { // the fast form of rollout's play
			c := choose(s.Playable(seat), s.Plays, int(s.Leader), int(s.NPlayed), planOf(s, seat))
			s.Step(seat, spe.Action{Kind: spe.ActPlay, Card: c})
			steps++
			continue
		}
		buf = spe.Game{}.Legal(s, seat, buf[:0])
		if len(buf) == 0 {
			break
		}
		x := rollout(s, seat, buf, r)
		if seat == me && s.Decision == spe.DecTurn {
			x = passTurn(buf) // the seat itself bets only now: a bet it passes up is gone
		}
		if seat == me && f.ok {
			switch s.Decision {
			case spe.DecOption:
				x = spe.Action{Kind: spe.ActOption, Card: spe.NoCard, A: f.option[s.Pending]}
			case spe.DecTarget:
				if f.target >= 0 {
					x = spe.Action{Kind: spe.ActTarget, Card: spe.NoCard, A: f.target}
				}
			}
		}
		s.Step(seat, x)
		steps++
	}
	return buf, steps
}

// worth is what a seat holds: its coins and what its sequence counter would redeem for.
func worth(s *spe.State, p int) float64 {
	st := &s.Seats[p]
	w := float64(st.Coins)
	if m := st.Marker; m >= 0 && int(m) < len(spe.Standard.CounterValues) {
		w += 0.8 * float64(spe.Standard.CounterValues[m])
	}
	return w
}

// value scores seat's position: a finished game by its result, a finished round by how far the
// seat's worth (coins, counter) is ahead of the best other seat's.
func value(_, s *spe.State, seat int) float64 {
	if s.Phase == spe.PhaseOver {
		if s.Seats[seat].Winner {
			return 1
		}
		return 0
	}
	best := math.Inf(-1)
	for p := range int(s.Players) {
		if p != seat {
			best = max(best, worth(s, p))
		}
	}
	return 0.5 + 0.5*math.Tanh((worth(s, seat)-best)/8)
}

// rollout is a playout's policy, the heuristic's fast part: bet in betting turns as betTurn says,
// mark the usual option, play cards by the take or duck plan that suits the seat's bets, aim a
// counter-bet at the seat holding most bets, redeem the counter as the heuristic does, lay the
// lowest card for a price.
func rollout(s *spe.State, seat int, legal []spe.Action, r *rand.Rand) spe.Action {
	switch s.Decision {
	case spe.DecTurn:
		return betTurn(s, seat, legal)
	case spe.DecPlay:
		var hand spe.Cards
		for _, a := range legal {
			hand = hand.With(a.Card)
		}
		c := choose(hand, s.Plays, int(s.Leader), int(s.NPlayed), planOf(s, seat))
		for _, a := range legal {
			if a.Card == c {
				return a
			}
		}
	case spe.DecRedeem:
		st := &s.Seats[seat]
		v := int32(spe.Standard.CounterValues[st.Marker])
		if s.Round >= 5 || st.Marker >= 5 || st.Coins+v >= 30 {
			return legal[0]
		}
		return legal[len(legal)-1]
	case spe.DecOption:
		return spe.Action{Kind: spe.ActOption, Card: spe.NoCard, A: usualOption(s, seat, int(s.Pending))}
	case spe.DecChangeBet:
		return legal[0]
	case spe.DecTarget:
		best := legal[0]
		for _, a := range legal {
			if s.Seats[a.A].Bets > s.Seats[best.A].Bets {
				best = a
			}
		}
		return best
	case spe.DecPriceCard, spe.DecCombatCard:
		best := legal[0]
		for _, a := range legal {
			if a.Card != spe.NoCard && a.Card.Value() < best.Card.Value() {
				best = a
			}
		}
		return best
	}
	return legal[r.IntN(len(legal))]
}

// betTurn is a playout's betting turn, modelled on what the heuristic bot does (among normal bots
// every coupon is taken in a round, three bets a seat in its first three turns, and the 3-Coin
// token by someone; docs/games/sponsio.md): up to three bets, in its first three turns, on the
// coupons it can mark most surely without a hand estimate (a colour count it holds few cards of,
// the tricks, not the most tricks, not the last trick, the nines, the counter-bet), opening its
// lowest card; then the 3-Coin token; else pass. A playout whose seats never bet is a table of
// Trolls, which values every bet wrongly.
func betTurn(s *spe.State, seat int, legal []spe.Action) spe.Action {
	pass, best, bestRank := -1, -1, 1<<30
	token := -1
	st := &s.Seats[seat]
	hand := st.Hand | st.Open
	for i, a := range legal {
		switch a.Kind {
		case spe.ActPass:
			pass = i
		case spe.ActOpenToken:
			if spe.Token(a.A) == spe.TokenThreeCoin && (token < 0 || a.Card.Value() < legal[token].Card.Value()) {
				token = i
			}
		case spe.ActOpenBet:
			if a.B != 0 {
				continue
			}
			c := &spe.Standard.Coupons[a.A]
			rank := 100 * int(kindRank[c.Kind])
			if c.Kind == spe.KindColourCount {
				rank += 10 * hand.OfColour(c.Colour).Len()
			}
			rank += a.Card.Value() // the lowest card opens
			if rank < bestRank {
				best, bestRank = i, rank
			}
		}
	}
	turn := int(s.Turn) / int(s.Players) // this seat's turn, 0 to 3
	switch {
	case best >= 0 && (st.Bets < 3 && turn < 3 || pass < 0):
		return legal[best]
	case token >= 0:
		return legal[token]
	case pass >= 0:
		return legal[pass]
	}
	return legal[0]
}

// passTurn passes a betting turn, or places the first bet when the rules force one (Ruling B2).
func passTurn(legal []spe.Action) spe.Action {
	for _, a := range legal {
		if a.Kind == spe.ActPass {
			return a
		}
	}
	return legal[0]
}

// kindRank orders the coupons a playout seat bets on (see betTurn).
var kindRank = map[spe.CouponKind]int{
	spe.KindColourCount: 0, spe.KindTricks: 1, spe.KindMostTricks: 2, spe.KindLastTrick: 3, spe.KindNines: 4, spe.KindCounterBet: 5,
}

// usualOption is the option a playout seat marks on coupon i: no card of the colour, not the most
// tricks, not the last trick, every 9 takes, and for the tricks the range holding its count of
// cards valued 8 or 9.
func usualOption(s *spe.State, seat, i int) int8 {
	c := &spe.Standard.Coupons[i]
	switch c.Kind {
	case spe.KindTricks:
		st := &s.Seats[seat]
		high := 0
		for h := st.Hand | st.Open; h != 0; h &= h - 1 {
			if h.First().Value() >= 8 {
				high++
			}
		}
		for o, opt := range c.Options {
			if int(opt.Min) <= high && high <= int(opt.Max) {
				return int8(o)
			}
		}
	case spe.KindMostTricks, spe.KindLastTrick:
		for o, opt := range c.Options {
			if opt.Max == 0 {
				return int8(o)
			}
		}
	}
	return 0
}

// planOf is duck when the seat holds a bet on few tricks or on not taking the last trick, else
// take.
func planOf(s *spe.State, seat int) plan {
	for i := range s.Bets {
		b := &s.Bets[i]
		if int(b.Owner) != seat || b.Option < 0 {
			continue
		}
		c := &spe.Standard.Coupons[i]
		o := c.Options[b.Option]
		switch c.Kind {
		case spe.KindTricks:
			if o.Max <= 1 {
				return duck
			}
		case spe.KindLastTrick, spe.KindMostTricks, spe.KindColourCount:
			if o.Max == 0 {
				return duck
			}
		}
	}
	return take
}
