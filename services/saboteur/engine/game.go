// Package engine holds the rules of Saboteur and Saboteur 2: the tunnel board with its incremental
// reachability, roles, action cards, turns, round ends, scoring and the three rounds of a game. It is
// pure: no I/O, no clock, no randomness but the seeded generator kept in the state.
package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Game is Saboteur as an engine.Game.
type Game struct{}

var _ engine.Game[*State, Action] = Game{}

// Name is the game id.
const Name = "saboteur"

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

// Info implements engine.Game.
func (Game) Info() engine.Info {
	return engine.Info{Name: Name, MinSeats: 2, MaxSeats: MaxSeats,
		Options: &pb.Options{}, Action: &pb.Action{}, View: &pb.View{}}
}

// Setup implements engine.Game.
func (Game) Setup(cfg engine.Config) (*State, []engine.Event, error) {
	opts, ok := cfg.Options.(*pb.Options)
	if cfg.Options != nil && !ok {
		return nil, nil, engine.Invalid("options", engine.CodeBadOptions, "options are not saboteur options")
	}
	if opts == nil {
		opts = &pb.Options{}
	}
	classic := false
	switch opts.Mode {
	case pb.Mode_MODE_UNSPECIFIED, pb.Mode_MODE_SABOTEUR2:
	case pb.Mode_MODE_CLASSIC:
		classic = true
	default:
		return nil, nil, engine.Invalid("options.mode", engine.CodeBadOptions, "unknown mode %d", opts.Mode)
	}
	if opts.ClassicDiscardTwoToRepair && !classic {
		return nil, nil, engine.Invalid("options.classic_discard_two_to_repair", engine.CodeBadOptions,
			"classic_discard_two_to_repair is a classic-mode rule (saboteur2 always has it)")
	}
	lo, hi := 2, 12
	if classic {
		lo, hi = 3, 10
	}
	if cfg.Seats < lo || cfg.Seats > hi {
		return nil, nil, engine.Invalid("seats", engine.CodeBadSeatCount,
			"%d players: mode %v takes %d to %d", cfg.Seats, opts.Mode, lo, hi)
	}
	s := &State{
		classic: classic, discard2: opts.ClassicDiscardTwoToRepair, n: cfg.Seats,
		turnTime: int64(cfg.TurnTime), lastAt: cfg.Start.UnixNano(),
		rng:     *rand.NewPCG(cfg.Seed, cfg.Seed^0x5ab07e42),
		nuggets: make([]int, cfg.Seats), roles: make([]uint8, cfg.Seats),
		hands: make([][]uint8, cfg.Seats), front: make([]uint8, cfg.Seats),
		theftAt: make([]uint16, cfg.Seats), mapped: make([]uint8, cfg.Seats),
		seen: make([]uint8, cfg.Seats*cfg.Seats),
	}
	if classic {
		s.goldDeck = goldCards()
		shuffle(s, s.goldDeck)
	}
	var evs []engine.Event
	s.startRound(0, &evs)
	return s, evs, nil
}

func ev(to int, e *pb.Event) engine.Event { return engine.Event{To: to, Payload: e} }

// startRound deals round s.round+1 with first to play.
func (s *State) startRound(first int, evs *[]engine.Event) {
	s.round++
	s.phase = phaseTurn
	s.cur = first
	s.lastPlayer = first
	g := [3]uint8{cGold, cCoalNW, cCoalNE}
	shuffle(s, g[:])
	s.goals = g
	s.b.reset(g)
	all := deck(s.classic)
	shuffle(s, all)
	hand := 6
	s.removed = s.removed[:0]
	if s.classic {
		hand = classicRoles[s.n][2]
	} else {
		s.removed = append(s.removed, all[:RemovedCards]...)
		all = all[RemovedCards:]
	}
	for i := range s.n {
		s.hands[i] = append(s.hands[i][:0], all[:hand]...)
		all = all[hand:]
		s.front[i] = 0
		s.theftAt[i] = 0
		s.mapped[i] = 0
	}
	clear(s.seen)
	s.seq = 0
	s.pile = append(s.pile[:0], all...)
	s.spent = s.spent[:0]
	var roles []uint8
	if s.classic {
		t := classicRoles[s.n]
		for range t[0] {
			roles = append(roles, roleSaboteur)
		}
		for range t[1] {
			roles = append(roles, roleDigger)
		}
	} else {
		roles = slices.Clone(s2Roles)
	}
	shuffle(s, roles)
	copy(s.roles, roles[:s.n])
	s.aside = append(s.aside[:0], roles[s.n:]...)
	s.roleOut = s.roleOut[:0]
	*evs = append(*evs, ev(engine.Public, &pb.Event{Kind: &pb.Event_RoundStarted{RoundStarted: &pb.RoundStarted{
		Round: uint32(s.round), FirstSeat: uint32(first), DrawPile: uint32(len(s.pile)), HandSize: uint32(hand)}}}))
	for i := range s.n {
		*evs = append(*evs, ev(i, &pb.Event{Kind: &pb.Event_RoleDealt{RoleDealt: &pb.RoleDealt{Role: pb.Role(s.roles[i])}}}))
		*evs = append(*evs, ev(i, &pb.Event{Kind: &pb.Event_HandDealt{HandDealt: &pb.HandDealt{Cards: cards(s.hands[i])}}}))
	}
}

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

// Deadline implements engine.Game.
func (Game) Deadline(s *State) (time.Time, bool) {
	if s.turnTime <= 0 || s.over {
		return time.Time{}, false
	}
	return time.Unix(0, s.lastAt+s.turnTime).UTC(), true
}

// Timeout implements engine.Game: a seat whose time runs out discards its lowest card (a pass); a
// gold picker takes the largest card; a thief robs the richest other seat.
func (g Game) Timeout(s *State, at time.Time) ([]engine.Event, error) {
	d, ok := g.Deadline(s)
	if !ok {
		return nil, engine.Refuse(engine.CodeNoDeadline, "nothing waits on time")
	}
	if at.Before(d) {
		return nil, engine.Refuse(engine.CodeTooEarly, "the deadline is %v", d)
	}
	a := s.timeoutAction()
	var evs []engine.Event
	s.exec(s.cur, a, &evs)
	s.lastAt = at.UnixNano()
	return evs, nil
}

func (s *State) timeoutAction() Action {
	switch s.phase {
	case phasePickGold:
		return Action{Kind: KindPick, Target: slices.Max(s.offer)}
	case phaseTheft:
		return Action{Kind: KindSteal, Target: uint8(s.richestVictim(s.cur))}
	}
	return Action{Kind: KindDiscard, N: 1, Cards: [3]uint8{slices.Min(s.hands[s.cur])}}
}

// richestVictim returns the seat with most nuggets other than thief (first clockwise on ties), or -1.
func (s *State) richestVictim(thief int) int {
	best := -1
	for k := 1; k < s.n; k++ {
		v := (thief + k) % s.n
		if s.nuggets[v] > 0 && (best < 0 || s.nuggets[v] > s.nuggets[best]) {
			best = v
		}
	}
	return best
}

// Outcome implements engine.Game.
func (Game) Outcome(s *State) (*gamev1.Outcome, bool) {
	if !s.over {
		return nil, false
	}
	out := &gamev1.Outcome{}
	best := slices.Max(s.nuggets)
	var top []int
	for i, v := range s.nuggets {
		rank := 1
		for _, w := range s.nuggets {
			if w > v {
				rank++
			}
		}
		out.Results = append(out.Results, &gamev1.SeatResult{Seat: uint32(i), Score: int64(v), Rank: uint32(rank), Winner: v == best})
		if v == best {
			top = append(top, i)
		}
	}
	if len(top) == 1 {
		out.Summary = fmt.Sprintf("seat %d wins with %d nuggets", top[0], best)
	} else {
		out.Summary = fmt.Sprintf("seats %v share the win with %d nuggets", top, best)
	}
	return out, true
}

// Clone implements engine.Game.
func (Game) Clone(s *State) *State { return s.clone() }

// View implements engine.Game.
func (Game) View(s *State, viewer int) proto.Message { return s.view(viewer) }
