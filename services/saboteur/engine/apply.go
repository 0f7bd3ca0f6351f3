package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// Apply implements engine.Game.
func (g Game) Apply(s *State, m engine.Move[Action]) ([]engine.Event, error) {
	if err := s.validate(m.Seat, m.Action); err != nil {
		return nil, err
	}
	evs := make([]engine.Event, 0, 6)
	s.exec(m.Seat, m.Action, &evs)
	s.lastAt = m.At.UnixNano()
	return evs, nil
}

// exec applies a validated action.
func (s *State) exec(seat int, a Action, evs *[]engine.Event) {
	switch a.Kind {
	case KindPick:
		s.pick(seat, a.Target, evs)
		return
	case KindSteal:
		s.steal(seat, int(a.Target), evs)
		return
	}
	s.lastPlayer = seat
	draw := 1
	switch a.Kind {
	case KindPlace:
		s.take(seat, a.Card)
		*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_PathPlaced{PathPlaced: &pb.PathPlaced{
			Seat: uint32(seat), Card: pb.Card(a.Card), Cell: cell(a.X, a.Y), Rotated: a.Rot}}}))
		s.b.place(a.Card, a.Rot, int(a.X), int(a.Y))
		if s.revealTouched(evs) {
			s.endRound(true, seat, evs)
			return
		}
	case KindPlay:
		s.take(seat, a.Card)
		if !s.play(seat, a, evs) {
			draw = 0
		}
	case KindRemove:
		s.take(seat, a.Cards[0])
		s.take(seat, a.Cards[1])
		s.spent = append(s.spent, a.Cards[0], a.Cards[1], a.InFront)
		s.front[seat] &^= frontBit(a.InFront)
		if a.InFront == cTheft {
			s.theftAt[seat] = 0
		}
		*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_Discarded{Discarded: &pb.Discarded{
			Seat: uint32(seat), Count: 2, RemovedInFront: pb.Card(a.InFront)}}}))
	case KindDiscard:
		for _, c := range a.Cards[:a.N] {
			s.take(seat, c)
			s.spent = append(s.spent, c)
		}
		draw = int(a.N)
		*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_Discarded{Discarded: &pb.Discarded{
			Seat: uint32(seat), Count: uint32(a.N)}}}))
	}
	s.draw(seat, draw, evs)
	s.advance(evs)
}

// revealTouched turns up every face-down goal a reachable segment opens onto; it reports whether
// the gold was reached.
func (s *State) revealTouched(evs *[]engine.Event) bool {
	gold := false
	for s.b.touched != 0 {
		g := 0
		for s.b.touched&(1<<g) == 0 {
			g++
		}
		s.b.reveal(g)
		sl := s.b.slots[g+1]
		*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_GoalRevealed{GoalRevealed: &pb.GoalRevealed{
			Cell: cell(sl.x, sl.y), Card: pb.Card(sl.card), Rotated: sl.rot}}}))
		if sl.card == cGold {
			gold = true
		}
	}
	return gold
}

// draw gives seat up to k cards from the pile.
func (s *State) draw(seat, k int, evs *[]engine.Event) {
	k = min(k, len(s.pile))
	if k == 0 {
		return
	}
	got := s.pile[len(s.pile)-k:]
	s.hands[seat] = append(s.hands[seat], got...)
	*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_Drew{Drew: &pb.Drew{Seat: uint32(seat), Count: uint32(k)}}}))
	*evs = append(*evs, ev(seat, &pb.Event{Kind: &pb.Event_Drew{Drew: &pb.Drew{Seat: uint32(seat), Count: uint32(k), Cards: cards(got)}}}))
	s.pile = s.pile[:len(s.pile)-k]
}

// advance passes the turn to the next seat clockwise that holds cards; with none, the round ends.
func (s *State) advance(evs *[]engine.Event) {
	for k := 1; k <= s.n; k++ {
		seat := (s.cur + k) % s.n
		if len(s.hands[seat]) > 0 {
			for j := 1; j < k; j++ {
				*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_Skipped{Skipped: &pb.Skipped{Seat: uint32((s.cur + j) % s.n)}}}))
			}
			s.cur = seat
			return
		}
	}
	s.endRound(false, s.lastPlayer, evs)
}

// play carries out an action card; it reports whether the player then draws.
func (s *State) play(seat int, a Action, evs *[]engine.Event) bool {
	t := int(a.Target)
	pe := &pb.ActionPlayed{Seat: uint32(seat), Card: pb.Card(a.Card)}
	spend := true
	draws := true
	var private []engine.Event
	switch c := a.Card; c {
	case cBreakPick, cBreakLantern, cBreakCart:
		s.front[t] |= frontBit(c)
		pe.TargetSeat = uint32(t)
		spend = false
	case cRepairPick, cRepairLantern, cRepairCart, cRepairPL, cRepairPC, cRepairLC:
		tools := repairTools(c)
		bit := toolBit(a.Tool)
		if tools&(tools-1) == 0 {
			bit = tools
		}
		s.front[t] &^= bit
		s.spent = append(s.spent, frontCards[bitIndex(bit)])
		pe.TargetSeat, pe.Tool = uint32(t), pb.Tool(bitIndex(bit)+1)
	case cRockfall:
		i := s.b.at(int(a.X), int(a.Y))
		pe.Cell, pe.Removed = cell(a.X, a.Y), pb.Card(s.b.slots[i].card)
		s.spent = append(s.spent, s.b.slots[i].card)
		s.b.remove(i)
	case cMap:
		i := s.b.at(int(a.X), int(a.Y))
		s.mapped[seat] |= 1 << (i - 1)
		pe.Cell = cell(a.X, a.Y)
		private = append(private, ev(seat, &pb.Event{Kind: &pb.Event_MapResult{MapResult: &pb.MapResult{
			Cell: cell(a.X, a.Y), Card: pb.Card(s.b.slots[i].card)}}}))
	case cInspection:
		s.seen[seat*s.n+t] = s.roles[t]
		pe.TargetSeat = uint32(t)
		private = append(private, ev(seat, &pb.Event{Kind: &pb.Event_InspectionResult{InspectionResult: &pb.InspectionResult{
			Seat: uint32(t), Role: pb.Role(s.roles[t])}}}))
	case cTheft:
		s.front[seat] |= frontTheft
		s.seq++
		s.theftAt[seat] = s.seq
		pe.TargetSeat = uint32(seat)
		spend = false
	case cHandsOff:
		s.front[t] &^= frontTheft
		s.theftAt[t] = 0
		s.spent = append(s.spent, cTheft)
		pe.TargetSeat = uint32(t)
	case cSwapHats:
		k := s.intn(len(s.aside))
		s.roleOut = append(s.roleOut, s.roles[t])
		s.roles[t] = s.aside[k]
		s.aside = append(s.aside[:k], s.aside[k+1:]...)
		pe.TargetSeat = uint32(t)
		private = append(private, ev(t, &pb.Event{Kind: &pb.Event_RoleDealt{RoleDealt: &pb.RoleDealt{Role: pb.Role(s.roles[t])}}}))
		// What anyone saw of the old role is now stale.
		for v := range s.n {
			s.seen[v*s.n+t] = 0
		}
	case cSwapHand:
		s.hands[seat], s.hands[t] = s.hands[t], s.hands[seat]
		pe.TargetSeat = uint32(t)
		draws = false
	case cTrapped:
		s.front[t] |= frontTrapped
		pe.TargetSeat = uint32(t)
		spend = false
	case cFree:
		s.front[t] &^= frontTrapped
		s.spent = append(s.spent, cTrapped)
		pe.TargetSeat = uint32(t)
	}
	if spend {
		s.spent = append(s.spent, a.Card)
	}
	*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_ActionPlayed{ActionPlayed: pe}}))
	*evs = append(*evs, private...)
	if a.Card == cSwapHand {
		*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_HandsSwapped{HandsSwapped: &pb.HandsSwapped{Seat: uint32(seat), TargetSeat: uint32(t)}}}))
		*evs = append(*evs, ev(seat, &pb.Event{Kind: &pb.Event_HandDealt{HandDealt: &pb.HandDealt{Cards: cards(s.hands[seat])}}}))
		*evs = append(*evs, ev(t, &pb.Event{Kind: &pb.Event_HandDealt{HandDealt: &pb.HandDealt{Cards: cards(s.hands[t])}}}))
		s.draw(t, 1, evs)
	}
	return draws
}

func bitIndex(b uint8) int {
	for i := range 8 {
		if b&(1<<i) != 0 {
			return i
		}
	}
	return 0
}
