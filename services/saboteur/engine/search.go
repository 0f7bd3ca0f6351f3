package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// What the search bot reads of a state: a world Sample dealt, in which every seat plays as that
// seat could (its own hand and role, what it has seen).

// ToAct returns the seat whose action the state waits for, or -1 once the game is over.
func (s *State) ToAct() int {
	if s.over {
		return -1
	}
	return s.cur
}

// InRound reports whether round r is still being played (not yet ended).
func (s *State) InRound(r int) bool { return !s.over && s.round == r && s.phase == phaseTurn }

// Play applies a legal action without the caller's events.
func (s *State) Play(seat int, a Action) {
	var buf [8]engine.Event
	evs := buf[:0]
	s.exec(seat, a, &evs)
}

// Seats returns the number of seats.
func (s *State) Seats() int { return s.n }

// Knows returns the role viewer knows seat to have: its own, or one it inspected (else
// unspecified).
func (s *State) Knows(viewer, seat int) pb.Role {
	if viewer == seat {
		return pb.Role(s.roles[seat])
	}
	return pb.Role(s.seen[viewer*s.n+seat])
}

// NuggetsOf returns a seat's nuggets.
func (s *State) NuggetsOf(seat int) int { return s.nuggets[seat] }

// GoldKnown reports whether seat knows where the gold is (it looked at it with a map, or it lies
// face up).
func (s *State) GoldKnown(seat int) bool {
	for g := range 3 {
		sl := &s.b.slots[g+1]
		if sl.card == cGold && (!sl.faceDown || s.mapped[seat]&(1<<g) != 0) {
			return true
		}
	}
	return false
}

// PlannerFor returns the planner of seat's view of the board, without building the view: the
// same as NewPlanner(view of seat), sharing the state's board (valid until the state changes).
func (s *State) PlannerFor(seat int) *Planner {
	p := &Planner{b: s.b, filter: reachAll}
	p.b.queue = nil
	switch s.roles[seat] {
	case roleBlue:
		p.filter, p.door = reachBlue, doorGreen
	case roleGreen:
		p.filter, p.door = reachGreen, doorBlue
	}
	var gold [][2]int
	for g := range 3 {
		sl := &s.b.slots[g+1]
		xy := [2]int{int(sl.x), int(sl.y)}
		switch {
		case !sl.faceDown:
			if sl.card == cGold {
				gold = append(gold, xy)
			}
		case s.mapped[seat]&(1<<g) != 0:
			if sl.card == cGold {
				gold = append(gold, xy)
			}
		default:
			p.targets = append(p.targets, xy)
		}
	}
	if len(gold) > 0 {
		p.targets = gold
	}
	return p
}

// RoundResult returns seat's result in the last finished round: whether it won, and its payout
// (geologists are paid for crystals without winning).
func (s *State) RoundResult(seat int) (win bool, payout int) {
	for _, w := range s.last.winners {
		if w == seat {
			win = true
		}
	}
	if seat < len(s.last.payouts) {
		payout = s.last.payouts[seat]
	}
	return win, payout
}

// RoundOfResult returns the round the last result is of (0: none yet).
func (s *State) RoundOfResult() int { return s.last.round }
