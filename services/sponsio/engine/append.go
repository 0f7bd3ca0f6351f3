package engine

import (
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/pbappend"
	"google.golang.org/protobuf/encoding/protowire"
)

var _ engine.ActionAppender[*State, Action] = Game{}

// Field numbers of cardroom.sponsio.v1.Action and the messages in it (TestAppender checks the
// bytes against proto.Marshal).
const (
	fieldPass          protowire.Number = 1
	fieldOpenCard      protowire.Number = 2
	fieldChooseOption  protowire.Number = 3
	fieldChooseTarget  protowire.Number = 4
	fieldLayCard       protowire.Number = 5
	fieldChangeBet     protowire.Number = 6
	fieldKeepBet       protowire.Number = 7
	fieldPlayCard      protowire.Number = 8
	fieldRedeemCounter protowire.Number = 9
	fieldKeepCounter   protowire.Number = 10

	// OpenCard.card, LayCard.card, PlayCard.card; ChooseOption.option, ChooseTarget.seat,
	// PlaceBet.coupon, TakeToken.token, ChangeBet.coupon, ChangeCard.talon_card, Card.colour.
	fieldFirst protowire.Number = 1
	// OpenCard.place_bet, PlaceBet.double, ChangeBet.option, ChangeCard.hand_card, Card.value.
	fieldSecond       protowire.Number = 2
	fieldTakeToken    protowire.Number = 3
	fieldChangeCard   protowire.Number = 4
	fieldOpenPlaceBet                  = fieldSecond
)

// AppendAction implements engine.ActionAppender: EncodeAction's message, written directly.
func (Game) AppendAction(b []byte, a Action) []byte {
	var at int
	switch a.Kind {
	case ActPass:
		return pbappend.Empty(b, fieldPass)
	case ActOpenBet, ActOpenToken, ActOpenChange:
		b, at = pbappend.Open(b, fieldOpenCard)
		b = appendCardField(b, fieldFirst, a.Card)
		var then int
		switch a.Kind {
		case ActOpenBet:
			b, then = pbappend.Open(b, fieldOpenPlaceBet)
			b = pbappend.Uint(b, fieldFirst, uint64(uint32(a.A)+1))
			b = pbappend.Bool(b, fieldSecond, a.B == 1)
		case ActOpenToken:
			b, then = pbappend.Open(b, fieldTakeToken)
			b = pbappend.Uint(b, fieldFirst, uint64(sponsiov1.Token(a.A+1)))
		case ActOpenChange:
			b, then = pbappend.Open(b, fieldChangeCard)
			b = appendCardField(b, fieldFirst, Card(a.A))
			b = appendCardField(b, fieldSecond, Card(a.B))
		}
		b = pbappend.Close(b, then)
	case ActOption:
		b, at = pbappend.Open(b, fieldChooseOption)
		b = pbappend.Uint(b, fieldFirst, uint64(uint32(a.A)))
	case ActTarget:
		b, at = pbappend.Open(b, fieldChooseTarget)
		b = pbappend.Uint(b, fieldFirst, uint64(uint32(a.A)))
	case ActLay:
		b, at = pbappend.Open(b, fieldLayCard)
		b = appendCardField(b, fieldFirst, a.Card)
	case ActChangeBet:
		b, at = pbappend.Open(b, fieldChangeBet)
		b = pbappend.Uint(b, fieldFirst, uint64(uint32(a.A)+1))
		b = pbappend.Uint(b, fieldSecond, uint64(uint32(a.B)))
	case ActKeepBet:
		return pbappend.Empty(b, fieldKeepBet)
	case ActPlay:
		b, at = pbappend.Open(b, fieldPlayCard)
		b = appendCardField(b, fieldFirst, a.Card)
	case ActRedeem:
		return pbappend.Empty(b, fieldRedeemCounter)
	case ActKeepCounter:
		return pbappend.Empty(b, fieldKeepCounter)
	default:
		return b // an Action with nothing set
	}
	return pbappend.Close(b, at)
}

// appendCardField appends card c (one of the 36: Card.Proto's message) as field n.
func appendCardField(b []byte, n protowire.Number, c Card) []byte {
	b, at := pbappend.Open(b, n)
	b = pbappend.Uint(b, fieldFirst, uint64(c.Colour().Proto()))
	b = pbappend.Uint(b, fieldSecond, uint64(c.Value()))
	return pbappend.Close(b, at)
}
