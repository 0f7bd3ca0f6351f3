package engine

import "slices"

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
