package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Kind is what an action does.
type Kind uint8

// Action kinds.
const (
	KindNone Kind = iota
	// KindPlace places path card Card at (X, Y), turned when Rot.
	KindPlace
	// KindPlay plays action card Card on Target (a seat), Tool (double repair) or (X, Y) (rockfall, map).
	KindPlay
	// KindRemove discards Cards[0:2] to remove InFront from in front of the player.
	KindRemove
	// KindDiscard discards Cards[:N] face down.
	KindDiscard
	// KindPick takes a gold card of value Target.
	KindPick
	// KindSteal steals a nugget from seat Target.
	KindSteal
)

// Action is one seat's action, a small value.
type Action struct {
	Kind    Kind
	Card    uint8
	Rot     bool
	X, Y    int8
	Target  uint8
	Tool    uint8
	InFront uint8
	N       uint8
	Cards   [3]uint8
}

// MaxSeats is the largest table (saboteur2).
const MaxSeats = 12

func cell(x, y int8) *pb.Cell { return &pb.Cell{X: int32(x), Y: int32(y)} }

func cards(cs []uint8) []pb.Card {
	out := make([]pb.Card, len(cs))
	for i, c := range cs {
		out[i] = pb.Card(c)
	}
	return out
}

// EncodeAction implements engine.Game.
func (Game) EncodeAction(a Action) proto.Message {
	switch a.Kind {
	case KindPlace:
		return &pb.Action{Kind: &pb.Action_Place{Place: &pb.PlacePath{Card: pb.Card(a.Card), Cell: cell(a.X, a.Y), Rotated: a.Rot}}}
	case KindPlay:
		return &pb.Action{Kind: &pb.Action_Play{Play: &pb.PlayAction{Card: pb.Card(a.Card), TargetSeat: uint32(a.Target), Tool: pb.Tool(a.Tool), Cell: cell(a.X, a.Y)}}}
	case KindRemove:
		return &pb.Action{Kind: &pb.Action_Remove{Remove: &pb.RemoveInFront{Discards: cards(a.Cards[:2]), InFront: pb.Card(a.InFront)}}}
	case KindDiscard:
		return &pb.Action{Kind: &pb.Action_Discard{Discard: &pb.Discard{Cards: cards(a.Cards[:a.N])}}}
	case KindPick:
		return &pb.Action{Kind: &pb.Action_Pick{Pick: &pb.PickGold{Value: uint32(a.Target)}}}
	case KindSteal:
		return &pb.Action{Kind: &pb.Action_Steal{Steal: &pb.Steal{VictimSeat: uint32(a.Target)}}}
	}
	return &pb.Action{}
}

// Malformed-action codes.
const (
	CodeBadCard = "BAD_CARD"
	CodeBadCell = "BAD_CELL"
	CodeBadTool = "BAD_TOOL"
)

func decodeCell(c *pb.Cell, field string) (int8, int8, error) {
	if c == nil {
		return 0, 0, nil
	}
	if c.X <= -gridR || c.X >= gridR || c.Y <= -gridR || c.Y >= gridR {
		return 0, 0, engine.Invalid(field, CodeBadCell, "cell (%d,%d) is off the board", c.X, c.Y)
	}
	return int8(c.X), int8(c.Y), nil
}

// handCard reports whether c is a card that can be in a hand.
func handCard(c pb.Card) bool {
	return c > 0 && c < pb.Card(numCards) && c != pb.Card_CARD_START && c != pb.Card_CARD_GOAL_GOLD &&
		c != pb.Card_CARD_GOAL_COAL_NW && c != pb.Card_CARD_GOAL_COAL_NE
}

// DecodeAction implements engine.Game: it refuses what can never be valid.
func (Game) DecodeAction(m proto.Message) (Action, error) {
	msg, ok := m.(*pb.Action)
	if !ok || msg == nil {
		return Action{}, engine.Invalid("action", engine.CodeUnknownAction, "not a saboteur action")
	}
	var a Action
	var err error
	switch k := msg.Kind.(type) {
	case *pb.Action_Place:
		p := k.Place
		if p == nil || !handCard(p.Card) || !IsPath(uint8(p.Card)) {
			return a, engine.Invalid("place.card", CodeBadCard, "%v is not a path card", p.GetCard())
		}
		if p.Cell == nil {
			return a, engine.Invalid("place.cell", CodeBadCell, "no cell given")
		}
		a = Action{Kind: KindPlace, Card: uint8(p.Card), Rot: p.Rotated}
		a.X, a.Y, err = decodeCell(p.Cell, "place.cell")
	case *pb.Action_Play:
		p := k.Play
		if p == nil || !handCard(p.Card) || IsPath(uint8(p.Card)) {
			return a, engine.Invalid("play.card", CodeBadCard, "%v is not an action card", p.GetCard())
		}
		if p.TargetSeat >= MaxSeats {
			return a, engine.Invalid("play.target_seat", engine.CodeBadSeat, "seat %d does not exist", p.TargetSeat)
		}
		if p.Tool > pb.Tool_TOOL_CART || p.Tool < 0 {
			return a, engine.Invalid("play.tool", CodeBadTool, "unknown tool %d", p.Tool)
		}
		a = Action{Kind: KindPlay, Card: uint8(p.Card), Target: uint8(p.TargetSeat), Tool: uint8(p.Tool)}
		a.X, a.Y, err = decodeCell(p.Cell, "play.cell")
	case *pb.Action_Remove:
		p := k.Remove
		if p == nil || len(p.Discards) != 2 {
			return a, engine.Invalid("remove.discards", engine.CodeBadAction, "exactly two cards are discarded")
		}
		for _, c := range p.Discards {
			if !handCard(c) {
				return a, engine.Invalid("remove.discards", CodeBadCard, "%v is not a hand card", c)
			}
		}
		if !handCard(p.InFront) || frontBit(uint8(p.InFront)) == 0 {
			return a, engine.Invalid("remove.in_front", CodeBadCard, "%v never lies in front of a player", p.InFront)
		}
		a = Action{Kind: KindRemove, InFront: uint8(p.InFront), N: 2, Cards: [3]uint8{uint8(p.Discards[0]), uint8(p.Discards[1])}}
	case *pb.Action_Discard:
		p := k.Discard
		if p == nil || len(p.Cards) < 1 || len(p.Cards) > 3 {
			return a, engine.Invalid("discard.cards", engine.CodeBadAction, "one to three cards are discarded")
		}
		a = Action{Kind: KindDiscard, N: uint8(len(p.Cards))}
		for i, c := range p.Cards {
			if !handCard(c) {
				return Action{}, engine.Invalid("discard.cards", CodeBadCard, "%v is not a hand card", c)
			}
			a.Cards[i] = uint8(c)
		}
	case *pb.Action_Pick:
		if k.Pick == nil || k.Pick.Value < 1 || k.Pick.Value > 3 {
			return a, engine.Invalid("pick.value", engine.CodeBadAction, "gold cards are worth 1, 2 or 3")
		}
		a = Action{Kind: KindPick, Target: uint8(k.Pick.Value)}
	case *pb.Action_Steal:
		if k.Steal == nil || k.Steal.VictimSeat >= MaxSeats {
			return a, engine.Invalid("steal.victim_seat", engine.CodeBadSeat, "no such seat")
		}
		a = Action{Kind: KindSteal, Target: uint8(k.Steal.VictimSeat)}
	default:
		return a, engine.Invalid("action", engine.CodeUnknownAction, "no action given")
	}
	if err != nil {
		return Action{}, err
	}
	return a, nil
}
