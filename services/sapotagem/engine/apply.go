package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// skipPasses passes for every seat, from Turn on, that can do nothing (ruling G1).
func (s *State) skipPasses(evs *[]engine.Event) {
	for s.Phase == PhasePlay && !s.canAct(s.Turn) {
		if evs != nil {
			pub(evs, &pb.Event{Kind: &pb.Event_Passed{Passed: &pb.Passed{Seat: uint32(s.Turn)}}})
		}
		s.Acted++
		if s.Acted == s.N {
			s.resolve(evs)
			return
		}
		s.Turn = (s.Turn + 1) % s.N
	}
}

// nextTurn moves on after the Turn seat acted; target is the receiver of a planted card.
func (s *State) nextTurn(target int8, evs *[]engine.Event) {
	s.Acted++
	if s.Acted == s.N {
		s.resolve(evs)
		return
	}
	if s.on(vPlantingMore) {
		s.Turn = target
	} else {
		s.Turn = (s.Turn + 1) % s.N
	}
	s.skipPasses(evs)
}

// winningPlay is the index in Table of the card that wins the round, or -1.
func (s *State) winningPlay() int {
	best, bestKey := -1, 0
	for i := 0; i < int(s.NPlayed); i++ {
		p := s.Table[i]
		if p.Source == srcRemote {
			continue
		}
		col, key := colourOf(p.Card), 0
		switch {
		case col == s.TrumpColour:
			key = 100 + int(rankOf(p.Card))
		case col == s.Lead:
			key = int(rankOf(p.Card))
		}
		if key > bestKey {
			best, bestKey = i, key
		}
	}
	return best
}

// weakest is the seat that played the round's weakest card (variant 23), or -1.
func (s *State) weakest() int8 {
	seat, bestTier, bestRank := int8(-1), 3, int8(99)
	for i := 0; i < int(s.NPlayed); i++ {
		p := s.Table[i]
		if p.Source == srcRemote {
			continue
		}
		col, tier := colourOf(p.Card), 0
		switch {
		case col == s.Lead:
			tier = 1
		case col == s.TrumpColour:
			tier = 2
		}
		if r := rankOf(p.Card); tier < bestTier || (tier == bestTier && r < bestRank) {
			seat, bestTier, bestRank = p.Seat, tier, r
		}
	}
	return seat
}

// resolve ends the round: the winner captures, or nobody does (ruling W1).
func (s *State) resolve(evs *[]engine.Event) {
	var played uint64
	for i := 0; i < int(s.NPlayed); i++ {
		played |= bit(s.Table[i].Card)
	}
	if s.weakFrog() {
		s.Chooser = s.weakest()
	}
	quiet := evs == nil
	var rex *roundEndedEvent
	var re *pb.RoundEnded
	if !quiet {
		// Quiet applies (the bots' playouts) allocate nothing.
		rex = &roundEndedEvent{}
		re = &rex.re
		re.Round = uint32(s.Round)
	}
	lastOfPile := s.on(vFourPiles) && (s.Round-1)%Data.PileSize == Data.PileSize-1
	var discard uint64
	best := s.winningPlay()
	if best < 0 {
		s.Winner = -1
		discard |= played
		if s.TrumpCard >= 0 && (s.pileScheme() || s.on(vBlindPile) || lastOfPile) {
			discard |= bit(s.TrumpCard)
			s.TrumpCard = -1
		}
	} else {
		w := s.Table[best].Owner
		s.Winner, s.HasWinner, s.Starter = w, true, w
		if !quiet {
			rex.winner = uint32(w)
			re.Winner = &rex.winner
			re.WinningCard = setCard(&rex.card, s.Table[best].Card)
		}
		capture := played
		if s.TrumpCard >= 0 {
			switch {
			case s.on(vAnonymousHelp):
				discard |= bit(s.TrumpCard)
				s.TrumpCard = -1
			case s.pileScheme() || lastOfPile:
				capture |= bit(s.TrumpCard)
				s.TrumpCard = -1
			case s.on(vBlindPile):
				// The trump is shuffled back into its pile and the winner draws one at random.
				s.Group[s.GroupLen] = s.TrumpCard
				s.GroupLen++
				r := s.rand()
				r.Shuffle(int(s.GroupLen), func(i, j int) { s.Group[i], s.Group[j] = s.Group[j], s.Group[i] })
				s.GroupLen--
				c := s.Group[s.GroupLen]
				s.Group[s.GroupLen] = -1
				s.TrumpCard = -1
				capture |= bit(c)
				pub(evs, &pb.Event{Kind: &pb.Event_CardTaken{CardTaken: &pb.CardTaken{Seat: uint32(w), Card: cardPB(c), Source: pb.TakeSource_TAKE_SOURCE_BLIND_PILE}}})
			}
		}
		s.addToArea(w, capture)
		s.Won = capture
		if !quiet {
			re.Captured = cardsPB(capture)
		}
	}
	if lastOfPile {
		discard |= s.Revealed
		s.Revealed = 0
		if s.TrumpCard >= 0 {
			discard |= bit(s.TrumpCard)
			s.TrumpCard = -1
		}
	}
	s.Discard |= discard
	if discard != 0 && !quiet {
		re.Discarded = cardsPB(discard)
	}
	s.NPlayed = 0
	if !quiet {
		rex.w.RoundEnded = re
		rex.e.Kind = &rex.w
		pub(evs, &rex.e)
	}
	s.proceed(stagePick, evs)
}

// factionMask[f] is every card of faction f.
var factionMask = func() (m [6]uint64) {
	for c := int8(0); c < numCards; c++ {
		if f := factionOf(c); f >= 0 {
			m[f] |= bit(c)
		}
	}
	return m
}()

// addToArea puts cards into seat's play area; Anonymous Help counts the fourth cards it brings.
func (s *State) addToArea(seat int8, m uint64) {
	a := s.areaOf(seat)
	if s.on(vAnonymousHelp) {
		for f := range factionMask {
			before := popcount(s.Areas[a] & factionMask[f])
			if before < 4 && before+popcount(m&factionMask[f]) >= 4 {
				s.HelpPending[seat]++
			}
		}
	}
	s.Areas[a] |= m
}

// The choices that may follow a round, in order.
const (
	stagePick = iota
	stageHelp
	stageTakeBack
	stageTrump
	stageHidden
	stageNext
)

// proceed walks the after-round stages from st, stopping at the first that needs a choice.
func (s *State) proceed(st int, evs *[]engine.Event) {
	for ; ; st++ {
		switch st {
		case stagePick:
			if s.Winner >= 0 && ((s.on(vUnderArrest) && s.OpenPile != 0) ||
				(s.on(vFourPiles) && s.Revealed != 0)) {
				s.Phase, s.Turn = PhasePick, s.Winner
				return
			}
		case stageHelp:
			if !s.on(vAnonymousHelp) {
				continue
			}
			if s.Discard == 0 {
				s.HelpPending = [6]int8{}
				continue
			}
			from := s.Starter
			for k := int8(0); k < s.N; k++ {
				if seat := (from + k) % s.N; s.HelpPending[seat] > 0 {
					s.Phase, s.Turn = PhaseHelp, seat
					return
				}
			}
		case stageTakeBack:
			if s.on(vFrogBack) && s.Winner >= 0 && s.Markers[s.Winner] > 0 && s.Won&s.Areas[s.areaOf(s.Winner)] != 0 {
				s.Phase, s.Turn = PhaseTakeBack, s.Winner
				return
			}
		case stageTrump:
			if !s.weakFrog() || s.gameOver() {
				continue
			}
			if s.Chooser >= 0 {
				s.Phase, s.Turn = PhaseChooseTrump, s.Chooser
				return
			}
			s.NextColour = int8(s.rand().IntN(4))
			pub(evs, &pb.Event{Kind: &pb.Event_TrumpChosen{TrumpChosen: &pb.TrumpChosen{Colour: colourPB(s.NextColour)}}})
		case stageHidden:
			if s.on(vHidingTheGame) && !s.gameOver() && s.Chooser >= 0 && s.Hidden != 0 {
				s.Phase, s.Turn = PhaseHiddenPick, s.Chooser
				if evs != nil {
					*evs = append(*evs, engine.Event{To: int(s.Chooser), Payload: &pb.Event{Kind: &pb.Event_HiddenPileShown{
						HiddenPileShown: &pb.HiddenPileShown{Seat: uint32(s.Chooser), Cards: cardsPB(s.Hidden)}}}})
				}
				return
			}
		default:
			if s.gameOver() {
				s.finish(evs)
			} else {
				s.startRound(evs)
			}
			return
		}
	}
}

func (s *State) finish(evs *[]engine.Event) {
	s.Phase = PhaseOver
	if evs == nil {
		return
	}
	res := s.score()
	gov := &pb.GameOver{Outcome: res.outcome(s)}
	for seat := int8(0); seat < s.N; seat++ {
		gov.Scores = append(gov.Scores, &pb.SeatScore{Seat: uint32(seat), AreaPoints: int64(res.area[seat]),
			Score: int64(res.unit[seat]), Cards: uint32(res.cards[seat])})
	}
	pub(evs, &pb.Event{Kind: &pb.Event_GameOver{GameOver: gov}})
}

// Apply implements engine.Game.
func (Game) Apply(s *State, m engine.Move[Action]) ([]engine.Event, error) {
	if v := s.check(m.Seat, m.Action); v != nil {
		return nil, v
	}
	evs := make([]engine.Event, 0, 4)
	s.apply(int8(m.Seat), m.Action, &evs)
	s.LastAt = m.At.UnixNano()
	return evs, nil
}

func (s *State) apply(seat int8, a Action, evs *[]engine.Event) {
	switch s.Phase {
	case PhaseSleeve:
		s.Hands[seat] &^= bit(a.Card)
		s.Sleeve[seat] = a.Card
		if evs != nil {
			*evs = append(*evs,
				engine.Event{To: engine.Public, Payload: &pb.Event{Kind: &pb.Event_SleeveChosen{SleeveChosen: &pb.SleeveChosen{Seat: uint32(seat)}}}},
				engine.Event{To: int(seat), Payload: &pb.Event{Kind: &pb.Event_SleeveChosen{SleeveChosen: &pb.SleeveChosen{Seat: uint32(seat), Card: cardPB(a.Card)}}}})
		}
		for i := int8(0); i < s.N; i++ {
			if s.Sleeve[i] < 0 {
				return
			}
		}
		copy(s.SleeveDeck[:], s.Sleeve[:s.N])
		r := s.rand()
		r.Shuffle(int(s.N), func(i, j int) { s.SleeveDeck[i], s.SleeveDeck[j] = s.SleeveDeck[j], s.SleeveDeck[i] })
		pub(evs, &pb.Event{Kind: &pb.Event_SleeveRevealed{SleeveRevealed: &pb.SleeveRevealed{Cards: seqPB(s.SleeveDeck[:s.N])}}})
		s.startRound(evs)
	case PhasePlay:
		if a.Kind == KindJump {
			s.jump(seat, a, evs)
		} else {
			s.play(seat, a, evs)
		}
	case PhasePick:
		if s.on(vUnderArrest) {
			s.OpenPile &^= bit(a.Card)
			s.taken(seat, a.Card, pb.TakeSource_TAKE_SOURCE_OPEN_PILE, evs)
		} else {
			s.Revealed &^= bit(a.Card)
			s.taken(seat, a.Card, pb.TakeSource_TAKE_SOURCE_REVEALED, evs)
		}
		s.Won |= bit(a.Card)
		s.proceed(stageHelp, evs)
	case PhaseHelp:
		s.Discard &^= bit(a.Card)
		s.HelpPending[seat]--
		s.taken(seat, a.Card, pb.TakeSource_TAKE_SOURCE_DISCARD, evs)
		s.proceed(stageHelp, evs)
	case PhaseTakeBack:
		if a.Kind == KindPick {
			s.Areas[s.areaOf(seat)] &^= bit(a.Card)
			s.Hands[seat] |= bit(a.Card)
			s.Voids[seat] &^= 1 << colourOf(a.Card)
			s.Markers[seat]--
			pub(evs, &pb.Event{Kind: &pb.Event_CardTaken{CardTaken: &pb.CardTaken{Seat: uint32(seat), Card: cardPB(a.Card), Source: pb.TakeSource_TAKE_SOURCE_TAKE_BACK}}})
		}
		s.proceed(stageTrump, evs)
	case PhaseChooseTrump:
		s.NextColour = a.Card
		pub(evs, &pb.Event{Kind: &pb.Event_TrumpChosen{TrumpChosen: &pb.TrumpChosen{Seat: proto.Uint32(uint32(seat)), Colour: colourPB(a.Card)}}})
		s.proceed(stageHidden, evs)
	case PhaseHiddenPick:
		s.Hidden &^= bit(a.Card)
		s.taken(seat, a.Card, pb.TakeSource_TAKE_SOURCE_HIDDEN_PILE, evs)
		s.proceed(stageNext, evs)
	}
}

func (s *State) taken(seat, c int8, src pb.TakeSource, evs *[]engine.Event) {
	s.addToArea(seat, bit(c))
	pub(evs, &pb.Event{Kind: &pb.Event_CardTaken{CardTaken: &pb.CardTaken{Seat: uint32(seat), Card: cardPB(c), Source: src}}})
}

func (s *State) push(p play) {
	s.Table[s.NPlayed] = p
	s.NPlayed++
	if s.Lead < 0 && p.Source != srcRemote {
		s.Lead = colourOf(p.Card)
	}
}

func (s *State) jump(seat int8, a Action, evs *[]engine.Event) {
	s.Markers[seat]--
	s.JumpsUsed[seat]++
	quiet := evs == nil
	var j *pb.Jumped
	var x *struct {
		e pb.Event
		w pb.Event_Jumped
		j pb.Jumped
	}
	if !quiet {
		// The event, its oneof wrapper and payload in one allocation.
		x = &struct {
			e pb.Event
			w pb.Event_Jumped
			j pb.Jumped
		}{}
		j = &x.j
		j.Seat, j.MarkersLeft = uint32(seat), uint32(s.Markers[seat])
	}
	if a.Card >= 0 {
		s.Areas[s.areaOf(seat)] &^= bit(a.Card)
		s.push(play{Seat: seat, Card: a.Card, Owner: seat, Source: srcArea})
		if !quiet {
			j.AreaCard = cardPB(a.Card)
		}
	}
	if a.Bomb >= 0 {
		s.Hands[seat] &^= bit(a.Bomb)
		s.push(play{Seat: seat, Card: a.Bomb, Owner: -1, Source: srcRemote})
		if !quiet {
			j.Bomb = cardPB(a.Bomb)
		}
	}
	if a.Fugitive >= 0 {
		s.Fugitives &^= bit(a.Fugitive)
		s.addToArea(seat, bit(a.Fugitive))
		if !quiet {
			j.Fugitive = cardPB(a.Fugitive)
		}
	}
	if !quiet {
		x.w.Jumped = j
		x.e.Kind = &x.w
		pub(evs, &x.e)
	}
	s.nextTurn(-1, evs)
}

func (s *State) play(seat int8, a Action, evs *[]engine.Event) {
	owner := seat
	if s.planting() {
		owner = a.Target
		if owner < 0 {
			owner = (seat + 1) % s.N
		}
		s.Received |= 1 << owner
	}
	if s.Lead >= 0 && colourOf(a.Card) != s.Lead {
		s.Voids[seat] |= 1 << s.Lead // not following shows the seat holds no lead colour
	}
	s.Hands[seat] &^= bit(a.Card)
	s.push(play{Seat: seat, Card: a.Card, Owner: owner, Source: srcHand})
	if evs != nil {
		// The event, its oneof wrapper, payload and card in one allocation (the hottest event).
		x := &struct {
			e pb.Event
			w pb.Event_CardPlayed
			p pb.CardPlayed
			c pb.Card
		}{}
		x.c.Colour, x.c.Rank, x.c.Faction = colourPB(colourOf(a.Card)), uint32(rankOf(a.Card)), pb.Faction(factionOf(a.Card)+1)
		x.p.Seat, x.p.Card, x.p.Owner = uint32(seat), &x.c, uint32(owner)
		x.w.CardPlayed = &x.p
		x.e.Kind = &x.w
		pub(evs, &x.e)
	}
	s.nextTurn(owner, evs)
}
