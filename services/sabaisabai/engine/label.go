package engine

import (
	"strconv"
	"strings"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

var _ engine.Describer[*State, Action] = Game{}

// Labels count a row's slots from 1, from the left, as a person counts the cards in front of them
// (the API counts them from 0). A card is its rank, with a function card's function beside it
// ("11 (peek)"), "joker" or "the Ass Joker". An action's label is for the seat that may take it,
// so it names the cards that seat knows (its drawn card, the cards of its row it has seen) and
// says "unknown card" for the others.

// cardWords names a card number; 0 is a face-down card the reader does not know.
func cardWords(n uint32) string {
	switch {
	case n == 0:
		return "unknown card"
	case n == Joker:
		return "joker"
	case n == AssJoker:
		return "Ass Joker"
	case n >= Peek && n <= Switch:
		return strconv.Itoa(int(n)) + " (" + functionWords[n-Peek] + ")"
	case n > AssJoker:
		return "card " + strconv.Itoa(int(n))
	}
	return strconv.Itoa(int(n))
}

var functionWords = [4]string{"peek", "spy", "give", "switch"}

// aCard is a card number with its article: "a 7", "an 8", "an 11 (peek)", "the Ass Joker".
func aCard(n uint32) string {
	switch n {
	case AssJoker:
		return "the Ass Joker"
	case 8, 11:
		return "an " + cardWords(n)
	case 0:
		return "an unknown card"
	}
	return "a " + cardWords(n)
}

// cardOrNot is a card number's words, or "card" for a card the reader does not know.
func cardOrNot(n uint32) string {
	if n == 0 {
		return "card"
	}
	return cardWords(n)
}

// theCard is a card number with "the": "the 7", "the unknown card".
func theCard(n uint32) string {
	if n == AssJoker {
		return "the Ass Joker"
	}
	return "the " + cardWords(n)
}

// slotWords is slot i (from 0) as a label counts it: "slot 1" for i = 0.
func slotWords(i uint32) string { return "slot " + strconv.Itoa(int(i)+1) }

// slotsWords is several slots: "slots 1, 3 and 4".
func slotsWords(slots []uint32) string {
	if len(slots) == 1 {
		return slotWords(slots[0])
	}
	parts := make([]string, len(slots))
	for i, sl := range slots {
		parts[i] = strconv.Itoa(int(sl) + 1)
	}
	return "slots " + engine.AndList(parts)
}

// DescribeAction implements engine.Describer: the label AppendLabel writes.
func (g Game) DescribeAction(s *State, seat int, a Action) string {
	var buf [128]byte // on the stack: the label is the one allocation
	return string(g.AppendLabel(buf[:0], s, seat, a))
}

// AppendLabel implements engine.ActionAppender.
func (Game) AppendLabel(b []byte, s *State, seat int, a Action) []byte {
	me := uint8(seat)
	switch a.Kind {
	case KindDraw:
		return append(b, "draw a card"...)
	case KindPlay:
		if d := s.drawnNumber(); d != 0 {
			b = append(appendCardWords(append(b, "play the "...), d), " you drew"...)
			if isFunction(uint8(d)) {
				b = append(append(b, " and "...), functionWords[d-Peek]...)
			}
			return b
		}
		return append(b, "play the card you drew"...)
	case KindKeep:
		d := s.drawnNumber()
		b = appendCardWords(append(b, "keep the "...), d)
		b = appendSlot(append(b, " in "...), a.Slot)
		switch old := s.knownNumber(me, me, a.Slot); old {
		case AssJoker:
			b = appendCardWords(append(b, ": the Ass Joker there is shown and stays, the "...), d)
			return append(b, " is played"...)
		default:
			return append(append(append(b, ", discarding "...), theCard(old)...), " there"...)
		}
	case KindThrow:
		n := min(int(a.N), MaxThrow)
		slots := a.Slots[:n]
		if a.Owner == me {
			b = append(b, "throw your "...)
			if n == 1 {
				b = appendSlot(append(appendCardWords(b, s.knownNumber(me, me, a.Slots[0])), " in "...), a.Slots[0])
			} else {
				b = appendSlots(append(strconv.AppendInt(b, int64(n), 10), " cards in "...), slots)
			}
			return appendCardWords(append(b, " onto the "...), uint32(a.Top))
		}
		b = append(engine.AppendSeatRef(append(b, "throw "...), int(a.Owner)), "'s "...)
		if n == 1 {
			b = appendSlot(append(appendCardWords(b, s.knownNumber(me, a.Owner, a.Slots[0])), " in "...), a.Slots[0])
		} else {
			b = appendSlots(append(b, "cards in "...), slots)
		}
		b = appendCardWords(append(b, " onto the "...), uint32(a.Top))
		return append(b, " (then give them a card of yours)"...)
	case KindResolve:
		return append(b, s.resolveWords(me, a)...)
	case KindTouchNose:
		return append(b, "touch your nose"...)
	case KindCall:
		return append(b, "call sabai sabai"...)
	}
	return append(b, "nothing"...)
}

// appendCardWords appends cardWords(n).
func appendCardWords(b []byte, n uint32) []byte {
	switch {
	case n == 0:
		return append(b, "unknown card"...)
	case n == Joker:
		return append(b, "joker"...)
	case n == AssJoker:
		return append(b, "Ass Joker"...)
	case n >= Peek && n <= Switch:
		b = strconv.AppendUint(b, uint64(n), 10)
		return append(append(append(b, " ("...), functionWords[n-Peek]...), ')')
	case n > AssJoker:
		return strconv.AppendUint(append(b, "card "...), uint64(n), 10)
	}
	return strconv.AppendUint(b, uint64(n), 10)
}

// appendSlot appends slotWords(i).
func appendSlot(b []byte, i uint8) []byte {
	return strconv.AppendInt(append(b, "slot "...), int64(i)+1, 10)
}

// appendSlots appends slotsWords of slots: "slot 2", "slots 1, 3 and 4".
func appendSlots(b []byte, slots []uint8) []byte {
	if len(slots) == 1 {
		return appendSlot(b, slots[0])
	}
	b = append(b, "slots "...)
	for i, sl := range slots {
		switch {
		case i == 0:
		case i == len(slots)-1:
			b = append(b, " and "...)
		default:
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(sl)+1, 10)
	}
	return b
}

// drawnNumber is the number of the card the turn player holds (0 when none).
func (s *State) drawnNumber() uint32 {
	if s.drawn == noCard || s.drawn >= NumCards {
		return 0
	}
	return uint32(number(s.drawn))
}

// knownNumber is the number of the card at owner's slot as viewer knows it (0 when viewer does not
// know it, or the slot is empty or out of the row).
func (s *State) knownNumber(viewer, owner, slot uint8) uint32 {
	if int(owner) >= len(s.rows) || int(slot) >= len(s.rows[owner]) {
		return 0
	}
	id := s.rows[owner][slot]
	if id == noCard || id >= NumCards || s.known[id]&bit(viewer) == 0 {
		return 0
	}
	return uint32(number(id))
}

// resolveWords labels a choice for the pending effect me carries out.
func (s *State) resolveWords(me uint8, a Action) string {
	if len(s.queue) == 0 {
		return "resolve the effect"
	}
	e := s.queue[0]
	own := "your " + cardOrNot(s.knownNumber(me, me, a.Slot)) + " in " + slotWords(uint32(a.Slot))
	theirs := engine.SeatRef(int(a.Target)) + "'s " + cardOrNot(s.knownNumber(me, a.Target, a.TargetSlot)) +
		" in " + slotWords(uint32(a.TargetSlot))
	switch e.kind {
	case effPeek:
		return "peek at " + own
	case effSpy:
		return "spy on " + theirs
	case effGive:
		return "give " + own + " to " + engine.SeatRef(int(a.Target))
	case effSwitch:
		return "switch " + own + " with " + theirs
	case effGiveBack:
		return "give " + own + " to " + engine.SeatRef(int(e.to)) + " in return"
	}
	return "resolve the effect"
}

// DescribeEvent implements engine.Describer. It takes a cardroom.sabaisabai.v1.Event or one of its
// inner messages.
func (Game) DescribeEvent(payload proto.Message) string {
	if e, ok := payload.(*pb.Event); ok {
		payload = eventKind(e)
	}
	switch m := payload.(type) {
	case *pb.RoundStarted:
		l := "round " + strconv.Itoa(int(m.GetRound()))
		if m.GetFinalRound() {
			l += ", the final round (no sabai sabai call)"
		}
		return l + ": " + engine.SeatRef(int(m.GetDealer())) + " deals four cards face down to each player, " +
			engine.SeatRef(int(m.GetStarter())) + " starts; " + strconv.Itoa(int(m.GetDrawSize())) + " cards in the draw pile"
	case *pb.PeekAtStart:
		if len(m.GetSlots()) == 0 {
			return "you see none of your cards at the deal"
		}
		parts := make([]string, len(m.GetSlots()))
		for i, sl := range m.GetSlots() {
			parts[i] = slotWords(sl) + ": " + cardWords(nthCard(m.GetCards(), i))
		}
		return "you see your cards at the deal: " + strings.Join(parts, ", ")
	case *pb.TurnStarted:
		return engine.SeatRef(int(m.GetSeat())) + "'s turn"
	case *pb.Drew:
		return engine.SeatRef(int(m.GetSeat())) + " draws a card"
	case *pb.DrewCard:
		return "you drew " + aCard(m.GetCard())
	case *pb.AssJokerAdded:
		return engine.SeatRef(int(m.GetSeat())) + " must add the drawn card to their row face down (" +
			slotWords(m.GetSlot()) + "); their turn ends"
	case *pb.Played:
		return engine.SeatRef(int(m.GetSeat())) + " plays " + aCard(m.GetCard())
	case *pb.Kept:
		return engine.SeatRef(int(m.GetSeat())) + " keeps the drawn card in " + slotWords(m.GetSlot()) +
			" and discards " + theCard(m.GetDiscarded()) + " that was there"
	case *pb.DiscardPending:
		return engine.SeatRef(int(m.GetSeat())) + " has chosen; their discard lands when the throw window closes"
	case *pb.AssJokerRevealed:
		return engine.SeatRef(int(m.GetSeat())) + " tries to replace the Ass Joker in " + slotWords(m.GetSlot()) +
			": it is shown and stays, and the drawn card is played"
	case *pb.Thrown:
		return engine.SeatRef(int(m.GetThrower())) + " throws " + thrownWords(m.GetThrower(), m.GetOwner(), m.GetSlots(), m.GetCards())
	case *pb.WrongThrow:
		return engine.SeatRef(int(m.GetThrower())) + " throws " + thrownWords(m.GetThrower(), m.GetOwner(), m.GetSlots(), m.GetCards()) +
			": wrong, it goes back"
	case *pb.EffectQueued:
		return effectWords(m.GetEffect())
	case *pb.Peeked:
		return engine.SeatRef(int(m.GetSeat())) + " peeks at their card in " + slotWords(m.GetSlot())
	case *pb.PeekResult:
		return "you see " + aCard(m.GetCard()) + " in your " + slotWords(m.GetSlot())
	case *pb.Spied:
		return engine.SeatRef(int(m.GetSeat())) + " spies on " + engine.SeatRef(int(m.GetTargetSeat())) + "'s card in " +
			slotWords(m.GetTargetSlot())
	case *pb.SpyResult:
		return "you see " + aCard(m.GetCard()) + " in " + engine.SeatRef(int(m.GetTargetSeat())) + "'s " + slotWords(m.GetTargetSlot())
	case *pb.Gave:
		verb := " gives their card in "
		if m.GetGiveBack() {
			verb = " gives in return their card in "
		}
		return engine.SeatRef(int(m.GetFrom())) + verb + slotWords(m.GetFromSlot()) + " to " + engine.SeatRef(int(m.GetTo())) +
			" (now their " + slotWords(m.GetToSlot()) + ")"
	case *pb.Switched:
		return engine.SeatRef(int(m.GetSeat())) + " switches their card in " + slotWords(m.GetOwnSlot()) + " with " +
			engine.SeatRef(int(m.GetOther())) + "'s in " + slotWords(m.GetOtherSlot())
	case *pb.EffectSkipped:
		e := m.GetEffect()
		return engine.SeatRef(int(e.GetExecutor())) + "'s " + effectName(e.GetEffect()) + " does nothing: there is no card to choose"
	case *pb.PenaltyCard:
		why := ""
		switch m.GetReason() {
		case pb.PenaltyReason_PENALTY_REASON_WRONG_THROW:
			why = " for a wrong throw"
		case pb.PenaltyReason_PENALTY_REASON_NOSE:
			why = " for touching their nose last"
		}
		if !m.GetDrawn() {
			return engine.SeatRef(int(m.GetSeat())) + " owes a penalty card" + why + ", but none is left to draw"
		}
		return engine.SeatRef(int(m.GetSeat())) + " draws a penalty card" + why + " face down into " + slotWords(m.GetSlot())
	case *pb.Reshuffled:
		return "the discard pile but its top card is shuffled into a new draw pile of " + strconv.Itoa(int(m.GetDrawSize())) + " cards"
	case *pb.NoseWindowOpened:
		return "four " + cardsWords(m.GetCard()) + " lie together: everybody touch your nose!"
	case *pb.NoseTouched:
		return engine.SeatRef(int(m.GetSeat())) + " touches their nose"
	case *pb.NoseWindowClosed:
		l := "the nose window closes"
		if m.GetByDeadline() {
			l = "time is up for the nose"
		}
		switch p := m.GetPenalized(); len(p) {
		case 0:
		case 1:
			l += ": " + engine.SeatRef(int(p[0])) + " draws a penalty card"
		default:
			l += ": " + engine.SeatList(p) + " draw a penalty card each"
		}
		return l
	case *pb.SabaiSabaiCalled:
		return engine.SeatRef(int(m.GetSeat())) + " calls sabai sabai: the round ends after " +
			engine.SeatRef(int(m.GetLastTurnSeat())) + "'s turn"
	case *pb.RoundEnded:
		return roundEndedWords(m)
	case *pb.GameEnded:
		l := "game over"
		if m.HallOfFame != nil {
			l += ": " + engine.SeatRef(int(m.GetHallOfFame())) + " holds the four jokers and enters the Hall of Fame"
		}
		switch w := m.GetWinners(); len(w) {
		case 0:
		case 1:
			l += ": " + engine.SeatRef(int(w[0])) + " wins"
		default:
			l += ": " + engine.SeatList(w) + " share the win"
		}
		return l
	}
	return ""
}

// thrownWords is what a throw names, after "throws": "7 from slot 2", "{seat:1}'s 7 and 7 from
// slots 1 and 3".
func thrownWords(thrower, owner uint32, slots, cards []uint32) string {
	names := make([]string, len(cards))
	for i, c := range cards {
		names[i] = cardWords(c)
	}
	what := engine.AndList(names)
	if len(names) == 0 {
		what = "nothing"
	}
	if owner == thrower {
		return "their " + what + " from " + slotsWords(slots)
	}
	return engine.SeatRef(int(owner)) + "'s " + what + " from " + slotsWords(slots)
}

func effectName(e pb.Effect) string {
	switch e {
	case pb.Effect_EFFECT_PEEK:
		return "peek"
	case pb.Effect_EFFECT_SPY:
		return "spy"
	case pb.Effect_EFFECT_GIVE:
		return "give"
	case pb.Effect_EFFECT_SWITCH:
		return "switch"
	case pb.Effect_EFFECT_GIVE_BACK:
		return "give in return"
	}
	return "effect"
}

// effectWords says what a queued effect waits for.
func effectWords(e *pb.PendingEffect) string {
	who := engine.SeatRef(int(e.GetExecutor()))
	switch e.GetEffect() {
	case pb.Effect_EFFECT_PEEK:
		return who + " is to peek at one of their cards"
	case pb.Effect_EFFECT_SPY:
		return who + " is to spy on another player's card"
	case pb.Effect_EFFECT_GIVE:
		return who + " is to give one of their cards to another player"
	case pb.Effect_EFFECT_SWITCH:
		return who + " is to switch one of their cards with another player's"
	case pb.Effect_EFFECT_GIVE_BACK:
		return who + " is to give one of their cards to " + engine.SeatRef(int(e.GetToSeat())) + " in return"
	}
	return who + " has an effect to resolve"
}

// cardsWords is a card number in the plural: "7s", "11s (peek)", "jokers".
func cardsWords(n uint32) string {
	switch {
	case n == Joker || n == AssJoker:
		return "jokers"
	case n >= Peek && n <= Switch:
		return strconv.Itoa(int(n)) + "s (" + functionWords[n-Peek] + ")"
	}
	return strconv.Itoa(int(n)) + "s"
}

func roundEndedWords(m *pb.RoundEnded) string {
	var b strings.Builder
	b.WriteString("round " + strconv.Itoa(int(m.GetRound())) + " ends")
	for i, r := range m.GetResults() {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(engine.SeatRef(int(r.GetSeat())) + " ")
		if len(r.GetCards()) == 0 {
			b.WriteString("no cards")
		} else {
			names := make([]string, len(r.GetCards()))
			for k, c := range r.GetCards() {
				names[k] = cardWords(c)
			}
			b.WriteString(strings.Join(names, ", "))
		}
		b.WriteString(" = " + plural(int(r.GetCardPoints()), "point"))
		if r.GetAssJoker() {
			b.WriteString(", holds the Ass Joker")
		}
		switch ch := r.GetVictoryPointChange(); {
		case ch > 0:
			b.WriteString(", +" + plural(int(ch), "victory point"))
		case ch < 0:
			b.WriteString(", " + plural(int(ch), "victory point"))
		}
		b.WriteString(" (" + strconv.Itoa(int(r.GetVictoryPoints())) + " in all)")
	}
	if m.HallOfFame != nil {
		b.WriteString("; " + engine.SeatRef(int(m.GetHallOfFame())) + " holds the four jokers: Hall of Fame")
	}
	return b.String()
}

// eventKind is the inner message of e's oneof (nil when unset).
func eventKind(e *pb.Event) proto.Message {
	switch k := e.GetKind().(type) {
	case *pb.Event_RoundStarted:
		return k.RoundStarted
	case *pb.Event_PeekAtStart:
		return k.PeekAtStart
	case *pb.Event_TurnStarted:
		return k.TurnStarted
	case *pb.Event_Drew:
		return k.Drew
	case *pb.Event_DrewCard:
		return k.DrewCard
	case *pb.Event_AssJokerAdded:
		return k.AssJokerAdded
	case *pb.Event_Played:
		return k.Played
	case *pb.Event_Kept:
		return k.Kept
	case *pb.Event_AssJokerRevealed:
		return k.AssJokerRevealed
	case *pb.Event_Thrown:
		return k.Thrown
	case *pb.Event_WrongThrow:
		return k.WrongThrow
	case *pb.Event_EffectQueued:
		return k.EffectQueued
	case *pb.Event_Peeked:
		return k.Peeked
	case *pb.Event_PeekResult:
		return k.PeekResult
	case *pb.Event_Spied:
		return k.Spied
	case *pb.Event_SpyResult:
		return k.SpyResult
	case *pb.Event_Gave:
		return k.Gave
	case *pb.Event_Switched:
		return k.Switched
	case *pb.Event_EffectSkipped:
		return k.EffectSkipped
	case *pb.Event_PenaltyCard:
		return k.PenaltyCard
	case *pb.Event_Reshuffled:
		return k.Reshuffled
	case *pb.Event_NoseWindowOpened:
		return k.NoseWindowOpened
	case *pb.Event_NoseTouched:
		return k.NoseTouched
	case *pb.Event_NoseWindowClosed:
		return k.NoseWindowClosed
	case *pb.Event_SabaiSabaiCalled:
		return k.SabaiSabaiCalled
	case *pb.Event_RoundEnded:
		return k.RoundEnded
	case *pb.Event_GameEnded:
		return k.GameEnded
	case *pb.Event_DiscardPending:
		return k.DiscardPending
	}
	return nil
}

func nthCard(cs []uint32, i int) uint32 {
	if i < len(cs) {
		return cs[i]
	}
	return 0
}

func plural(n int, noun string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
