package engine

import (
	"math/rand/v2"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
)

// Sample deals a full state consistent with what one seat's view shows (a "world" for the search
// bot): every card the view shows stays where it is (the seat's own known cards, the others' cards
// it has seen, the top of the discard pile, its drawn card), and the cards it has not seen are dealt
// at random to the face-down slots it does not know (its own and the others'), to the card another
// turn player holds, to the discard pile under its top four and to the draw pile. Who knows each
// face-down card is public (Slot.known_by) and is kept. It reads nothing but v and r.
//
// The view does not say everything the state holds; a world takes:
//   - no clock: no throw window, no turn timer, no bots' delays (every action applies at once; the
//     reaction range stays only to order the throwers of a world, see ToAct). A discard waiting to
//     land is dropped: the turn player holds the card again;
//   - whether the turn player has played while effects are pending (PHASE_EFFECTS without a drawn
//     card): yes when the first effect is the turn player's and the top card is its function card
//     (a function played), else no;
//   - the turns completed this round: 0 (only the final round's 30-cycle guard reads them);
//   - the peek at start of later rounds: none.
//
// Its viewer acts first in the world (see ToAct): the search's root is the viewer's decision.
// ok is false for a spectator's view or a view whose cards do not add up to the deck.
func Sample(v *pb.View, r *rand.Rand) (s *State, ok bool) {
	n := int(v.GetSeats())
	me := int(v.GetViewer())
	if n < 2 || n > maxSeat || me < 0 || me >= n || len(v.GetRows()) != n || v.GetTurnSeat() >= uint32(n) {
		return nil, false
	}
	s = &State{n: uint8(n), forOthers: v.GetThrowForOthers(), rounds: uint8(v.GetRounds()), hall: -1,
		noseNS: int64(DefaultNoseDeadline), reactMinNS: int64(DefaultBotReactionMin),
		reactMaxNS: int64(DefaultBotReactionMax)}
	s.round, s.turn, s.cur = uint8(v.GetRound()), v.GetTurn(), uint8(v.GetTurnSeat())
	if s.round == 0 || s.rounds < s.round {
		return nil, false
	}
	s.starter = uint8((n - int(s.round-1)%n) % n)
	s.seed = r.Uint64()
	s.rng = *rand.NewPCG(r.Uint64(), r.Uint64())
	s.prio = uint8(me) + 1

	// Card ids: a shown card takes a free id of its number; an unseen one is dealt from the rest.
	var used [NumCards]bool
	take := func(num uint32) uint8 {
		var lo, hi uint8
		switch {
		case num >= 1 && num <= 14:
			lo, hi = uint8(num-1)*4, uint8(num-1)*4+4
		case num == Joker:
			lo, hi = 56, assID
		case num == AssJoker:
			lo, hi = assID, assID+1
		default:
			return noCard
		}
		for id := lo; id < hi; id++ {
			if !used[id] {
				used[id] = true
				return id
			}
		}
		return noCard
	}
	const hidden = 0xFE // a slot to deal an unseen card to
	all := s.all()
	total := 0
	for _, row := range v.GetRows() {
		total += len(row.GetSlots())
	}
	cards := make([]uint8, 2*NumCards+max(8*n, total+4*n))
	s.pile, s.disc = cards[:0:NumCards], cards[NumCards:NumCards:2*NumCards]
	free := cards[2*NumCards:]
	s.rows = make([][]uint8, n)
	s.vp = make([]int32, n)
	var holes []*uint8 // where the unseen cards go, with the knowledge each keeps
	var holeKnown []uint16
	var holeOwner []uint8
	for seat, row := range v.GetRows() {
		sl := row.GetSlots()
		c := max(8, len(sl)+4)
		r := free[:len(sl):c]
		free = free[c:]
		for i, x := range sl {
			switch {
			case x.GetEmpty():
				r[i] = noCard
			case x.GetCard() != 0:
				id := take(x.GetCard())
				if id == noCard {
					return nil, false
				}
				r[i] = id
				s.known[id] = know(uint16(x.GetKnownBy())&all, all)
			default:
				r[i] = hidden
				holes = append(holes, &r[i])
				holeKnown = append(holeKnown, uint16(x.GetKnownBy())&all)
				holeOwner = append(holeOwner, uint8(seat))
			}
		}
		s.rows[seat] = r
		s.vp[seat] = row.GetVictoryPoints()
		if row.GetThrowLocked() {
			s.locked |= bit(uint8(seat))
		}
		if row.GetTouchedNose() {
			s.touched |= bit(uint8(seat))
		}
	}
	top := v.GetDiscardTop()
	if int(v.GetDiscardSize()) < len(top) {
		return nil, false
	}
	buried := int(v.GetDiscardSize()) - len(top)
	topIDs := make([]uint8, len(top))
	for i, c := range top {
		if topIDs[i] = take(c); topIDs[i] == noCard {
			return nil, false
		}
	}
	s.drawn = noCard
	drawnHidden := false
	if v.GetCardDrawn() {
		if me == int(s.cur) {
			if s.drawn = take(v.GetDrawnCard()); s.drawn == noCard {
				return nil, false
			}
			s.known[s.drawn] = bit(s.cur)
		} else {
			drawnHidden = true
		}
	}
	var pool [NumCards]uint8
	k := 0
	for id := range uint8(NumCards) {
		if !used[id] {
			pool[k] = id
			k++
		}
	}
	need := len(holes) + buried + int(v.GetDrawSize())
	if drawnHidden {
		need++
	}
	if need != k {
		return nil, false
	}
	r.Shuffle(k, func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	deal := pool[:k]
	for i, h := range holes {
		if o := holeOwner[i]; o != uint8(me) && holeKnown[i]&bit(o) != 0 && KnownHigh < 1 {
			// A card its owner knows and keeps is more often low: players replace the high cards
			// they know first. Deal it a low card unless a high one passes at KnownHigh.
			for j, id := range deal {
				if (id != assID && Points(number(id)) <= 6) || r.Float64() < KnownHigh {
					deal[0], deal[j] = deal[j], deal[0]
					break
				}
			}
		}
		*h, deal = deal[0], deal[1:]
		s.known[*h] = know(holeKnown[i], all)
	}
	if drawnHidden {
		s.drawn, deal = deal[0], deal[1:]
		s.known[s.drawn] = bit(s.cur)
	}
	for _, id := range deal[:buried] {
		s.disc = append(s.disc, id)
		s.known[id] = all | public
	}
	deal = deal[buried:]
	for _, id := range topIDs {
		s.disc = append(s.disc, id)
		s.known[id] = all | public
	}
	s.pile = append(s.pile, deal...) // unknown to all: known stays 0

	for _, e := range v.GetEffects() {
		if e.GetExecutor() >= uint32(n) || e.GetToSeat() >= uint32(n) || e.GetEffect() < pb.Effect_EFFECT_PEEK ||
			e.GetEffect() > pb.Effect_EFFECT_GIVE_BACK {
			return nil, false
		}
		s.queue = append(s.queue, effect{exec: uint8(e.GetExecutor()), kind: effectKind(e.GetEffect()), to: uint8(e.GetToSeat())})
	}
	switch v.GetPhase() {
	case pb.Phase_PHASE_GAME_OVER:
		s.ph = phaseOver
	case pb.Phase_PHASE_ROUND_ENDING:
		s.ph = phaseEnding
	case pb.Phase_PHASE_DRAW:
		s.ph = phaseDraw
	case pb.Phase_PHASE_DECIDE:
		s.ph = phaseDecide
	case pb.Phase_PHASE_EFFECTS:
		s.ph = phaseDraw
		if s.drawn != noCard {
			s.ph = phaseDecide
		} else if t := s.top(); t != noCard && isFunction(number(t)) && s.queue[0].exec == s.cur &&
			effectKind(number(t)-Peek)+effPeek == s.queue[0].kind {
			s.ph, s.turnDone = phaseDecide, true // a function played: the turn waits for its effects
		}
	default:
		return nil, false
	}
	if (s.ph == phaseDecide && !s.turnDone) != (s.drawn != noCard) {
		return nil, false
	}
	s.noseOpen = v.GetNoseWindow()
	if h := v.HallOfFame; h != nil {
		s.hall = int8(*h)
	}
	if v.GetSabaiCalled() {
		s.called, s.caller, s.lastSeat = true, uint8(v.GetCaller()), uint8(v.GetLastTurnSeat())
		// The turns still to play: the turn player's (unless played) and every seat's after it in
		// turn order, down to the last turn's seat.
		d := (n + int(s.cur) - int(s.lastSeat)) % n
		if !s.turnDone {
			d++
		}
		s.remaining = uint8(d)
	}
	return s, true
}

// KnownHigh is the chance that a card above 6 points (or the Ass Joker) is dealt to a face-down
// card its owner knows and the viewer does not, when it comes up; 1 deals such cards uniformly.
var KnownHigh = 0.3

// know is a card's knowledge from a slot's known_by: shown to every seat counts as public (the
// seats' views are the same either way).
func know(by, all uint16) uint16 {
	if by == all {
		return all | public
	}
	return by
}
