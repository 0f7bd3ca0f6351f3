// Package bot holds Sapotagem's computer players. They decide only from the seat's view and its
// legal actions.
package bot

import (
	"math"
	"math/rand/v2"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sapotagem/engine"
	"google.golang.org/protobuf/proto"
)

// Random plays a uniformly random legal action.
type Random = kit.RandomBot[engine.Action]

// Heuristic weighs each legal action by what it is likely to capture, scored with the table's own
// scoring, against what it spends: a card's strength or a jump marker.
type Heuristic struct{}

var _ kit.Bot[engine.Action] = Heuristic{}

// Tuning figures of the heuristic.
var (
	markerCost   = 0.6 // what a jump marker is worth keeping
	strengthCost = 1.2 // what the strongest card is worth keeping (scaled by strength)
	unknownCard  = 0.4 // the value of a card still to be played in the round
	holdExp      = 1.5
)

func colour(c int8) int8 { return c / 13 }
func rank(c int8) int8   { return c%13 + 1 }

// knowledge is what the seat can work out from its view.
type knowledge struct {
	v       *pb.View
	area    []int8
	table   []int8 // competing cards on the table
	lead    int8
	trump   int8
	unknown int // cards the seat has not seen
	seen    [52]bool
	after   int // seats still to act this round after this one
}

func read(v *pb.View) *knowledge {
	k := &knowledge{v: v, lead: int8(v.GetLead()) - 1, trump: int8(v.GetTrump()) - 1}
	mark := func(cs []*pb.Card) {
		for _, c := range cs {
			if id := engine.CardID(c); id >= 0 {
				k.seen[id] = true
			}
		}
	}
	me := v.GetViewer()
	for _, sv := range v.GetSeats() {
		mark(sv.GetArea())
		if int32(sv.GetSeat()) == me || (len(sv.GetArea()) > 0 && sv.GetTeam() == v.GetSeats()[me].GetTeam() && sameArea(v)) {
			for _, c := range sv.GetArea() {
				k.area = append(k.area, engine.CardID(c))
			}
		}
	}
	mark(v.GetHand())
	mark(v.GetDiscard())
	mark(v.GetOpenPile())
	mark(v.GetFugitives())
	mark(v.GetRevealed())
	mark(v.GetTrumpDeck())
	mark([]*pb.Card{v.GetTrumpCard(), v.GetNextTrump()})
	for _, p := range v.GetTable() {
		id := engine.CardID(p.GetCard())
		k.seen[id] = true
		if !p.GetRemote() {
			k.table = append(k.table, id)
		}
	}
	for _, s := range k.seen {
		if !s {
			k.unknown++
		}
	}
	n := len(v.GetSeats())
	k.after = n - 1 - (int(v.GetTurn())-int(v.GetStartingSeat())+n)%n
	return k
}

func sameArea(v *pb.View) bool {
	o := v.GetOptions()
	return o.GetAgencyTogether() || o.GetAgencyDouble()
}

// beats reports whether card a beats card b given lead and trump.
func (k *knowledge) key(c int8, lead int8) int {
	switch {
	case colour(c) == k.trump:
		return 100 + int(rank(c))
	case colour(c) == lead:
		return int(rank(c))
	}
	return 0
}

// holdChance estimates the chance that card c, winning now, still wins after the others act.
func (k *knowledge) holdChance(c int8, lead int8) float64 {
	if k.after == 0 {
		return 1
	}
	my := k.key(c, lead)
	beaters := 0
	for id := int8(0); id < 52; id++ {
		if !k.seen[id] && k.key(id, lead) > my {
			beaters++
		}
	}
	if k.unknown == 0 {
		return 1
	}
	per := float64(beaters) / float64(k.unknown)
	return math.Pow(1-per, holdExp*float64(k.after))
}

// gain is what capturing extra cards adds to the seat's area.
func (k *knowledge) gain(extra []int8) float64 {
	o := k.v.GetOptions()
	before := engine.CardsScore(o, k.area)
	after := engine.CardsScore(o, append(append([]int8(nil), k.area...), extra...))
	g := float64(after - before)
	if o.GetDoubleAgent() || o.GetAgencyDouble() {
		g = -g
	}
	return g
}

// strength is how likely a card is to win a later round (0-1).
func (k *knowledge) strength(c int8) float64 {
	s := float64(rank(c)) / 13
	if colour(c) == k.trump {
		s += 0.3
	}
	return s
}

// Choose implements kit.Bot.
func (Heuristic) Choose(view proto.Message, legal []engine.Action, r *rand.Rand) engine.Action {
	v, ok := view.(*pb.View)
	if !ok || len(legal) == 1 {
		return legal[0]
	}
	if a, ok := monteCarlo(v, legal, r); ok {
		return a
	}
	k := read(v)
	best, bestScore := legal[0], math.Inf(-1)
	for _, a := range legal {
		sc := k.score(a)
		if sc > bestScore {
			best, bestScore = a, sc
		}
	}
	return best
}

func (k *knowledge) score(a engine.Action) float64 {
	switch a.Kind {
	case engine.KindJump:
		sc := -markerCost
		if a.Fugitive >= 0 {
			sc += k.gain([]int8{a.Fugitive})
		}
		if a.Card >= 0 {
			sc += k.playValue(a.Card) + k.gain([]int8{a.Card})*0 - 0.5
		}
		return sc
	case engine.KindPlay:
		return k.playValue(a.Card) - strengthCost*k.strength(a.Card)
	case engine.KindPick:
		if k.v.GetPhase() == pb.Phase_PHASE_SLEEVE {
			return -k.strength(a.Card) // give away the weakest card
		}
		if k.v.GetPhase() == pb.Phase_PHASE_TAKE_BACK {
			return -k.gain([]int8{a.Card}) - markerCost
		}
		return k.gain([]int8{a.Card})
	case engine.KindDecline:
		return 0
	case engine.KindChooseTrump:
		sc := 0.0
		for _, c := range k.v.GetHand() {
			if id := engine.CardID(c); colour(id) == a.Card {
				sc += float64(rank(id))
			}
		}
		return sc
	}
	return 0
}

// playValue is the expected capture value of putting card c on the table now.
func (k *knowledge) playValue(c int8) float64 {
	lead := k.lead
	if lead < 0 {
		lead = colour(c)
	}
	my := k.key(c, lead)
	for _, t := range k.table {
		if k.key(t, lead) >= my {
			return 0 // cannot win
		}
	}
	if my == 0 {
		return 0
	}
	capture := append([]int8{c}, k.table...)
	if tc := engine.CardID(k.v.GetTrumpCard()); tc >= 0 && !k.v.GetOptions().GetAnonymousHelp() {
		capture = append(capture, tc)
	}
	return k.holdChance(c, lead) * (k.gain(capture) + unknownCard*float64(k.after))
}

// Rollouts is how many random playouts the heuristic bot spends on one decision, shared among
// the legal actions.
var Rollouts = 600

// MarginWeight is how much one point of score margin counts against a win.
var MarginWeight = 0.3

// monteCarlo samples the hidden cards from the view, plays each legal action followed by random
// play to the end, and picks the action that wins most often (score margin breaks close calls).
// It works for the tables engine.Sample supports.
func monteCarlo(v *pb.View, legal []engine.Action, r *rand.Rand) (engine.Action, bool) {
	sp, ok := engine.NewSampler(v)
	if !ok {
		return engine.Action{}, false
	}
	var s engine.State
	sp.Deal(r, &s) // draws as the sampling that used to check the table did
	me := int(v.GetViewer())
	if Rollouts == 0 {
		sp.Deal(r, &s)
		return s.Greedy(int8(me), legal), true
	}
	per := max(Rollouts/len(legal), 4)
	// Every action is tried against the same sampled deals and the same random choices of the
	// others (common random numbers), so the comparison is not drowned in deal-to-deal noise.
	seeds := make([]uint64, per)
	for i := range seeds {
		seeds[i] = r.Uint64()
	}
	var pcg rand.PCG
	rr := rand.New(&pcg)
	best, bestVal := legal[0], math.Inf(-1)
	for _, a := range legal {
		val := 0.0
		for _, seed := range seeds {
			pcg.Seed(seed, 0x5a907)
			sp.Deal(rr, &s)
			s.Apply(me, a)
			engine.Playout(&s, rr, me)
			win, margin := s.Result(me)
			if win {
				val++
			}
			val += MarginWeight * float64(margin)
		}
		if val > bestVal {
			best, bestVal = a, val
		}
	}
	return best, true
}
