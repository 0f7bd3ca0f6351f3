package engine

import (
	"fmt"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// ActionKind says what an Action does.
type ActionKind int8

// Action kinds; the fields each uses are given.
const (
	ActPass       ActionKind = iota + 1
	ActOpenBet               // Card opened; A coupon index (number-1); B 1 for a double bet
	ActOpenToken             // Card opened; A token
	ActOpenChange            // Card opened; A talon card; B hand card
	ActOption                // A option index
	ActTarget                // A seat
	ActLay                   // Card laid face up (token price or Combat card)
	ActChangeBet             // A coupon index; B option index
	ActKeepBet
	ActPlay // Card played
	ActRedeem
	ActKeepCounter
)

// Action is a seat's action in the engine's form: a small value.
type Action struct {
	Kind ActionKind
	Card Card
	A, B int8
}

func (a Action) String() string {
	switch a.Kind {
	case ActPass:
		return "pass"
	case ActOpenBet:
		d := ""
		if a.B == 1 {
			d = " (double)"
		}
		return fmt.Sprintf("open %v, bet on coupon %d%s", a.Card, a.A+1, d)
	case ActOpenToken:
		return fmt.Sprintf("open %v, take token %d", a.Card, a.A)
	case ActOpenChange:
		return fmt.Sprintf("open %v, change %v for %v", a.Card, Card(a.B), Card(a.A))
	case ActOption:
		return fmt.Sprintf("option %d", a.A)
	case ActTarget:
		return fmt.Sprintf("target seat %d", a.A)
	case ActLay:
		return fmt.Sprintf("lay %v", a.Card)
	case ActChangeBet:
		return fmt.Sprintf("change coupon %d to option %d", a.A+1, a.B)
	case ActKeepBet:
		return "keep bets"
	case ActPlay:
		return fmt.Sprintf("play %v", a.Card)
	case ActRedeem:
		return "redeem"
	case ActKeepCounter:
		return "keep counter"
	}
	return "?"
}

// EncodeAction implements engine.Game.
func (Game) EncodeAction(a Action) proto.Message {
	m := &sponsiov1.Action{}
	switch a.Kind {
	case ActPass:
		m.Kind = &sponsiov1.Action_Pass{Pass: &sponsiov1.Pass{}}
	case ActOpenBet:
		m.Kind = &sponsiov1.Action_OpenCard{OpenCard: &sponsiov1.OpenCard{Card: a.Card.Proto(),
			Then: &sponsiov1.OpenCard_PlaceBet{PlaceBet: &sponsiov1.PlaceBet{Coupon: uint32(a.A) + 1, Double: a.B == 1}}}}
	case ActOpenToken:
		m.Kind = &sponsiov1.Action_OpenCard{OpenCard: &sponsiov1.OpenCard{Card: a.Card.Proto(),
			Then: &sponsiov1.OpenCard_TakeToken{TakeToken: &sponsiov1.TakeToken{Token: sponsiov1.Token(a.A + 1)}}}}
	case ActOpenChange:
		m.Kind = &sponsiov1.Action_OpenCard{OpenCard: &sponsiov1.OpenCard{Card: a.Card.Proto(),
			Then: &sponsiov1.OpenCard_ChangeCard{ChangeCard: &sponsiov1.ChangeCard{TalonCard: Card(a.A).Proto(), HandCard: Card(a.B).Proto()}}}}
	case ActOption:
		m.Kind = &sponsiov1.Action_ChooseOption{ChooseOption: &sponsiov1.ChooseOption{Option: uint32(a.A)}}
	case ActTarget:
		m.Kind = &sponsiov1.Action_ChooseTarget{ChooseTarget: &sponsiov1.ChooseTarget{Seat: uint32(a.A)}}
	case ActLay:
		m.Kind = &sponsiov1.Action_LayCard{LayCard: &sponsiov1.LayCard{Card: a.Card.Proto()}}
	case ActChangeBet:
		m.Kind = &sponsiov1.Action_ChangeBet{ChangeBet: &sponsiov1.ChangeBet{Coupon: uint32(a.A) + 1, Option: uint32(a.B)}}
	case ActKeepBet:
		m.Kind = &sponsiov1.Action_KeepBet{KeepBet: &sponsiov1.KeepBet{}}
	case ActPlay:
		m.Kind = &sponsiov1.Action_PlayCard{PlayCard: &sponsiov1.PlayCard{Card: a.Card.Proto()}}
	case ActRedeem:
		m.Kind = &sponsiov1.Action_RedeemCounter{RedeemCounter: &sponsiov1.RedeemCounter{}}
	case ActKeepCounter:
		m.Kind = &sponsiov1.Action_KeepCounter{KeepCounter: &sponsiov1.KeepCounter{}}
	}
	return m
}

func badCard(field string) error {
	return engine.Invalid(field, engine.CodeBadAction, "%s is not a card: a colour and a value 1-9", field)
}

// DecodeAction implements engine.Game. Anything that can never be valid (no card, coupon 0 or
// above 16, option or seat out of any table's range) is Malformed.
func (Game) DecodeAction(pm proto.Message) (Action, error) {
	m, ok := pm.(*sponsiov1.Action)
	if !ok || m == nil {
		return Action{}, engine.Invalid("action", engine.CodeUnknownAction, "not a sponsio action")
	}
	a := Action{Card: NoCard}
	switch k := m.Kind.(type) {
	case *sponsiov1.Action_Pass:
		a.Kind = ActPass
	case *sponsiov1.Action_OpenCard:
		c, ok := cardFromProto(k.OpenCard.GetCard())
		if !ok {
			return Action{}, badCard("open_card.card")
		}
		a.Card = c
		switch t := k.OpenCard.GetThen().(type) {
		case *sponsiov1.OpenCard_PlaceBet:
			n := t.PlaceBet.GetCoupon()
			if n < 1 || n > 16 {
				return Action{}, engine.Invalid("open_card.place_bet.coupon", engine.CodeBadAction, "coupon %d is not 1-16", n)
			}
			a.Kind, a.A = ActOpenBet, int8(n-1)
			if t.PlaceBet.GetDouble() {
				a.B = 1
			}
		case *sponsiov1.OpenCard_TakeToken:
			tk := t.TakeToken.GetToken()
			if tk < sponsiov1.Token_TOKEN_COMBAT || tk > sponsiov1.Token_TOKEN_THREE_COIN {
				return Action{}, engine.Invalid("open_card.take_token.token", engine.CodeBadAction, "no such token")
			}
			a.Kind, a.A = ActOpenToken, int8(tk-1)
		case *sponsiov1.OpenCard_ChangeCard:
			tc, ok1 := cardFromProto(t.ChangeCard.GetTalonCard())
			hc, ok2 := cardFromProto(t.ChangeCard.GetHandCard())
			if !ok1 || !ok2 {
				return Action{}, badCard("open_card.change_card")
			}
			a.Kind, a.A, a.B = ActOpenChange, int8(tc), int8(hc)
		default:
			return Action{}, engine.Invalid("open_card.then", engine.CodeBadAction, "open_card needs a bet, a token or a change")
		}
	case *sponsiov1.Action_ChooseOption:
		o := k.ChooseOption.GetOption()
		if o > 7 {
			return Action{}, engine.Invalid("choose_option.option", engine.CodeBadAction, "option %d: no coupon has that many", o)
		}
		a.Kind, a.A = ActOption, int8(o)
	case *sponsiov1.Action_ChooseTarget:
		p := k.ChooseTarget.GetSeat()
		if p > 3 {
			return Action{}, engine.Invalid("choose_target.seat", engine.CodeBadSeat, "seat %d: at most 4 players", p)
		}
		a.Kind, a.A = ActTarget, int8(p)
	case *sponsiov1.Action_LayCard:
		c, ok := cardFromProto(k.LayCard.GetCard())
		if !ok {
			return Action{}, badCard("lay_card.card")
		}
		a.Kind, a.Card = ActLay, c
	case *sponsiov1.Action_ChangeBet:
		n, o := k.ChangeBet.GetCoupon(), k.ChangeBet.GetOption()
		if n < 1 || n > 16 || o > 7 {
			return Action{}, engine.Invalid("change_bet", engine.CodeBadAction, "coupon %d option %d: no such bet", n, o)
		}
		a.Kind, a.A, a.B = ActChangeBet, int8(n-1), int8(o)
	case *sponsiov1.Action_KeepBet:
		a.Kind = ActKeepBet
	case *sponsiov1.Action_PlayCard:
		c, ok := cardFromProto(k.PlayCard.GetCard())
		if !ok {
			return Action{}, badCard("play_card.card")
		}
		a.Kind, a.Card = ActPlay, c
	case *sponsiov1.Action_RedeemCounter:
		a.Kind = ActRedeem
	case *sponsiov1.Action_KeepCounter:
		a.Kind = ActKeepCounter
	default:
		return Action{}, engine.Invalid("kind", engine.CodeUnknownAction, "empty or unknown action")
	}
	return a, nil
}
