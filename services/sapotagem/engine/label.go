package engine

import (
	"strconv"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Labels name things as the rules do: a card is its colour and rank with its faction, "yellow 1
// (Ducks)", or with its bomb, "red 13 (bomb)"; seats are engine.SeatRef tokens.

var _ engine.Describer[*State, Action] = Game{}

var (
	colourWords  = [4]string{"green", "yellow", "red", "blue"}
	factionWords = [6]string{"Frogs", "Ducks", "Horses", "Pigs", "Bears", "Birds"}
)

// appendCard appends card c (0-51) in words.
func appendCard(b []byte, c int8) []byte {
	if c < 0 || c >= numCards {
		return append(b, "a card"...)
	}
	b = append(b, colourWords[colourOf(c)]...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(rankOf(c)), 10)
	if f := factionOf(c); f >= 0 {
		b = append(b, " ("...)
		b = append(b, factionWords[f]...)
		return append(b, ')')
	}
	return append(b, " (bomb)"...)
}

// appendCardPB appends a card message in words; the faction follows from colour and rank (the
// faction field is output only).
func appendCardPB(b []byte, c *pb.Card) []byte {
	col, rank := c.GetColour(), c.GetRank()
	if col < pb.Colour_COLOUR_GREEN || col > pb.Colour_COLOUR_BLUE || rank < 1 || rank > bombRank {
		return append(b, "a card"...)
	}
	return appendCard(b, cardOf(int8(col-1), int8(rank)))
}

// appendCards appends a list of cards in words, separated by commas.
func appendCards(b []byte, cs []*pb.Card) []byte {
	for i, c := range cs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendCardPB(b, c)
	}
	return b
}

func appendSeat(b []byte, seat uint32) []byte {
	return engine.AppendSeatRef(b, int(seat))
}

func colourWord(c pb.Colour) string {
	if c < pb.Colour_COLOUR_GREEN || c > pb.Colour_COLOUR_BLUE {
		return "no colour"
	}
	return colourWords[c-1]
}

// appendCount appends n and the noun, with an s when n is not 1.
func appendCount(b []byte, n uint32, noun string) []byte {
	b = strconv.AppendUint(b, uint64(n), 10)
	b = append(b, ' ')
	b = append(b, noun...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}

// DescribeAction implements engine.Describer: what seat does with a, in the imperative ("play
// yellow 1 (Ducks)", "jump", "take blue 4 (Frogs) from the discard pile").
func (g Game) DescribeAction(s *State, seat int, a Action) string {
	var buf [128]byte // on the stack: the label is the one allocation
	return string(g.AppendLabel(buf[:0], s, seat, a))
}

// AppendLabel implements engine.ActionAppender: DescribeAction's label, appended to b.
func (Game) AppendLabel(b []byte, s *State, seat int, a Action) []byte {
	start := len(b)
	switch a.Kind {
	case KindJump:
		b = append(b, "jump"...)
		if a.Card >= 0 {
			b = append(b, ", playing "...)
			b = appendCard(b, a.Card)
			b = append(b, " from your play area"...)
		}
		if a.Bomb >= 0 {
			b = append(b, ", adding "...)
			b = appendCard(b, a.Bomb)
			b = append(b, " to the round"...)
		}
		if a.Fugitive >= 0 {
			b = append(b, ", taking the fugitive "...)
			b = appendCard(b, a.Fugitive)
		}
	case KindPlay:
		if s == nil || !s.planting() {
			b = append(b, "play "...)
			b = appendCard(b, a.Card)
			break
		}
		target := a.Target
		if target < 0 {
			target = int8((seat + 1) % int(s.N))
		}
		b = append(b, "plant "...)
		b = appendCard(b, a.Card)
		b = append(b, " in front of "...)
		b = appendSeat(b, uint32(target))
	case KindPick:
		var phase Phase
		if s != nil {
			phase = s.Phase
		}
		b = append(b, "take "...)
		switch phase {
		case PhaseSleeve:
			b = b[:start]
			b = append(b, "give "...)
			b = appendCard(b, a.Card)
			b = append(b, " to the trump deck"...)
		case PhasePick:
			b = appendCard(b, a.Card)
			if s.on(vUnderArrest) {
				b = append(b, " from the trump pile"...)
			} else {
				b = append(b, " from the revealed cards"...)
			}
		case PhaseHelp:
			b = appendCard(b, a.Card)
			b = append(b, " from the discard pile"...)
		case PhaseTakeBack:
			b = appendCard(b, a.Card)
			b = append(b, " back into your hand for a jump marker"...)
		case PhaseHiddenPick:
			b = appendCard(b, a.Card)
			b = append(b, " from the closed pile"...)
		default:
			b = appendCard(b, a.Card)
		}
	case KindDecline:
		b = append(b, "take no card back"...)
	case KindChooseTrump:
		if a.Card < 0 || a.Card > 3 {
			b = append(b, "choose a trump colour"...)
			break
		}
		b = append(b, "choose "...)
		b = append(b, colourWords[a.Card]...)
		b = append(b, " as the next trump"...)
	default:
		b = append(b, "unknown action"...)
	}
	return b
}

// DescribeEvent implements engine.Describer: what happened, in the third person ("{seat:2} plays
// yellow 1 (Ducks)"). It reads the payload only.
func (Game) DescribeEvent(payload proto.Message) string {
	e, ok := payload.(*pb.Event)
	if !ok || e == nil {
		return ""
	}
	var buf [128]byte
	b := buf[:0]
	switch k := e.GetKind().(type) {
	case *pb.Event_GameStarted:
		b = appendGameStarted(b, k.GameStarted)
	case *pb.Event_HandDealt:
		b = appendSeat(b, k.HandDealt.GetSeat())
		b = append(b, " is dealt "...)
		b = appendCards(b, k.HandDealt.GetCards())
		if len(k.HandDealt.GetCards()) == 0 {
			b = append(b, "no card"...)
		}
	case *pb.Event_RoundStarted:
		b = appendRoundStarted(b, k.RoundStarted)
	case *pb.Event_Jumped:
		j := k.Jumped
		b = appendSeat(b, j.GetSeat())
		b = append(b, " jumps"...)
		if j.GetAreaCard() != nil {
			b = append(b, ", playing "...)
			b = appendCardPB(b, j.GetAreaCard())
			b = append(b, " from their play area"...)
		}
		if j.GetBomb() != nil {
			b = append(b, ", adding "...)
			b = appendCardPB(b, j.GetBomb())
			b = append(b, " to the round"...)
		}
		if j.GetFugitive() != nil {
			b = append(b, ", taking the fugitive "...)
			b = appendCardPB(b, j.GetFugitive())
		}
		b = append(b, " ("...)
		b = appendCount(b, j.GetMarkersLeft(), "jump marker")
		b = append(b, " left)"...)
	case *pb.Event_CardPlayed:
		p := k.CardPlayed
		b = appendSeat(b, p.GetSeat())
		if p.GetOwner() == p.GetSeat() {
			b = append(b, " plays "...)
			b = appendCardPB(b, p.GetCard())
			break
		}
		b = append(b, " plants "...)
		b = appendCardPB(b, p.GetCard())
		b = append(b, " in front of "...)
		b = appendSeat(b, p.GetOwner())
	case *pb.Event_Passed:
		b = appendSeat(b, k.Passed.GetSeat())
		b = append(b, " passes, with nothing to play"...)
	case *pb.Event_RoundEnded:
		b = appendRoundEnded(b, k.RoundEnded)
	case *pb.Event_CardTaken:
		b = appendCardTaken(b, k.CardTaken)
	case *pb.Event_TrumpChosen:
		t := k.TrumpChosen
		if t.Seat == nil {
			b = append(b, colourWord(t.GetColour())...)
			b = append(b, " is drawn as the next trump"...)
			break
		}
		b = appendSeat(b, t.GetSeat())
		b = append(b, " chooses "...)
		b = append(b, colourWord(t.GetColour())...)
		b = append(b, " as the next trump"...)
	case *pb.Event_SleeveChosen:
		b = appendSeat(b, k.SleeveChosen.GetSeat())
		if c := k.SleeveChosen.GetCard(); c != nil {
			b = append(b, " gives "...)
			b = appendCardPB(b, c)
			b = append(b, " to the trump deck"...)
		} else {
			b = append(b, " gives a card to the trump deck"...)
		}
	case *pb.Event_SleeveRevealed:
		b = append(b, "the trump deck is revealed: "...)
		b = appendCards(b, k.SleeveRevealed.GetCards())
	case *pb.Event_HiddenPileShown:
		b = appendSeat(b, k.HiddenPileShown.GetSeat())
		b = append(b, " looks through the closed pile: "...)
		b = appendCards(b, k.HiddenPileShown.GetCards())
	case *pb.Event_GameOver:
		b = appendGameOver(b, k.GameOver)
	default:
		return ""
	}
	return string(b)
}

func appendGameStarted(b []byte, g *pb.GameStarted) []byte {
	b = append(b, "the game starts: "...)
	b = appendCount(b, g.GetSeats(), "player")
	if g.GetRounds() > 0 {
		b = append(b, ", "...)
		b = appendCount(b, g.GetRounds(), "round")
	}
	b = append(b, ", "...)
	b = appendCount(b, g.GetHandSize(), "card")
	if g.GetJumpMarkers() > 0 {
		b = append(b, " and "...)
		b = appendCount(b, g.GetJumpMarkers(), "jump marker")
	}
	b = append(b, " each; "...)
	b = appendSeat(b, g.GetStartingSeat())
	b = append(b, " starts"...)
	if g.GetGameTrump() != pb.Colour_COLOUR_UNSPECIFIED {
		b = append(b, "; "...)
		b = append(b, colourWord(g.GetGameTrump())...)
		b = append(b, " is trump for the whole game"...)
	}
	if len(g.GetOpenPile()) > 0 {
		b = append(b, "; face up in the trump pile: "...)
		b = appendCards(b, g.GetOpenPile())
	}
	if len(g.GetFugitives()) > 0 {
		b = append(b, "; the fugitives: "...)
		b = appendCards(b, g.GetFugitives())
	}
	if g.GetRemoved() > 0 {
		b = append(b, "; "...)
		b = appendCount(b, g.GetRemoved(), "card")
		b = append(b, " removed unseen"...)
	}
	return b
}

func appendRoundStarted(b []byte, r *pb.RoundStarted) []byte {
	b = append(b, "round "...)
	b = strconv.AppendUint(b, uint64(r.GetRound()), 10)
	b = append(b, ": "...)
	b = appendSeat(b, r.GetStartingSeat())
	b = append(b, " starts; "...)
	switch {
	case r.GetTrump() == pb.Colour_COLOUR_UNSPECIFIED:
		b = append(b, "no trump"...)
	case r.GetTrumpCard() != nil:
		b = append(b, "trump "...)
		b = appendCardPB(b, r.GetTrumpCard())
	default:
		b = append(b, "trump "...)
		b = append(b, colourWord(r.GetTrump())...)
	}
	if r.GetNextTrump() != nil {
		b = append(b, ", next "...)
		b = appendCardPB(b, r.GetNextTrump())
	}
	if len(r.GetRevealed()) > 0 {
		b = append(b, "; revealed: "...)
		b = appendCards(b, r.GetRevealed())
	}
	return b
}

func appendRoundEnded(b []byte, r *pb.RoundEnded) []byte {
	if r.Winner == nil {
		b = append(b, "nobody wins round "...)
		b = strconv.AppendUint(b, uint64(r.GetRound()), 10)
	} else {
		b = appendSeat(b, r.GetWinner())
		b = append(b, " wins round "...)
		b = strconv.AppendUint(b, uint64(r.GetRound()), 10)
		if r.GetWinningCard() != nil {
			b = append(b, " with "...)
			b = appendCardPB(b, r.GetWinningCard())
		}
		if n := len(r.GetCaptured()); n > 0 {
			b = append(b, ", taking "...)
			b = appendCount(b, uint32(n), "card")
		}
	}
	if n := len(r.GetDiscarded()); n > 0 {
		b = append(b, "; "...)
		b = appendCards(b, r.GetDiscarded())
		if n == 1 {
			b = append(b, " goes"...)
		} else {
			b = append(b, " go"...)
		}
		b = append(b, " to the discard pile"...)
	}
	return b
}

func appendCardTaken(b []byte, t *pb.CardTaken) []byte {
	b = appendSeat(b, t.GetSeat())
	switch t.GetSource() {
	case pb.TakeSource_TAKE_SOURCE_BLIND_PILE:
		b = append(b, " draws "...)
		b = appendCardPB(b, t.GetCard())
		return append(b, " from the pile"...)
	case pb.TakeSource_TAKE_SOURCE_FUGITIVE:
		b = append(b, " takes the fugitive "...)
		return appendCardPB(b, t.GetCard())
	}
	b = append(b, " takes "...)
	b = appendCardPB(b, t.GetCard())
	switch t.GetSource() {
	case pb.TakeSource_TAKE_SOURCE_OPEN_PILE:
		b = append(b, " from the trump pile"...)
	case pb.TakeSource_TAKE_SOURCE_REVEALED:
		b = append(b, " from the revealed cards"...)
	case pb.TakeSource_TAKE_SOURCE_DISCARD:
		b = append(b, " from the discard pile"...)
	case pb.TakeSource_TAKE_SOURCE_TAKE_BACK:
		b = append(b, " back into their hand"...)
	case pb.TakeSource_TAKE_SOURCE_HIDDEN_PILE:
		b = append(b, " from the closed pile"...)
	}
	return b
}

// appendGameOver names the winners and every seat's score, in seat order.
func appendGameOver(b []byte, g *pb.GameOver) []byte {
	b = append(b, "game over"...)
	var winners []*gamev1.SeatResult
	for _, r := range g.GetOutcome().GetResults() {
		if r.GetWinner() {
			winners = append(winners, r)
		}
	}
	if len(winners) > 0 {
		b = append(b, ": "...)
		for i, w := range winners {
			switch {
			case i == 0:
			case i == len(winners)-1:
				b = append(b, " and "...)
			default:
				b = append(b, ", "...)
			}
			b = appendSeat(b, w.GetSeat())
		}
		if len(winners) == 1 {
			b = append(b, " wins with "...)
		} else {
			b = append(b, " win with "...)
		}
		b = appendPoints(b, winners[0].GetScore())
	}
	if len(g.GetScores()) > 0 {
		b = append(b, "; scores: "...)
		for i, sc := range g.GetScores() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendSeat(b, sc.GetSeat())
			b = append(b, ' ')
			b = strconv.AppendInt(b, sc.GetScore(), 10)
		}
	}
	return b
}

func appendPoints(b []byte, n int64) []byte {
	b = strconv.AppendInt(b, n, 10)
	if n == 1 || n == -1 {
		return append(b, " point"...)
	}
	return append(b, " points"...)
}

// cardWords is a card in words, for tests and tools.
func cardWords(c int8) string { return string(appendCard(nil, c)) }
