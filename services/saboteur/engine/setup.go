package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"math/rand/v2"
	"slices"
)

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
