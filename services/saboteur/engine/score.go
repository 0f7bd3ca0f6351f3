package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// share is what each Saboteur 2 winner gets by number of winners (5 or more: 1 each).
func share(winners int) int {
	switch {
	case winners <= 0:
		return 0
	case winners >= 5:
		return 1
	}
	return 6 - winners
}

// classicSaboteurShare is what each saboteur gets when the saboteurs win the classic game.
func classicSaboteurShare(saboteurs int) int {
	switch {
	case saboteurs == 1:
		return 4
	case saboteurs <= 3:
		return 3
	}
	return 2
}

// goldIndex returns the goal index holding the gold.
func (s *State) goldIndex() int {
	for g, c := range s.goals {
		if c == cGold {
			return g
		}
	}
	return 0
}

// endRound scores the round: goldReached by connector, or the cards ran out.
func (s *State) endRound(goldReached bool, connector int, evs *[]engine.Event) {
	s.lastPlayer = connector
	r := roundResult{round: s.round, goldReached: goldReached, connector: connector,
		roles: append([]uint8(nil), s.roles...), payouts: make([]int, s.n), crystals: s.b.crystals()}
	if s.classic {
		s.classicResult(&r)
	} else {
		s.s2Result(&r)
	}
	for i, p := range r.payouts {
		s.nuggets[i] += p
	}
	s.last = r
	for g := range 3 {
		if sl := s.b.slots[g+1]; sl.faceDown {
			*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_GoalRevealed{GoalRevealed: &pb.GoalRevealed{
				Cell: cell(sl.x, sl.y), Card: pb.Card(sl.card)}}}))
		}
	}
	*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_RoundEnded{RoundEnded: &pb.RoundEnded{Result: s.resultProto()}}}))
	if s.classic && goldReached {
		k := min(s.n, 9, len(s.goldDeck))
		s.offer = append(s.offer[:0], s.goldDeck[len(s.goldDeck)-k:]...)
		s.goldDeck = s.goldDeck[:len(s.goldDeck)-k]
		first := connector
		if s.roles[first] != roleDigger {
			first = s.nextDiggerCCW(first)
		}
		vals := make([]uint32, len(s.offer))
		for i, v := range s.offer {
			vals[i] = uint32(v)
		}
		*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_GoldOffered{GoldOffered: &pb.GoldOffered{Values: vals, FirstPicker: uint32(first)}}}))
		if first >= 0 && len(s.offer) > 0 {
			s.phase, s.cur = phasePickGold, first
			return
		}
		s.spentOffer()
	}
	if !s.classic {
		s.queueThieves()
		if s.nextThief(evs) {
			return
		}
	}
	s.finishRound(evs)
}

// spentOffer returns unpicked gold cards to the box (only if nobody can pick).
func (s *State) spentOffer() {
	s.goldDeck = append(s.goldDeck, s.offer...)
	s.offer = s.offer[:0]
}

func (s *State) classicResult(r *roundResult) {
	if r.goldReached {
		for i, role := range s.roles {
			if role == roleDigger {
				r.winners = append(r.winners, i)
			}
		}
		return
	}
	for i, role := range s.roles {
		if role == roleSaboteur {
			r.winners = append(r.winners, i)
		}
	}
	p := classicSaboteurShare(len(r.winners))
	for _, w := range r.winners {
		r.payouts[w] = p
	}
}

// s2Result decides the winners of a Saboteur 2 round and their shares (geologists included).
func (s *State) s2Result(r *roundResult) {
	blue, green := false, false
	if r.goldReached {
		reach := s.b.goalReach(s.goldIndex())
		r.blueOpen, r.greenOpen = reach&reachBlue != 0, reach&reachGreen != 0
		switch s.roles[r.connector] {
		case roleBlue:
			blue = r.blueOpen
			green = !blue && r.greenOpen
		case roleGreen:
			green = r.greenOpen
			blue = !green && r.blueOpen
		default:
			blue, green = r.blueOpen, r.greenOpen
		}
	}
	for i, role := range s.roles {
		if s.front[i]&frontTrapped != 0 {
			continue
		}
		win := false
		switch role {
		case roleBlue:
			win = blue
		case roleGreen:
			win = green
		case roleBoss:
			win = blue || green
		case roleProfiteer:
			win = true
		case roleSaboteur:
			win = !r.goldReached
		}
		if win {
			r.winners = append(r.winners, i)
		}
	}
	p := share(len(r.winners))
	for _, w := range r.winners {
		switch s.roles[w] {
		case roleBoss:
			r.payouts[w] = max(p-1, 0)
		case roleProfiteer:
			r.payouts[w] = max(p-2, 0)
		default:
			r.payouts[w] = p
		}
	}
	geologists := 0
	for _, role := range s.roles {
		if role == roleGeologist {
			geologists++
		}
	}
	for i, role := range s.roles {
		if role == roleGeologist && s.front[i]&frontTrapped == 0 {
			r.payouts[i] = r.crystals / geologists
		}
	}
}

// nextDiggerCCW returns the next gold digger counter-clockwise from seat (not seat itself), or -1.
func (s *State) nextDiggerCCW(seat int) int {
	for k := 1; k <= s.n; k++ {
		v := (seat - k + s.n*2) % s.n
		if s.roles[v] == roleDigger {
			return v
		}
	}
	return -1
}

// queueThieves lines up the untrapped thieves: from the one who laid the last Theft, clockwise.
func (s *State) queueThieves() {
	s.thieves = s.thieves[:0]
	start, latest := -1, uint16(0)
	for i := range s.n {
		if s.front[i]&frontTheft != 0 && s.theftAt[i] > latest {
			start, latest = i, s.theftAt[i]
		}
	}
	if start < 0 {
		return
	}
	for k := range s.n {
		t := (start + k) % s.n
		if s.front[t]&frontTheft != 0 && s.front[t]&frontTrapped == 0 {
			s.thieves = append(s.thieves, t)
		}
	}
}

// nextThief hands the turn to the next thief who has someone to rob; it reports whether one waits.
func (s *State) nextThief(evs *[]engine.Event) bool {
	for len(s.thieves) > 0 {
		t := s.thieves[0]
		if s.richestVictim(t) >= 0 {
			s.phase, s.cur = phaseTheft, t
			return true
		}
		*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_Stolen{Stolen: &pb.Stolen{Thief: uint32(t), Victim: uint32(t)}}}))
		s.thieves = s.thieves[1:]
	}
	return false
}

func (s *State) steal(thief, victim int, evs *[]engine.Event) {
	s.nuggets[victim]--
	s.nuggets[thief]++
	*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_Stolen{Stolen: &pb.Stolen{Thief: uint32(thief), Victim: uint32(victim), Took: true}}}))
	s.thieves = s.thieves[1:]
	if !s.nextThief(evs) {
		s.finishRound(evs)
	}
}

func (s *State) pick(seat int, value uint8, evs *[]engine.Event) {
	for i, v := range s.offer {
		if v == value {
			s.offer = append(s.offer[:i], s.offer[i+1:]...)
			break
		}
	}
	s.nuggets[seat] += int(value)
	s.last.payouts[seat] += int(value)
	*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_GoldPicked{GoldPicked: &pb.GoldPicked{Seat: uint32(seat), Value: uint32(value)}}}))
	if len(s.offer) > 0 {
		s.cur = s.nextDiggerCCW(seat)
		return
	}
	s.finishRound(evs)
}

// finishRound starts the next round left of the player who played the last card, or ends the game.
func (s *State) finishRound(evs *[]engine.Event) {
	s.thieves = s.thieves[:0]
	if s.round >= Rounds {
		s.over = true
		s.phase = phaseOver
		ns := make([]uint32, s.n)
		for i, v := range s.nuggets {
			ns[i] = uint32(v)
		}
		*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_GameEnded{GameEnded: &pb.GameEnded{Nuggets: ns}}}))
		return
	}
	s.startRound((s.lastPlayer+1)%s.n, evs)
}

func (s *State) resultProto() *pb.RoundResult {
	r := &s.last
	if r.round == 0 {
		return nil
	}
	out := &pb.RoundResult{Round: uint32(r.round), GoldReached: r.goldReached, Connector: uint32(r.connector),
		BlueOpen: r.blueOpen, GreenOpen: r.greenOpen, Crystals: uint32(r.crystals)}
	for _, role := range r.roles {
		out.Roles = append(out.Roles, pb.Role(role))
	}
	for _, w := range r.winners {
		out.Winners = append(out.Winners, uint32(w))
	}
	for _, p := range r.payouts {
		out.Payouts = append(out.Payouts, uint32(p))
	}
	return out
}
