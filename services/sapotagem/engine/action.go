package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
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

// EncodeAction implements engine.Game.
func (Game) EncodeAction(a Action) proto.Message {
	switch a.Kind {
	case KindJump:
		return &pb.Action{Kind: &pb.Action_Jump{Jump: &pb.Jump{AreaCard: cardPB(a.Card), Bomb: cardPB(a.Bomb), Fugitive: cardPB(a.Fugitive)}}}
	case KindPlay:
		p := &pb.PlayCard{Card: cardPB(a.Card)}
		if a.Target >= 0 {
			p.TargetSeat = proto.Uint32(uint32(a.Target))
		}
		return &pb.Action{Kind: &pb.Action_Play{Play: p}}
	case KindPick:
		return &pb.Action{Kind: &pb.Action_Pick{Pick: &pb.PickCard{Card: cardPB(a.Card)}}}
	case KindDecline:
		return &pb.Action{Kind: &pb.Action_Decline{Decline: &pb.Decline{}}}
	case KindChooseTrump:
		return &pb.Action{Kind: &pb.Action_ChooseTrump{ChooseTrump: &pb.ChooseTrump{Colour: colourPB(a.Card)}}}
	}
	return &pb.Action{}
}

// DecodeAction implements engine.Game.
func (Game) DecodeAction(m proto.Message) (Action, error) {
	msg, ok := m.(*pb.Action)
	if !ok || msg == nil {
		return Action{}, engine.Invalid("action", engine.CodeBadAction, "the action must be a cardroom.sapotagem.v1.Action")
	}
	var v *engine.Violation
	switch k := msg.GetKind().(type) {
	case *pb.Action_Jump:
		a := Jump()
		if a.Card, v = cardFromPB(k.Jump.GetAreaCard(), "action.jump.area_card"); v != nil {
			return Action{}, v
		}
		if a.Bomb, v = cardFromPB(k.Jump.GetBomb(), "action.jump.bomb"); v != nil {
			return Action{}, v
		}
		if a.Fugitive, v = cardFromPB(k.Jump.GetFugitive(), "action.jump.fugitive"); v != nil {
			return Action{}, v
		}
		return a, nil
	case *pb.Action_Play:
		c, v := requiredCard(k.Play.GetCard(), "action.play.card")
		if v != nil {
			return Action{}, v
		}
		a := Play(c)
		if k.Play.TargetSeat != nil {
			t := k.Play.GetTargetSeat()
			if t >= uint32(Data.MaxSeats) {
				return Action{}, engine.Invalid("action.play.target_seat", engine.CodeBadSeat, "no seat %d", t)
			}
			a.Target = int8(t)
		}
		return a, nil
	case *pb.Action_Pick:
		c, v := requiredCard(k.Pick.GetCard(), "action.pick.card")
		if v != nil {
			return Action{}, v
		}
		return Pick(c), nil
	case *pb.Action_Decline:
		return Decline(), nil
	case *pb.Action_ChooseTrump:
		col := k.ChooseTrump.GetColour()
		if col < pb.Colour_COLOUR_GREEN || col > pb.Colour_COLOUR_BLUE {
			return Action{}, engine.Invalid("action.choose_trump.colour", CodeBadColour, "no such colour %v", col)
		}
		return ChooseTrump(int8(col - 1)), nil
	}
	return Action{}, engine.Invalid("action.kind", engine.CodeUnknownAction, "no action kind set")
}

func requiredCard(c *pb.Card, field string) (int8, *engine.Violation) {
	if c == nil {
		return -1, engine.Invalid(field, CodeBadCard, "a card is required")
	}
	return cardFromPB(c, field)
}
