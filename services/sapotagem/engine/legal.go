package engine

import (
	"cardroom.dev/services/kit/engine"
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
