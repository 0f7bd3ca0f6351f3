// Package bot holds sabai-sabai's computer players. They decide only from their seat's view and
// legal actions; their memory is the view itself, which shows every card the seat has ever seen
// (Ruling K1: nobody forgets) and follows each card as it moves.
package bot

import (
	"math/rand/v2"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai/engine"
	"google.golang.org/protobuf/proto"
)

// unknownValue is what the bot expects a card it has not seen to be worth: the deck's mean
// (404 points over 61 cards).
const unknownValue = 6.6

// assCost is how much the bot hates holding the Ass Joker, in card points: it costs the round
// and a victory point.
const assCost = 30

// Heuristic is the bot with memory: it touches its nose at once, throws every card it knows to
// match the top (its own, and others' that their owners do not know), keeps drawn cards lower
// than its worst card, aims its functions (peek unknown own cards, spy cards their owners do not
// know, give and switch away its worst card, above all the Ass Joker) and calls sabai sabai when
// its estimated total is low.
type Heuristic struct {
	// CallAt is the estimated total at or under which the bot calls sabai sabai (default 6).
	CallAt float64
}

var _ kit.Bot[engine.Action] = Heuristic{}

// Choose implements engine.Bot. When the bot has nothing it wants to do (out of turn, nothing
// known to throw) it must still pick something: it calls sabai sabai if its total is at most
// average, else it throws one of its unknown cards, a gamble.
func (h Heuristic) Choose(view proto.Message, legal []engine.Action, r *rand.Rand) engine.Action {
	if a, ok := h.Wants(view, legal); ok {
		return a
	}
	v, _ := view.(*pb.View)
	me := seatOf(v)
	if me >= 0 && estimate(v, me) <= float64(len(ownSlots(v, me)))*unknownValue {
		for _, a := range legal {
			if a.Kind == engine.KindCall {
				return a
			}
		}
	}
	var blind []engine.Action
	for _, a := range legal {
		if a.Kind == engine.KindThrow && int(a.Owner) == me && a.N == 1 && cardAt(v, me, int(a.Slots[0])) == 0 {
			blind = append(blind, a)
		}
	}
	if len(blind) > 0 {
		return blind[r.IntN(len(blind))]
	}
	return legal[r.IntN(len(legal))]
}

// Wants is the bot's choice when it may also do nothing: false means it would rather wait (a
// real-time driver then lets others act). It always wants to act when the table waits for it.
func (h Heuristic) Wants(view proto.Message, legal []engine.Action) (engine.Action, bool) {
	v, ok := view.(*pb.View)
	if !ok || len(legal) == 0 {
		return engine.Action{}, false
	}
	me := seatOf(v)
	if me < 0 {
		return engine.Action{}, false
	}
	has := func(k engine.Kind) bool {
		for _, a := range legal {
			if a.Kind == k {
				return true
			}
		}
		return false
	}
	if has(engine.KindTouchNose) {
		return engine.Action{Kind: engine.KindTouchNose}, true
	}
	if a, ok := h.throw(v, me, legal); ok {
		return a, true
	}
	if has(engine.KindResolve) {
		return h.resolve(v, me, legal), true
	}
	if has(engine.KindDraw) {
		if has(engine.KindCall) && h.shouldCall(v, me) {
			return engine.Action{Kind: engine.KindCall}, true
		}
		return engine.Action{Kind: engine.KindDraw}, true
	}
	if has(engine.KindPlay) {
		return h.decide(v, me, legal), true
	}
	if has(engine.KindCall) && h.shouldCall(v, me) {
		return engine.Action{Kind: engine.KindCall}, true
	}
	return engine.Action{}, false
}

func seatOf(v *pb.View) int {
	if v == nil || v.GetViewer() < 0 || int(v.GetViewer()) >= len(v.GetRows()) {
		return -1
	}
	return int(v.GetViewer())
}

func cardAt(v *pb.View, seat, slot int) uint32 {
	sl := v.GetRows()[seat].GetSlots()
	if slot >= len(sl) || sl[slot].GetEmpty() {
		return 0
	}
	return sl[slot].GetCard()
}

func ownSlots(v *pb.View, me int) []int {
	var out []int
	for i, sl := range v.GetRows()[me].GetSlots() {
		if !sl.GetEmpty() {
			out = append(out, i)
		}
	}
	return out
}

// value is what a card is worth to its holder: its points, the Ass Joker's cost, or the mean for
// an unknown card.
func value(c uint32) float64 {
	switch c {
	case 0:
		return unknownValue
	case engine.AssJoker:
		return assCost
	}
	return float64(engine.Points(uint8(c)))
}

func estimate(v *pb.View, seat int) float64 {
	t := 0.0
	for _, i := range ownSlots(v, seat) {
		t += value(cardAt(v, seat, i))
	}
	return t
}

func (h Heuristic) shouldCall(v *pb.View, me int) bool {
	at := h.CallAt
	if at == 0 {
		at = 6
	}
	unknown := 0
	for _, i := range ownSlots(v, me) {
		if cardAt(v, me, i) == 0 {
			unknown++
		}
	}
	return unknown <= 1 && estimate(v, me) <= at
}

// worst is the own slot the bot most wants to be rid of (the Ass Joker first); keepable excludes
// the Ass Joker, which cannot be swapped out (Ruling A2).
func worst(v *pb.View, me int, keepable bool) (int, float64) {
	best, bv := -1, -1e9
	for _, i := range ownSlots(v, me) {
		c := cardAt(v, me, i)
		if keepable && c == engine.AssJoker {
			continue
		}
		if x := value(c); x > bv {
			best, bv = i, x
		}
	}
	return best, bv
}

func (h Heuristic) throw(v *pb.View, me int, legal []engine.Action) (engine.Action, bool) {
	top := v.GetDiscardTop()
	if len(top) == 0 {
		return engine.Action{}, false
	}
	want := top[len(top)-1]
	class := func(c uint32) uint32 { return min(c, engine.Joker) }
	match := func(owner int, c uint32) bool {
		if c == 0 || class(c) != class(want) {
			return false
		}
		// Own jokers are worth −4 in the row: on a joker only the Ass Joker is worth burning.
		return owner != me || class(want) != engine.Joker || c == engine.AssJoker
	}
	var pick engine.Action
	found := false
	for _, a := range legal {
		if a.Kind != engine.KindThrow {
			continue
		}
		all := true
		for _, sl := range a.Slots[:a.N] {
			if !match(int(a.Owner), cardAt(v, int(a.Owner), int(sl))) {
				all = false
			}
		}
		if !all {
			continue
		}
		// Prefer throwing the most own cards at once, then cards for others.
		if !found || (int(a.Owner) == me && (int(pick.Owner) != me || a.N > pick.N)) {
			pick, found = a, true
		}
	}
	return pick, found
}

func (h Heuristic) decide(v *pb.View, me int, legal []engine.Action) engine.Action {
	d := v.GetDrawnCard()
	dv := value(d)
	slot, wv := worst(v, me, true)
	if d >= engine.Peek && d <= engine.Switch {
		return engine.Action{Kind: engine.KindPlay}
	}
	if slot >= 0 && dv < wv-0.5 {
		for _, a := range legal {
			if a.Kind == engine.KindKeep && int(a.Slot) == slot {
				return a
			}
		}
	}
	return engine.Action{Kind: engine.KindPlay}
}

// leader is the opponent the bot most wants to hurt: most victory points, then fewest cards.
func leader(v *pb.View, me int) int {
	best := -1
	for i, r := range v.GetRows() {
		if i == me {
			continue
		}
		if best < 0 || r.GetVictoryPoints() > v.GetRows()[best].GetVictoryPoints() ||
			(r.GetVictoryPoints() == v.GetRows()[best].GetVictoryPoints() && r.GetCards() < v.GetRows()[best].GetCards()) {
			best = i
		}
	}
	return best
}

func (h Heuristic) resolve(v *pb.View, me int, legal []engine.Action) engine.Action {
	eff := v.GetEffects()[0].GetEffect()
	lead := leader(v, me)
	best, bs := engine.Action{}, -1e9
	for _, a := range legal {
		if a.Kind != engine.KindResolve {
			continue
		}
		if s := resolveScore(v, me, eff, lead, a); s > bs {
			best, bs = a, s
		}
	}
	return best
}

// resolveScore is how much the bot likes resolving the pending effect eff with a.
func resolveScore(v *pb.View, me int, eff pb.Effect, lead int, a engine.Action) float64 {
	switch eff {
	case pb.Effect_EFFECT_PEEK:
		if cardAt(v, me, int(a.Slot)) == 0 {
			return 1
		}
		return 0
	case pb.Effect_EFFECT_SPY:
		t := v.GetRows()[a.Target].GetSlots()[a.TargetSlot]
		s := 0.0
		if t.GetCard() == 0 {
			s += 2
		}
		if t.GetKnownBy()&(1<<a.Target) == 0 {
			s++ // a card its owner does not know can be thrown for them later
		}
		if int(a.Target) == lead {
			s += 0.5
		}
		return s
	case pb.Effect_EFFECT_GIVE, pb.Effect_EFFECT_GIVE_BACK:
		s := value(cardAt(v, me, int(a.Slot)))
		if eff == pb.Effect_EFFECT_GIVE && int(a.Target) == lead {
			s += 0.1
		}
		return s
	case pb.Effect_EFFECT_SWITCH:
		return value(cardAt(v, me, int(a.Slot))) - value(cardAt(v, int(a.Target), int(a.TargetSlot)))
	}
	return 0
}

// liked keeps at most most of the pending effect's resolutions in rs, the ones the bot likes
// best, its own choice first.
func (h Heuristic) liked(v *pb.View, me int, rs []engine.Action, most int) []engine.Action {
	if len(rs) <= most || len(v.GetEffects()) == 0 {
		return rs
	}
	eff, lead := v.GetEffects()[0].GetEffect(), leader(v, me)
	score := make([]float64, len(rs))
	for i, a := range rs {
		score[i] = resolveScore(v, me, eff, lead, a)
	}
	for i := range most {
		k := i
		for j := i + 1; j < len(rs); j++ {
			if score[j] > score[k] {
				k = j
			}
		}
		rs[i], rs[k] = rs[k], rs[i]
		score[i], score[k] = score[k], score[i]
	}
	return rs[:most]
}
