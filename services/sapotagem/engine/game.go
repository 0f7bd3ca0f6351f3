package engine

import (
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Codes of refused actions (stable API), besides the kit's shared ones.
const (
	CodeMustFollowColour  = "MUST_FOLLOW_COLOUR"
	CodeNoJumpsLeft       = "NO_JUMPS_LEFT"
	CodeJumpsNotAllowed   = "JUMPS_NOT_ALLOWED"
	CodeStarterMustPlay   = "STARTER_MUST_PLAY"
	CodeCardNotInHand     = "CARD_NOT_IN_HAND"
	CodeCardNotInArea     = "CARD_NOT_IN_AREA"
	CodeAreaCardRequired  = "AREA_CARD_REQUIRED"
	CodeNotABomb          = "NOT_A_BOMB"
	CodeFugitiveRequired  = "FUGITIVE_REQUIRED"
	CodeNotAFugitive      = "NOT_A_FUGITIVE"
	CodeOptionNotInPlay   = "OPTION_NOT_IN_PLAY"
	CodeBadTarget         = "BAD_TARGET"
	CodeWrongPhase        = "WRONG_PHASE"
	CodeCardNotOffered    = "CARD_NOT_OFFERED"
	CodeCannotDecline     = "CANNOT_DECLINE"
	CodeAlreadyChosen     = "ALREADY_CHOSEN"
	CodeBadCard           = "BAD_CARD"
	CodeBadColour         = "BAD_COLOUR"
	CodeSeatMustPassRound = "NOTHING_TO_PLAY"
)

// Kind is an action's kind.
type Kind uint8

const (
	KindJump Kind = iota + 1
	KindPlay
	KindPick
	KindDecline
	KindChooseTrump
)

// Action is the engine's action: a small value. Unused card fields are -1 (use the constructors).
type Action struct {
	Kind Kind
	// Card: the card played or picked; the play-area card of a jump (Negotiating Frogs); the colour
	// (0-3) of ChooseTrump.
	Card int8
	// Bomb: a jump's remote-control bomb.
	Bomb int8
	// Fugitive: a jump's fugitive.
	Fugitive int8
	// Target: a planted card's receiver.
	Target int8
}

// Jump is a plain jump.
func Jump() Action { return Action{Kind: KindJump, Card: -1, Bomb: -1, Fugitive: -1, Target: -1} }

// Play plays card c from hand.
func Play(c int8) Action { return Action{Kind: KindPlay, Card: c, Bomb: -1, Fugitive: -1, Target: -1} }

// PlayTo plants card c in front of seat t.
func PlayTo(c, t int8) Action { a := Play(c); a.Target = t; return a }

// Pick picks card c.
func Pick(c int8) Action { return Action{Kind: KindPick, Card: c, Bomb: -1, Fugitive: -1, Target: -1} }

// Decline declines an optional choice.
func Decline() Action { return Action{Kind: KindDecline, Card: -1, Bomb: -1, Fugitive: -1, Target: -1} }

// ChooseTrump names trump colour col (0-3).
func ChooseTrump(col int8) Action {
	return Action{Kind: KindChooseTrump, Card: col, Bomb: -1, Fugitive: -1, Target: -1}
}

// Card makes a card from colour (0 green, 1 yellow, 2 red, 3 blue) and rank (1-13).
func Card(colour, rank int8) int8 { return cardOf(colour, rank) }

// Game is Sapotagem's rules.
type Game struct{}

var _ engine.Game[*State, Action] = Game{}

// Info implements engine.Game.
func (Game) Info() engine.Info {
	return engine.Info{Name: "sapotagem", MinSeats: Data.MinSeats, MaxSeats: Data.MaxSeats,
		Options: &pb.Options{}, Action: &pb.Action{}, View: &pb.View{}}
}

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

// pub appends a public event; evs is nil in quiet playouts (bots' rollouts), which keep no events.
func pub(evs *[]engine.Event, e *pb.Event) {
	if evs == nil {
		return
	}
	*evs = append(*evs, engine.Event{To: engine.Public, Payload: e})
}

// roundStartedEvent and roundEndedEvent hold an event with its wrapper, payload and cards in one
// allocation: they come every round.
type roundStartedEvent struct {
	e           pb.Event
	w           pb.Event_RoundStarted
	rs          pb.RoundStarted
	trump, next pb.Card
}

type roundEndedEvent struct {
	e      pb.Event
	w      pb.Event_RoundEnded
	re     pb.RoundEnded
	card   pb.Card
	winner uint32
}

// setCard fills a card message in place and returns it.
func setCard(m *pb.Card, c int8) *pb.Card {
	m.Colour, m.Rank, m.Faction = colourPB(colourOf(c)), uint32(rankOf(c)), pb.Faction(factionOf(c)+1)
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

// canJump reports whether seat may jump now (markers aside from the action's extras).
func (s *State) canJump(seat int8) bool {
	if s.Markers[seat] == 0 || s.noJumps() {
		return false
	}
	hand := s.Hands[seat]
	if s.on(vCostlyAbsence) && hand == 0 {
		return false // an empty hand passes without spending a marker
	}
	if s.on(vSpyInitiative) && seat == s.Starter && hand != 0 {
		return false
	}
	return true
}

func (s *State) canAct(seat int8) bool { return s.Hands[seat] != 0 || s.canJump(seat) }

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
	rex := &roundEndedEvent{}
	re := &rex.re
	re.Round = uint32(s.Round)
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

// check validates an action without changing anything.
func (s *State) check(seat int, a Action) *engine.Violation {
	if s.Phase == PhaseOver {
		return engine.Refuse(engine.CodeGameOver, "the game is over")
	}
	if seat < 0 || seat >= int(s.N) {
		return engine.Invalid("seat", engine.CodeBadSeat, "no seat %d at a %d-player table", seat, s.N)
	}
	st := int8(seat)
	if s.Phase == PhaseSleeve {
		if a.Kind != KindPick {
			return engine.Refuse(CodeWrongPhase, "every player first chooses a card for the trump deck")
		}
		if s.Sleeve[st] >= 0 {
			return engine.Refuse(CodeAlreadyChosen, "you have already chosen your card")
		}
		if !inSet(s.Hands[st], a.Card) {
			return engine.Refuse(CodeCardNotInHand, "that card is not in your hand")
		}
		return nil
	}
	if st != s.Turn {
		return engine.Refuse(engine.CodeNotYourTurn, "it is seat %d's turn", s.Turn)
	}
	switch s.Phase {
	case PhasePlay:
		switch a.Kind {
		case KindJump:
			return s.checkJump(st, a)
		case KindPlay:
			return s.checkPlay(st, a)
		}
		return engine.Refuse(CodeWrongPhase, "jump or play a card")
	case PhasePick, PhaseHelp, PhaseHiddenPick:
		if a.Kind != KindPick {
			return engine.Refuse(CodeWrongPhase, "pick a card")
		}
		if !inSet(s.offer(), a.Card) {
			return engine.Refuse(CodeCardNotOffered, "that card is not one you may take")
		}
	case PhaseTakeBack:
		switch a.Kind {
		case KindDecline:
			return nil
		case KindPick:
			if !inSet(s.offer(), a.Card) {
				return engine.Refuse(CodeCardNotOffered, "you may take back only a card won this round")
			}
			return nil
		}
		return engine.Refuse(CodeWrongPhase, "take a won card back into your hand, or decline")
	case PhaseChooseTrump:
		if a.Kind != KindChooseTrump {
			return engine.Refuse(CodeWrongPhase, "choose the next trump colour")
		}
		if a.Card < 0 || a.Card > 3 {
			return engine.Invalid("action.choose_trump.colour", CodeBadColour, "no such colour")
		}
	}
	if a.Kind == KindDecline {
		return engine.Refuse(CodeCannotDecline, "this choice cannot be declined")
	}
	return nil
}

// offer is the set of cards a pick may take in the current phase.
func (s *State) offer() uint64 {
	switch s.Phase {
	case PhasePick:
		if s.on(vUnderArrest) {
			return s.OpenPile
		}
		return s.Revealed
	case PhaseHelp:
		return s.Discard
	case PhaseHiddenPick:
		return s.Hidden
	case PhaseTakeBack:
		return s.Won & s.Areas[s.areaOf(s.Turn)]
	}
	return 0
}

func inSet(m uint64, c int8) bool { return c >= 0 && c < numCards && m&bit(c) != 0 }

func (s *State) checkJump(seat int8, a Action) *engine.Violation {
	switch {
	case s.noJumps():
		return engine.Refuse(CodeJumpsNotAllowed, "this table plays without jumps")
	case s.Markers[seat] == 0:
		return engine.Refuse(CodeNoJumpsLeft, "you have no jump markers left")
	case s.on(vSpyInitiative) && seat == s.Starter && s.Hands[seat] != 0:
		return engine.Refuse(CodeStarterMustPlay, "the starting player may not jump")
	case !s.canJump(seat):
		return engine.Refuse(CodeJumpsNotAllowed, "you cannot jump now")
	}
	area := s.Areas[s.areaOf(seat)]
	if s.on(vNegotiatingFrogs) && area != 0 {
		if a.Card < 0 {
			return engine.Refuse(CodeAreaCardRequired, "a jump plays a card from your play area")
		}
		if !inSet(area, a.Card) {
			return engine.Refuse(CodeCardNotInArea, "that card is not in your play area")
		}
		if !inSet(follow(area, s.Lead), a.Card) {
			return engine.Refuse(CodeMustFollowColour, "follow the lead colour with your play-area cards")
		}
	} else if a.Card >= 0 {
		return engine.Refuse(CodeOptionNotInPlay, "a jump plays no play-area card here")
	}
	if a.Bomb >= 0 {
		switch {
		case !s.on(vRemoteBomb):
			return engine.Refuse(CodeOptionNotInPlay, "remote-control bombs are not in play")
		case bombMask&bit(a.Bomb) == 0:
			return engine.Refuse(CodeNotABomb, "only a bomb can be added on a jump")
		case !inSet(s.Hands[seat], a.Bomb):
			return engine.Refuse(CodeCardNotInHand, "that bomb is not in your hand")
		}
	}
	if s.on(vFugitiveFrogs) && s.Fugitives != 0 {
		if a.Fugitive < 0 {
			return engine.Refuse(CodeFugitiveRequired, "a jump takes one of the fugitives")
		}
		if !inSet(s.Fugitives, a.Fugitive) {
			return engine.Refuse(CodeNotAFugitive, "that card is not a fugitive")
		}
	} else if a.Fugitive >= 0 {
		return engine.Refuse(CodeOptionNotInPlay, "there is no fugitive to take")
	}
	return nil
}

func (s *State) checkPlay(seat int8, a Action) *engine.Violation {
	hand := s.Hands[seat]
	if !inSet(hand, a.Card) {
		return engine.Refuse(CodeCardNotInHand, "that card is not in your hand")
	}
	if !inSet(follow(hand, s.Lead), a.Card) {
		return engine.Refuse(CodeMustFollowColour, "you must follow the lead colour")
	}
	if !s.planting() {
		if a.Target >= 0 {
			return engine.Refuse(CodeOptionNotInPlay, "cards are not planted at this table")
		}
		return nil
	}
	if a.Target >= 0 && s.targets(seat)&(1<<a.Target) == 0 {
		return engine.Refuse(CodeBadTarget, "you cannot plant a card in front of seat %d", a.Target)
	}
	if a.Target < 0 && s.on(vPlantingMore) {
		return engine.Refuse(CodeBadTarget, "name the opponent you plant the card for")
	}
	return nil
}

// targets is the set (bit per seat) of seats seat may plant for.
func (s *State) targets(seat int8) uint8 {
	if s.on(vPlanting) {
		return 1 << ((seat + 1) % s.N)
	}
	var all uint8 = 1<<s.N - 1
	open := all &^ s.Received &^ (1 << seat)
	if rest := open &^ (1 << s.Starter); rest != 0 {
		return rest
	}
	return open
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

// Legal implements engine.Game. Plays come first, lowest card first; then jumps.
func (Game) Legal(s *State, seat int, buf []Action) []Action {
	if s.Phase == PhaseOver || seat < 0 || seat >= int(s.N) {
		return buf
	}
	st := int8(seat)
	switch s.Phase {
	case PhaseSleeve:
		if s.Sleeve[st] < 0 {
			eachCard(s.Hands[st], func(c int8) { buf = append(buf, Pick(c)) })
		}
		return buf
	}
	if st != s.Turn {
		return buf
	}
	switch s.Phase {
	case PhasePlay:
		return s.legalPlay(st, buf)
	case PhaseTakeBack:
		buf = append(buf, Decline())
		eachCard(s.offer(), func(c int8) { buf = append(buf, Pick(c)) })
	case PhaseChooseTrump:
		for col := int8(0); col < 4; col++ {
			buf = append(buf, ChooseTrump(col))
		}
	default:
		eachCard(s.offer(), func(c int8) { buf = append(buf, Pick(c)) })
	}
	return buf
}

func (s *State) legalPlay(seat int8, buf []Action) []Action {
	playable := follow(s.Hands[seat], s.Lead)
	if s.planting() {
		tg := s.targets(seat)
		for m := playable; m != 0; m &= m - 1 {
			c := int8(trailing(m))
			for t := int8(0); t < s.N; t++ {
				if tg&(1<<t) != 0 {
					buf = append(buf, PlayTo(c, t))
				}
			}
		}
		return buf
	}
	for m := playable; m != 0; m &= m - 1 {
		buf = append(buf, Play(int8(trailing(m))))
	}
	if !s.canJump(seat) {
		return buf
	}
	areaCards := uint64(0)
	if s.on(vNegotiatingFrogs) {
		areaCards = follow(s.Areas[s.areaOf(seat)], s.Lead)
	}
	bombs := uint64(0)
	if s.on(vRemoteBomb) {
		bombs = s.Hands[seat] & bombMask
	}
	fugitives := uint64(0)
	if s.on(vFugitiveFrogs) {
		fugitives = s.Fugitives
	}
	if areaCards|bombs|fugitives == 0 {
		return append(buf, Jump())
	}
	// Each optional extra ranges over "none" (when allowed) and its cards.
	forEach := func(m uint64, optional bool, f func(c int8)) {
		if m == 0 || optional {
			f(-1)
		}
		eachCard(m, f)
	}
	forEach(areaCards, false, func(ac int8) {
		forEach(bombs, true, func(b int8) {
			forEach(fugitives, false, func(fg int8) {
				j := Jump()
				j.Card, j.Bomb, j.Fugitive = ac, b, fg
				buf = append(buf, j)
			})
		})
	})
	return buf
}

// Deadline implements engine.Game.
func (Game) Deadline(s *State) (time.Time, bool) {
	if s.TurnTime <= 0 || s.Phase == PhaseOver {
		return time.Time{}, false
	}
	return time.Unix(0, s.LastAt+s.TurnTime).UTC(), true
}

// Timeout implements engine.Game: every seat waited on gets its automatic move (timeoutAction).
func (g Game) Timeout(s *State, at time.Time) ([]engine.Event, error) {
	d, ok := g.Deadline(s)
	if !ok {
		return nil, engine.Refuse(engine.CodeNoDeadline, "nothing waits on time")
	}
	if at.Before(d) {
		return nil, engine.Refuse(engine.CodeTooEarly, "the deadline has not passed")
	}
	var evs []engine.Event
	if s.Phase == PhaseSleeve {
		for seat := int8(0); seat < s.N; seat++ {
			if s.Sleeve[seat] < 0 {
				s.apply(seat, s.timeoutAction(seat), &evs)
			}
		}
	} else {
		s.apply(s.Turn, s.timeoutAction(s.Turn), &evs)
	}
	s.LastAt = at.UnixNano()
	return evs, nil
}

// timeoutAction is the automatic move: decline an optional choice; otherwise the lowest legal
// card (played, planted or picked) or, with no card to play, the first legal jump; the first
// colour when choosing a trump.
func (s *State) timeoutAction(seat int8) Action {
	legal := Game{}.Legal(s, int(seat), make([]Action, 0, 16))
	best := legal[0]
	if best.Kind == KindDecline || best.Kind == KindChooseTrump {
		return best
	}
	for _, a := range legal {
		if (a.Kind == KindPlay || a.Kind == KindPick) && (best.Kind == KindJump || rankOf(a.Card) < rankOf(best.Card)) {
			best = a
		}
	}
	return best
}

// Outcome implements engine.Game.
func (Game) Outcome(s *State) (*gamev1.Outcome, bool) {
	if s.Phase != PhaseOver {
		return nil, false
	}
	return s.score().outcome(s), true
}

// Clone implements engine.Game.
func (Game) Clone(s *State) *State { c := *s; return &c }
