package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"slices"
)

// symmetric[c] is true when turning card c changes nothing (its rotated segments are the same).
var symmetric [numCards]bool

func init() {
	for c := range numCards {
		a, b := shapes[c][0], shapes[c][1]
		sa, sb := slices.Clone(a.segs[:a.nseg]), slices.Clone(b.segs[:b.nseg])
		slices.Sort(sa)
		slices.Sort(sb)
		symmetric[c] = slices.Equal(sa, sb)
	}
}

// candidate is an empty cell next to the board with its fit.
type candidate struct {
	x, y int8
	f    fit
}

// candidates appends every frontier cell where some path card could go: next to a reachable open
// edge, or (for ladders) next to a path card and no goal.
func (b *board) candidates(buf []candidate) []candidate {
	for _, k := range b.frontier {
		x, y := int(k>>8)-128, int(k&255)-128
		f := b.examine(x, y)
		if f.reachable == 0 && (!f.adjPath || f.adjGoal) {
			continue
		}
		buf = append(buf, candidate{x: int8(x), y: int8(y), f: f})
	}
	return buf
}

// Legal implements engine.Game.
func (Game) Legal(s *State, seat int, buf []Action) []Action {
	if s.over || seat != s.cur || seat < 0 || seat >= s.n {
		return buf
	}
	switch s.phase {
	case phasePickGold:
		var seenV [4]bool
		for _, v := range s.offer {
			if !seenV[v] {
				seenV[v] = true
				buf = append(buf, Action{Kind: KindPick, Target: v})
			}
		}
		return buf
	case phaseTheft:
		for v := range s.n {
			if v != seat && s.nuggets[v] > 0 {
				buf = append(buf, Action{Kind: KindSteal, Target: uint8(v)})
			}
		}
		return buf
	case phaseTurn:
	default:
		return buf
	}
	hand := s.hands[seat]
	var distinct [numCards]bool
	var cands []candidate
	var candBuf [64]candidate
	canBuild := s.blockedReason(seat) == ""
	haveCands := false
	for _, c := range hand {
		if distinct[c] {
			continue
		}
		distinct[c] = true
		if defs[c].path {
			if !canBuild || !s.doorAllowed(seat, c) {
				continue
			}
			if !haveCands {
				cands, haveCands = s.b.candidates(candBuf[:0]), true
			}
			for r := range 2 {
				if r == 1 && symmetric[c] {
					break
				}
				for i := range cands {
					if cands[i].f.check(c, r == 1) == "" {
						buf = append(buf, Action{Kind: KindPlace, Card: c, Rot: r == 1, X: cands[i].x, Y: cands[i].y})
					}
				}
			}
			continue
		}
		buf = s.legalPlays(seat, c, buf)
	}
	var sortedBuf [16]uint8
	sorted := append(sortedBuf[:0], hand...)
	slices.Sort(sorted)
	// Remove a card lying in front of oneself by discarding two.
	if (!s.classic || s.discard2) && len(hand) >= 2 && s.front[seat] != 0 {
		mask := s.front[seat]
		if s.classic {
			mask &= frontTools
		}
		for i, fc := range frontCards {
			if mask&(1<<i) != 0 {
				buf = combos(sorted, 2, Action{Kind: KindRemove, N: 2, InFront: fc}, buf)
			}
		}
	}
	maxDiscard := 3
	if s.classic {
		maxDiscard = 1
	}
	for k := 1; k <= maxDiscard && k <= len(hand); k++ {
		buf = combos(sorted, k, Action{Kind: KindDiscard, N: uint8(k)}, buf)
	}
	return buf
}

// combos appends tmpl with Cards set to every distinct multiset of k cards of the sorted hand h.
func combos(h []uint8, k int, tmpl Action, buf []Action) []Action {
	for i := range h {
		if i > 0 && h[i] == h[i-1] {
			continue
		}
		tmpl.Cards[0] = h[i]
		if k == 1 {
			buf = append(buf, tmpl)
			continue
		}
		for j := i + 1; j < len(h); j++ {
			if j > i+1 && h[j] == h[j-1] {
				continue
			}
			tmpl.Cards[1] = h[j]
			if k == 2 {
				buf = append(buf, tmpl)
				continue
			}
			for l := j + 1; l < len(h); l++ {
				if l > j+1 && h[l] == h[l-1] {
					continue
				}
				tmpl.Cards[2] = h[l]
				buf = append(buf, tmpl)
			}
		}
	}
	return buf
}

// legalPlays appends the ways to play action card c.
func (s *State) legalPlays(seat int, c uint8, buf []Action) []Action {
	each := func(ok func(t int) bool) {
		for t := range s.n {
			if ok(t) {
				buf = append(buf, Action{Kind: KindPlay, Card: c, Target: uint8(t)})
			}
		}
	}
	switch c {
	case cBreakPick, cBreakLantern, cBreakCart:
		bit := frontBit(c)
		each(func(t int) bool { return s.front[t]&bit == 0 })
	case cRepairPick, cRepairLantern, cRepairCart:
		bit := repairTools(c)
		each(func(t int) bool { return s.front[t]&bit != 0 })
	case cRepairPL, cRepairPC, cRepairLC:
		tools := repairTools(c)
		for t := range s.n {
			for tool := uint8(1); tool <= 3; tool++ {
				bit := toolBit(tool)
				if tools&bit != 0 && s.front[t]&bit != 0 {
					buf = append(buf, Action{Kind: KindPlay, Card: c, Target: uint8(t), Tool: tool})
				}
			}
		}
	case cRockfall:
		for i := 4; i < len(s.b.slots); i++ {
			sl := &s.b.slots[i]
			buf = append(buf, Action{Kind: KindPlay, Card: c, X: sl.x, Y: sl.y})
		}
	case cMap:
		for g := 1; g <= 3; g++ {
			if sl := &s.b.slots[g]; sl.faceDown {
				buf = append(buf, Action{Kind: KindPlay, Card: c, X: sl.x, Y: sl.y})
			}
		}
	case cInspection, cSwapHand:
		each(func(t int) bool { return t != seat })
	case cTheft:
		if s.front[seat]&(frontTrapped|frontTheft) == 0 {
			buf = append(buf, Action{Kind: KindPlay, Card: c, Target: uint8(seat)})
		}
	case cHandsOff:
		each(func(t int) bool { return t != seat && s.front[t]&frontTheft != 0 })
	case cSwapHats:
		if len(s.aside) > 0 {
			each(func(int) bool { return true })
		}
	case cTrapped:
		each(func(t int) bool { return s.front[t]&frontTrapped == 0 })
	case cFree:
		each(func(t int) bool { return s.front[t]&frontTrapped != 0 })
	}
	return buf
}

// validate refuses an action the rules do not allow now, without changing anything.
func (s *State) validate(seat int, a Action) *engine.Violation {
	if s.over {
		return engine.Refuse(engine.CodeGameOver, "the game is over")
	}
	if seat < 0 || seat >= s.n {
		return engine.Refuse(engine.CodeBadSeat, "seat %d is not at this table", seat)
	}
	switch a.Kind {
	case KindPlace, KindPlay, KindRemove, KindDiscard:
		if s.phase != phaseTurn {
			return engine.Refuse(CodeWrongPhase, "the round is being scored")
		}
	case KindPick:
		if s.phase != phasePickGold {
			return engine.Refuse(CodeWrongPhase, "no gold is being shared")
		}
	case KindSteal:
		if s.phase != phaseTheft {
			return engine.Refuse(CodeWrongPhase, "no theft is being made")
		}
	default:
		return engine.Refuse(engine.CodeUnknownAction, "no such action")
	}
	if seat != s.cur {
		return engine.Refuse(engine.CodeNotYourTurn, "it is seat %d's turn", s.cur)
	}
	hand := s.hands[seat]
	switch a.Kind {
	case KindPlace:
		if count(hand, a.Card) == 0 {
			return engine.Refuse(CodeNotInHand, "card %v is not in your hand", pb.Card(a.Card))
		}
		return s.checkPlace(seat, a)
	case KindPlay:
		if count(hand, a.Card) == 0 {
			return engine.Refuse(CodeNotInHand, "card %v is not in your hand", pb.Card(a.Card))
		}
		return s.checkPlay(seat, a)
	case KindRemove:
		if s.classic && !s.discard2 {
			return engine.Refuse(CodeNotAllowed, "discarding two to remove a card is not in play")
		}
		if !holds(hand, a.Cards[:2]) {
			return engine.Refuse(CodeNotInHand, "the two discards are not in your hand")
		}
		bit := frontBit(a.InFront)
		if s.front[seat]&bit == 0 {
			return engine.Refuse(CodeNotInFront, "%v is not in front of you", pb.Card(a.InFront))
		}
	case KindDiscard:
		if s.classic && a.N != 1 {
			return engine.Refuse(engine.CodeBadAction, "a pass discards exactly one card")
		}
		if !holds(hand, a.Cards[:a.N]) {
			return engine.Refuse(CodeNotInHand, "the discards are not in your hand")
		}
	case KindPick:
		if !slices.Contains(s.offer, a.Target) {
			return engine.Refuse(CodeNotOffered, "no gold card worth %d is on offer", a.Target)
		}
	case KindSteal:
		v := int(a.Target)
		if v >= s.n || v == seat {
			return engine.Refuse(CodeBadTarget, "you may steal from another seat at the table")
		}
		if s.nuggets[v] == 0 {
			return engine.Refuse(CodeNoNugget, "seat %d has no nugget", v)
		}
	}
	return nil
}

// blockedReason returns why seat may not place path cards, or "".
func (s *State) blockedReason(seat int) string {
	if s.front[seat]&frontTools != 0 {
		return CodeToolsBroken
	}
	if s.front[seat]&frontTrapped != 0 {
		return CodeTrapped
	}
	return ""
}

// doorAllowed reports whether seat's role may place card (a gold digger only doors of its colour).
func (s *State) doorAllowed(seat int, card uint8) bool {
	switch defs[card].door {
	case doorBlue:
		return s.roles[seat] != roleGreen
	case doorGreen:
		return s.roles[seat] != roleBlue
	}
	return true
}

func (s *State) checkPlace(seat int, a Action) *engine.Violation {
	if r := s.blockedReason(seat); r != "" {
		return engine.Refuse(r, "you cannot build while a broken tool or Trapped! lies in front of you")
	}
	if !s.doorAllowed(seat, a.Card) {
		return engine.Refuse(CodeWrongDoor, "a gold digger may only place a door of their own colour")
	}
	f := s.b.examine(int(a.X), int(a.Y))
	if r := f.check(a.Card, a.Rot); r != "" {
		return engine.Refuse(r, "%v cannot go at (%d,%d) that way", pb.Card(a.Card), a.X, a.Y)
	}
	return nil
}

func (s *State) checkPlay(seat int, a Action) *engine.Violation {
	t := int(a.Target)
	needSeat := func() *engine.Violation {
		if t >= s.n {
			return engine.Refuse(CodeBadTarget, "seat %d is not at this table", t)
		}
		return nil
	}
	switch c := a.Card; c {
	case cBreakPick, cBreakLantern, cBreakCart:
		if v := needSeat(); v != nil {
			return v
		}
		if s.front[t]&frontBit(c) != 0 {
			return engine.Refuse(CodeAlreadyInFront, "seat %d already has that broken tool", t)
		}
	case cRepairPick, cRepairLantern, cRepairCart, cRepairPL, cRepairPC, cRepairLC:
		if v := needSeat(); v != nil {
			return v
		}
		tools := repairTools(c)
		bit := toolBit(a.Tool)
		if tools&(tools-1) == 0 && a.Tool == 0 {
			bit = tools
		}
		if bit == 0 || bit&tools == 0 {
			return engine.Refuse(CodeBadTool, "this card does not repair that tool")
		}
		if s.front[t]&bit == 0 {
			return engine.Refuse(CodeNotInFront, "seat %d has no such broken tool", t)
		}
	case cRockfall:
		i := s.b.at(int(a.X), int(a.Y))
		if i < 4 {
			return engine.Refuse(CodeNotRemovable, "rockfall takes a path card other than the start and goals")
		}
	case cMap:
		i := s.b.at(int(a.X), int(a.Y))
		if i < 1 || i > 3 || !s.b.slots[i].faceDown {
			return engine.Refuse(CodeNotAGoal, "a map looks at a face-down goal")
		}
	case cInspection, cSwapHand:
		if v := needSeat(); v != nil {
			return v
		}
		if t == seat {
			return engine.Refuse(CodeBadTarget, "choose another player")
		}
	case cTheft:
		if s.front[seat]&frontTrapped != 0 {
			return engine.Refuse(CodeTrapped, "a trapped player cannot lay a Theft")
		}
		if s.front[seat]&frontTheft != 0 {
			return engine.Refuse(CodeAlreadyInFront, "a Theft already lies in front of you")
		}
	case cHandsOff:
		if v := needSeat(); v != nil {
			return v
		}
		if t == seat || s.front[t]&frontTheft == 0 {
			return engine.Refuse(CodeNotInFront, "hands off removes a Theft lying in front of another player")
		}
	case cSwapHats:
		if v := needSeat(); v != nil {
			return v
		}
		if len(s.aside) == 0 {
			return engine.Refuse(CodeNoUnusedRole, "no unused role is left")
		}
	case cTrapped:
		if v := needSeat(); v != nil {
			return v
		}
		if s.front[t]&frontTrapped != 0 {
			return engine.Refuse(CodeAlreadyInFront, "seat %d is already trapped", t)
		}
	case cFree:
		if v := needSeat(); v != nil {
			return v
		}
		if s.front[t]&frontTrapped == 0 {
			return engine.Refuse(CodeNotInFront, "seat %d is not trapped", t)
		}
	default:
		return engine.Refuse(CodeBadCard, "%v is not an action card", pb.Card(c))
	}
	return nil
}

// Game-specific violation codes.
const (
	CodeWrongPhase     = "WRONG_PHASE"
	CodeNotInHand      = "NOT_IN_HAND"
	CodeToolsBroken    = "TOOLS_BROKEN"
	CodeTrapped        = "TRAPPED"
	CodeWrongDoor      = "WRONG_DOOR_COLOUR"
	CodeBadTarget      = "BAD_TARGET"
	CodeAlreadyInFront = "ALREADY_IN_FRONT"
	CodeNotInFront     = "NOT_IN_FRONT"
	CodeNotAGoal       = "NOT_A_FACE_DOWN_GOAL"
	CodeNotRemovable   = "NOT_REMOVABLE"
	CodeNoUnusedRole   = "NO_UNUSED_ROLE"
	CodeNotAllowed     = "NOT_IN_THIS_MODE"
	CodeNotOffered     = "GOLD_NOT_OFFERED"
	CodeNoNugget       = "VICTIM_HAS_NO_NUGGET"
)
