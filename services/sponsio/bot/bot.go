// Package bot holds Sponsio's computer players: a random legal bot and a heuristic bot that bets
// from its hand's strength. Both decide only from the seat's view and its legal actions.
package bot

import (
	"math/rand/v2"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	spe "cardroom.dev/services/sponsio/engine"
	"google.golang.org/protobuf/proto"
)

// Random plays a uniformly random legal action.
type Random = engine.RandomBot[spe.Action]

// Heuristic estimates its hand's strength by playing the remaining tricks out many times (the
// unseen cards dealt at random to the opponents, who play random legal cards) under two plans of
// its own: take tricks, or duck them. From those playouts it knows how likely each bet option is to
// win; it bets on options that are likely (at least MinChance) and pay (expected gain at least
// MinGain coins), keeps to the plan that suits its bets when playing, takes the 3-Coin token when
// it has nothing better to do, and otherwise passes (a Troll when it never bets).
type Heuristic struct {
	// Sims is the number of playouts per estimate in the betting phase (default 32; a quarter of
	// it, at least 8, per plan in the trick phase).
	Sims int
	// MinChance and MinGain bound the bets it takes (defaults 0.6 and 0.3).
	MinChance, MinGain float64
}

var _ engine.Bot[spe.Action] = Heuristic{}

type plan int

const (
	take plan = iota
	duck
)

// table is what the bot reads from the view.
type table struct {
	v       *sponsiov1.View
	me      int
	n       int
	mine    spe.Cards // hand and open cards
	open    [4]spe.Cards
	size    [4]int // cards each seat still holds
	unknown spe.Cards
	taken   [4]spe.Cards
	tricks  [4]int
	nines   spe.Cards // 9s the bot won tricks with
	leader  int
	trick   int // tricks finished
	plays   []cardPlay
	combat  spe.Card
	combatP int
	coupons map[uint32]*sponsiov1.Coupon
	myBets  []*sponsiov1.Bet
	betsOf  [4]int
}

type cardPlay struct {
	seat int
	card spe.Card
}

func card(c *sponsiov1.Card) spe.Card {
	if c == nil || c.GetColour() == sponsiov1.Colour_COLOUR_UNSPECIFIED {
		return spe.NoCard
	}
	return spe.MakeCard(spe.Colour(c.GetColour()-1), int(c.GetValue()))
}

func cards(cs []*sponsiov1.Card) spe.Cards {
	var s spe.Cards
	for _, c := range cs {
		s = s.With(card(c))
	}
	return s
}

func read(v *sponsiov1.View) *table {
	t := &table{v: v, me: int(v.GetViewer()), n: int(v.GetPlayers()), combat: card(v.GetCombatCard()), combatP: -1,
		coupons: map[uint32]*sponsiov1.Coupon{}}
	var deck spe.Cards = 1<<36 - 1
	if rc := v.GetRemovedColour(); rc != sponsiov1.Colour_COLOUR_UNSPECIFIED {
		deck &^= (1<<9 - 1) << (9 * uint(rc-1))
	}
	seen := cards(v.GetTalon())
	for _, pv := range v.GetSeats() {
		p := int(pv.GetSeat())
		t.open[p] = cards(pv.GetOpenCards())
		t.size[p] = int(pv.GetHandSize()) + len(pv.GetOpenCards())
		t.taken[p] = cards(pv.GetTaken())
		t.tricks[p] = int(pv.GetTricks())
		t.betsOf[p] = len(pv.GetBets())
		seen |= t.open[p] | t.taken[p]
		if p == t.me {
			t.mine = cards(pv.GetHand()) | t.open[p]
			t.nines = cards(pv.GetCapturedNines())
			t.myBets = pv.GetBets()
			seen |= t.mine
		}
		for _, tk := range pv.GetTokens() {
			if tk == sponsiov1.Token_TOKEN_COMBAT {
				t.combatP = p
			}
		}
	}
	for _, cp := range v.GetCurrentTrick() {
		c := card(cp.GetCard())
		t.plays = append(t.plays, cardPlay{int(cp.GetSeat()), c})
		seen = seen.With(c)
	}
	t.unknown = deck &^ seen
	for _, c := range v.GetCoupons() {
		t.coupons[c.GetNumber()] = c
	}
	if v.GetPhase() == sponsiov1.Phase_PHASE_TRICKS {
		t.leader = int(v.GetLeader())
		t.trick = int(v.GetTrick()) - 1
	} else {
		t.leader = (int(v.GetDealer()) + 1) % t.n
		if t.combatP >= 0 {
			t.leader = t.combatP
		}
	}
	return t
}

// outcome is what one playout ended with, for the bot's seat.
type outcome struct {
	tricks  int
	colours [4]int
	last    bool
	most    bool
	nines   int // 0 none played, 1 all took, 2 one failed
}

// simulate plays the rest of the round out once.
func (t *table) simulate(p plan, r *rand.Rand) outcome {
	var hands [4]spe.Cards
	var pool [36]spe.Card
	k := 0
	for u := t.unknown; u != 0; u &= u - 1 {
		pool[k] = u.First()
		k++
	}
	r.Shuffle(k, func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for q := range t.n {
		if q == t.me {
			hands[q] = t.mine
			continue
		}
		hands[q] = t.open[q]
		need := t.size[q] - t.open[q].Len()
		for ; need > 0 && k > 0; need-- {
			k--
			hands[q] = hands[q].With(pool[k])
		}
	}
	tricks := t.tricks
	taken := t.taken[t.me]
	myNines := t.nines
	var ninesPlayed spe.Cards
	leader := t.leader
	var plays [4]spe.Card
	for q := range plays {
		plays[q] = spe.NoCard
	}
	np := 0
	for _, cp := range t.plays {
		plays[cp.seat] = cp.card
		np++
	}
	last := -1
	for trick := t.trick; trick < 8; trick++ {
		for ; np < t.n; np++ {
			q := (leader + np) % t.n
			var c spe.Card
			switch {
			case trick == 0 && np == 0 && q == t.combatP && t.combat != spe.NoCard:
				c = t.combat
			case q == t.me:
				c = choose(hands[q], plays, leader, np, p)
			default:
				c = randomCard(hands[q], plays, leader, np, r)
			}
			if c == spe.NoCard {
				return outcome{}
			}
			hands[q] = hands[q].Without(c)
			plays[q] = c
			if q == t.me && c.Value() == 9 {
				ninesPlayed = ninesPlayed.With(c)
			}
		}
		w := winner(plays, leader, t.n)
		tricks[w]++
		if w == t.me {
			for q := range t.n {
				taken = taken.With(plays[q])
			}
			if plays[w].Value() == 9 {
				myNines = myNines.With(plays[w])
			}
		}
		last = w
		leader, np = w, 0
		for q := range plays {
			plays[q] = spe.NoCard
		}
	}
	o := outcome{tricks: tricks[t.me], last: last == t.me, most: true}
	for c := range 4 {
		o.colours[c] = taken.OfColour(spe.Colour(c)).Len()
	}
	for q := range t.n {
		if q != t.me && tricks[q] >= tricks[t.me] {
			o.most = false
		}
	}
	switch all := ninesPlayed | t.nines; {
	case all == 0:
	case all&^myNines == 0:
		o.nines = 1
	default:
		o.nines = 2
	}
	return o
}

func winner(plays [4]spe.Card, leader, n int) int {
	lead := plays[leader].Colour()
	w := leader
	for q := range n {
		if c := plays[q]; c.Colour() == lead && c.Value() > plays[w].Value() {
			w = q
		}
	}
	return w
}

func playable(hand spe.Cards, plays [4]spe.Card, leader, np int) spe.Cards {
	if np == 0 {
		return hand
	}
	if own := hand.OfColour(plays[leader].Colour()); own != 0 {
		return own
	}
	return hand
}

func randomCard(hand spe.Cards, plays [4]spe.Card, leader, np int, r *rand.Rand) spe.Card {
	ok := playable(hand, plays, leader, np)
	if ok == 0 {
		return spe.NoCard
	}
	i := r.IntN(ok.Len())
	for ; i > 0; i-- {
		ok &= ok - 1
	}
	return ok.First()
}

// choose is the bot's own card under plan p (the same in playouts and in play).
func choose(hand spe.Cards, plays [4]spe.Card, leader, np int, p plan) spe.Card {
	ok := playable(hand, plays, leader, np)
	if ok == 0 {
		return spe.NoCard
	}
	lowest, highest := spe.NoCard, spe.NoCard
	for s := ok; s != 0; s &= s - 1 {
		c := s.First()
		if lowest == spe.NoCard || c.Value() < lowest.Value() {
			lowest = c
		}
		if highest == spe.NoCard || c.Value() > highest.Value() {
			highest = c
		}
	}
	if np == 0 {
		if p == take {
			return highest
		}
		return lowest
	}
	lead := plays[leader].Colour()
	best := 0
	for _, c := range plays {
		if c != spe.NoCard && c.Colour() == lead && c.Value() > best {
			best = c.Value()
		}
	}
	following := highest.Colour() == lead
	if !following { // void in the lead colour: cannot win, shed a card
		if p == take {
			return lowest
		}
		return highest
	}
	if p == take {
		if highest.Value() > best {
			return highest
		}
		return lowest
	}
	// Duck: the highest card that stays under the trick's best, else the highest.
	under := spe.NoCard
	for s := ok; s != 0; s &= s - 1 {
		if c := s.First(); c.Value() < best && (under == spe.NoCard || c.Value() > under.Value()) {
			under = c
		}
	}
	if under != spe.NoCard {
		return under
	}
	return highest
}

// estimate is the chance of each (coupon, option) under a plan.
type estimate struct {
	sims int
	outs []outcome
}

func (t *table) estimate(p plan, sims int, r *rand.Rand) estimate {
	e := estimate{sims: sims, outs: make([]outcome, sims)}
	for i := range sims {
		e.outs[i] = t.simulate(p, r)
	}
	return e
}

func measure(c *sponsiov1.Coupon, o *outcome) (int, bool) {
	b := func(x bool) int {
		if x {
			return 1
		}
		return 0
	}
	switch c.GetKind() {
	case sponsiov1.CouponKind_COUPON_KIND_COLOUR_COUNT:
		return o.colours[c.GetColour()-1], true
	case sponsiov1.CouponKind_COUPON_KIND_TRICKS:
		return o.tricks, true
	case sponsiov1.CouponKind_COUPON_KIND_MOST_TRICKS:
		return b(o.most), true
	case sponsiov1.CouponKind_COUPON_KIND_LAST_TRICK:
		return b(o.last), true
	case sponsiov1.CouponKind_COUPON_KIND_NINES:
		return o.nines, true
	}
	return 0, false
}

// chance is how often option opt of coupon c won in the playouts.
func (e *estimate) chance(c *sponsiov1.Coupon, opt int) float64 {
	o := c.GetOptions()[opt]
	won := 0
	for i := range e.outs {
		m, ok := measure(c, &e.outs[i])
		if ok && uint32(m) >= o.GetMin() && uint32(m) <= o.GetMax() {
			won++
		}
	}
	return float64(won) / float64(len(e.outs))
}

// bestOption is the option of c with the highest expected gain for the given stake.
func (e *estimate) bestOption(c *sponsiov1.Coupon, stake float64) (opt int, chance, gain float64) {
	gain = -1e9
	for i, o := range c.GetOptions() {
		p := e.chance(c, i)
		if g := p*float64(o.GetOdds())*stake - stake; g > gain {
			opt, chance, gain = i, p, g
		}
	}
	return opt, chance, gain
}

// heldValue is the expected winnings of the bot's bets under an estimate.
func (t *table) heldValue(e *estimate) float64 {
	v := 0.0
	for _, b := range t.myBets {
		c := t.coupons[b.GetCoupon()]
		if c == nil || b.Option == nil || c.GetKind() == sponsiov1.CouponKind_COUPON_KIND_COUNTER_BET {
			continue
		}
		stake := 1.0
		if b.GetDouble() {
			stake = 2
		}
		v += e.chance(c, int(b.GetOption())) * float64(c.GetOptions()[b.GetOption()].GetOdds()) * stake
	}
	return v
}

func (h Heuristic) sims() int {
	if h.Sims > 0 {
		return h.Sims
	}
	return 32
}

func (h Heuristic) bounds() (float64, float64) {
	c, g := h.MinChance, h.MinGain
	if c == 0 {
		c = 0.6
	}
	if g == 0 {
		g = 0.3
	}
	return c, g
}

// counterChance guesses how likely a seat with k bets loses one of them.
func counterChance(k int) float64 {
	p := 1.0
	for range k {
		p *= 0.45
	}
	return 1 - p
}

// counterTarget is the opponent with the most bets (then the most coins).
func (t *table) counterTarget() int {
	best, bestK, bestCoins := -1, -1, -1
	for _, pv := range t.v.GetSeats() {
		p := int(pv.GetSeat())
		if p == t.me {
			continue
		}
		if k, c := t.betsOf[p], int(pv.GetCoins()); k > bestK || k == bestK && c > bestCoins {
			best, bestK, bestCoins = p, k, c
		}
	}
	return best
}

// Choose implements engine.Bot.
func (h Heuristic) Choose(view proto.Message, legal []spe.Action, r *rand.Rand) spe.Action {
	v, ok := view.(*sponsiov1.View)
	if !ok || len(legal) == 1 {
		return legal[0]
	}
	t := read(v)
	find := func(kind spe.ActionKind, a, b int8) (spe.Action, bool) {
		for _, l := range legal {
			if l.Kind == kind && l.A == a && l.B == b {
				return l, true
			}
		}
		return spe.Action{}, false
	}
	switch v.GetDecision() {
	case sponsiov1.Decision_DECISION_TURN:
		return h.turn(t, legal, r)
	case sponsiov1.Decision_DECISION_OPTION:
		c := t.coupons[v.GetPendingCoupon()]
		stake := 1.0
		for _, b := range t.myBets {
			if b.GetCoupon() == v.GetPendingCoupon() && b.GetDouble() {
				stake = 2
			}
		}
		e := t.estimate(h.planFor(t, r), h.sims(), r)
		opt, _, _ := e.bestOption(c, stake)
		if a, ok := find(spe.ActOption, int8(opt), 0); ok {
			return a
		}
	case sponsiov1.Decision_DECISION_TARGET:
		if a, ok := find(spe.ActTarget, int8(t.counterTarget()), 0); ok {
			return a
		}
	case sponsiov1.Decision_DECISION_PLAY:
		p := h.planFor(t, r)
		var plays [4]spe.Card
		for q := range plays {
			plays[q] = spe.NoCard
		}
		for _, cp := range t.plays {
			plays[cp.seat] = cp.card
		}
		var ok spe.Cards
		for _, l := range legal {
			ok = ok.With(l.Card)
		}
		c := choose(ok, plays, t.leader, len(t.plays), p)
		for _, l := range legal {
			if l.Card == c {
				return l
			}
		}
	case sponsiov1.Decision_DECISION_REDEEM:
		me := v.GetSeats()[t.me]
		value := v.GetCounterValues()[me.GetMarker()]
		if v.GetRound() >= 5 || me.GetMarker() >= 5 || me.GetCoins()+value >= 30 {
			return legal[0] // redeem
		}
		return legal[1]
	case sponsiov1.Decision_DECISION_CHANGE_BET:
		return legal[0] // keep
	}
	// Price and Combat cards: the lowest-valued card.
	best := legal[0]
	for _, l := range legal {
		if l.Card != spe.NoCard && best.Card != spe.NoCard && l.Card.Value() < best.Card.Value() {
			best = l
		}
	}
	return best
}

// planFor is the plan under which the bot's bets are worth most (take, when it holds none).
func (h Heuristic) planFor(t *table, r *rand.Rand) plan {
	if len(t.myBets) == 0 || len(t.myBets) == 1 && t.myBets[0].Option == nil {
		// Deciding the first bet's option: the plan with the better best option.
		if c := t.coupons[t.v.GetPendingCoupon()]; c != nil && len(t.myBets) == 1 {
			et, ed := t.estimate(take, h.sims(), r), t.estimate(duck, h.sims(), r)
			_, _, gt := et.bestOption(c, 1)
			_, _, gd := ed.bestOption(c, 1)
			if gd > gt {
				return duck
			}
		}
		return take
	}
	sims := max(h.sims()/4, 8)
	et, ed := t.estimate(take, sims, r), t.estimate(duck, sims, r)
	if t.heldValue(&ed) > t.heldValue(&et) {
		return duck
	}
	return take
}

// turn decides a betting turn: the best likely bet under the plan that suits the hand, else the
// 3-Coin token, else pass.
func (h Heuristic) turn(t *table, legal []spe.Action, r *rand.Rand) spe.Action {
	minChance, minGain := h.bounds()
	type pick struct {
		a    spe.Action
		gain float64
	}
	var plans [2]estimate
	plans[take] = t.estimate(take, h.sims(), r)
	plans[duck] = t.estimate(duck, h.sims(), r)
	best := pick{gain: -1}
	for pl := range plans {
		e := &plans[pl]
		held := t.heldValue(e)
		for _, l := range legal {
			if l.Kind != spe.ActOpenBet {
				continue
			}
			c := t.coupons[uint32(l.A)+1]
			stake := 1.0
			if l.B == 1 {
				stake = 2
			}
			var chance, gain float64
			if c.GetKind() == sponsiov1.CouponKind_COUPON_KIND_COUNTER_BET {
				k := t.betsOf[t.counterTarget()]
				if k == 0 {
					continue
				}
				chance = counterChance(k)
				gain = chance*float64(c.GetOptions()[0].GetOdds())*stake - stake
			} else {
				_, chance, gain = e.bestOption(c, stake)
			}
			if chance < minChance || gain < minGain {
				continue
			}
			if total := held + gain; total > best.gain {
				best = pick{l, total}
			}
		}
	}
	if best.gain >= 0 {
		return best.a
	}
	for _, l := range legal {
		if l.Kind == spe.ActOpenToken && spe.Token(l.A) == spe.TokenThreeCoin {
			return l
		}
	}
	for _, l := range legal {
		if l.Kind == spe.ActPass {
			return l
		}
	}
	return legal[0]
}
