package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// What the search bot reads of a state: a world Sample dealt, in which every seat plays as that
// seat could (its own hand and role, what it has seen).

// ToAct returns the seat whose action the state waits for, or -1 once the game is over. A world
// Sample dealt ends with its round: the search looks no further than the round's result.
func (s *State) ToAct() int {
	if s.over || s.sampled != 0 && (s.round != s.sampled || s.phase != phaseTurn) {
		return -1
	}
	return s.cur
}

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

// GoldFront returns how far the tunnel is from the gold: the Manhattan distance from the gold's
// cell to the nearest empty cell a card reachable from the start opens onto (0 once the gold is
// reached). It reads the gold's place, which only a world's omniscient scoring may do.
func (s *State) GoldFront() int {
	if s.last.round == s.round && s.last.goldReached {
		return 0
	}
	g := s.goldIndex()
	sl := &s.b.slots[g+1]
	p := Planner{b: s.b, filter: reachAll, targets: [][2]int{{int(sl.x), int(sl.y)}}}
	return p.Front()
}

// Blocked reports whether seat cannot place path cards (a broken tool or Trapped! in front).
func (s *State) Blocked(seat int) bool { return s.blockedReason(seat) != "" }

// BlockedBuilders counts the seats other than saboteurs that cannot place path cards.
func (s *State) BlockedBuilders() int {
	k := 0
	for i := range s.n {
		if s.roles[i] != roleSaboteur && s.Blocked(i) {
			k++
		}
	}
	return k
}

// Dealt returns GoldFront and BlockedBuilders of a world of Sample as it was dealt.
func (s *State) Dealt() (goldFront, blockedBuilders int) { return s.front0, s.blocked0 }
