package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
)

// Setup implements engine.Game.
func (Game) Setup(cfg engine.Config) (*State, []engine.Event, error) {
	var opts *pb.Options
	if cfg.Options != nil {
		o, ok := cfg.Options.(*pb.Options)
		if !ok {
			return nil, nil, engine.Invalid("options", engine.CodeBadOptions, "options must be cardroom.sapotagem.v1.Options, not %s", cfg.Options.ProtoReflect().Descriptor().FullName())
		}
		opts = o
	}
	vars := variantsOf(opts)
	if v := CheckOptions(cfg.Seats, vars); v != nil {
		return nil, nil, v
	}
	s := &State{}
	s.rng.Seed(cfg.Seed, cfg.Seed^0x5a907a9e)
	r := s.rand()
	n := int8(cfg.Seats)
	s.N, s.Variants, s.TurnTime, s.LastAt = n, vars, int64(cfg.TurnTime), cfg.Start.UnixNano()
	s.TrumpCard, s.TrumpColour, s.GameColour, s.Lead, s.Winner, s.Chooser, s.NextColour = -1, -1, -1, -1, -1, -1, -1
	for i := range s.Sleeve {
		s.Sleeve[i], s.SleeveDeck[i] = -1, -1
	}
	for i := range s.Table {
		s.Table[i] = play{Seat: -1, Card: -1, Owner: -1}
	}
	for i := range s.Pile {
		s.Pile[i] = -1
	}
	for i := range s.Group {
		s.Group[i] = -1
	}
	var deck [numCards]int8
	for i := range deck {
		deck[i] = int8(i)
	}
	r.Shuffle(numCards, func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })

	var hand, markers int8
	pos := 0
	if s.on(vFrogsOnDuty) || s.on(vAceUpTheSleeve) || s.on(vCostlyAbsence) || s.planting() {
		hand = Data.DealAll[n]
		s.Rounds = hand
		switch {
		case s.on(vAceUpTheSleeve):
			s.Rounds = hand - 1
		case s.on(vCostlyAbsence):
			markers, s.Rounds = Data.CostlyMarkers[n], 0
		}
		if !s.on(vAceUpTheSleeve) {
			s.GameColour = int8(r.IntN(4))
		}
	} else {
		row := Data.Table[n]
		hand, markers, s.Rounds = row.hand, row.markers, row.rounds
		pile := deck[:row.rounds]
		pos = int(row.rounds)
		switch {
		case s.on(vUnderArrest):
			s.OpenPile = setOf(pile)
			s.GameColour = int8(r.IntN(4))
		case s.on(vFugitiveFrogs):
			k := row.rounds - Data.Fugitives
			s.PileLen = int8(copy(s.Pile[:], pile[:k]))
			s.Fugitives = setOf(pile[k:])
		case s.on(vWeakFrog):
			s.Removed = setOf(pile)
			s.NextColour = int8(r.IntN(4))
		case s.on(vHidingTheGame):
			s.Hidden = setOf(pile)
			s.NextColour = int8(r.IntN(4))
		default:
			s.PileLen = int8(copy(s.Pile[:], pile))
		}
	}
	for seat := int8(0); seat < n; seat++ {
		s.Hands[seat] = setOf(deck[pos : pos+int(hand)])
		pos += int(hand)
		s.Markers[seat] = markers
	}
	s.Removed |= setOf(deck[pos:])
	s.Starter = int8(r.IntN(int(n)))
	s.Turn = s.Starter

	gs := &pb.GameStarted{Seats: uint32(n), Rounds: uint32(s.Rounds), HandSize: uint32(hand),
		JumpMarkers: uint32(markers), StartingSeat: uint32(s.Starter), GameTrump: colourPB(s.GameColour),
		OpenPile: cardsPB(s.OpenPile), Fugitives: cardsPB(s.Fugitives), Removed: uint32(popcount(s.Removed))}
	if s.on(vOpenInformation) {
		gs.OpenPile = seqPB(s.Pile[:s.PileLen])
	}
	evs := []engine.Event{{To: engine.Public, Payload: &pb.Event{Kind: &pb.Event_GameStarted{GameStarted: gs}}}}
	for seat := int8(0); seat < n; seat++ {
		evs = append(evs, engine.Event{To: int(seat), Payload: &pb.Event{Kind: &pb.Event_HandDealt{
			HandDealt: &pb.HandDealt{Seat: uint32(seat), Cards: cardsPB(s.Hands[seat])}}}})
	}
	if s.on(vAceUpTheSleeve) {
		s.Phase = PhaseSleeve
	} else {
		s.startRound(&evs)
	}
	return s, evs, nil
}

func setOf(cards []int8) uint64 {
	var m uint64
	for _, c := range cards {
		m |= bit(c)
	}
	return m
}

// startRound begins the next round: its trump, then the first seat that can act.
func (s *State) startRound(evs *[]engine.Event) {
	s.Round++
	s.NPlayed, s.Lead, s.Acted, s.Received, s.Won = 0, -1, 0, 0, 0
	s.Turn, s.Phase, s.Winner = s.Starter, PhasePlay, -1
	quiet := evs == nil
	var rs *pb.RoundStarted
	var rsx *roundStartedEvent
	if !quiet {
		rsx = &roundStartedEvent{}
		rs = &rsx.rs
		rs.Round, rs.StartingSeat = uint32(s.Round), uint32(s.Starter)
	}
	switch {
	case s.pileScheme():
		s.TrumpCard, s.TrumpColour = -1, -1
		if s.PilePos < s.PileLen {
			s.TrumpCard = s.Pile[s.PilePos]
			s.PilePos++
			s.TrumpColour = colourOf(s.TrumpCard)
			if !quiet && !s.on(vClosedInformation) && s.PilePos < s.PileLen {
				rs.NextTrump = setCard(&rsx.next, s.Pile[s.PilePos])
			}
		}
	case s.on(vFourPiles):
		if (s.Round-1)%Data.PileSize == 0 {
			s.TrumpCard = s.Pile[s.PilePos]
			s.Revealed = setOf(s.Pile[s.PilePos+1 : s.PilePos+Data.PileSize])
			s.PilePos += Data.PileSize
			if !quiet {
				rs.Revealed = cardsPB(s.Revealed)
			}
		}
		s.TrumpColour = colourOf(s.TrumpCard)
	case s.on(vBlindPile):
		if s.GroupLen == 0 {
			s.GroupLen = int8(copy(s.Group[:], s.Pile[s.PilePos:s.PilePos+Data.PileSize]))
			s.PilePos += Data.PileSize
		}
		s.TrumpCard = s.Group[0]
		copy(s.Group[:], s.Group[1:s.GroupLen])
		s.GroupLen--
		s.Group[s.GroupLen] = -1
		s.TrumpColour = colourOf(s.TrumpCard)
	case s.on(vAceUpTheSleeve):
		if s.SleevePos == s.N {
			r := s.rand()
			r.Shuffle(int(s.N), func(i, j int) { s.SleeveDeck[i], s.SleeveDeck[j] = s.SleeveDeck[j], s.SleeveDeck[i] })
			s.SleevePos = 0
		}
		s.TrumpColour = colourOf(s.SleeveDeck[s.SleevePos])
		s.SleevePos++
	case s.weakFrog():
		s.TrumpColour = s.NextColour
	default:
		s.TrumpColour = s.GameColour
	}
	if quiet {
		s.skipPasses(evs)
		return
	}
	rs.Trump = colourPB(s.TrumpColour)
	if s.TrumpCard >= 0 {
		rs.TrumpCard = setCard(&rsx.trump, s.TrumpCard)
	} else if s.on(vAceUpTheSleeve) {
		rs.TrumpCard = cardPB(s.SleeveDeck[s.SleevePos-1])
	}
	rsx.w.RoundStarted = rs
	rsx.e.Kind = &rsx.w
	pub(evs, &rsx.e)
	s.skipPasses(evs)
}
