package engine

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/pbappend"
	"google.golang.org/protobuf/encoding/protowire"
)

var _ engine.ActionAppender[*State, Action] = Game{}

// Field numbers of cardroom.saboteur.v1.Action and the messages in it (TestAppender checks the
// bytes against proto.Marshal).
const (
	fieldPlace   protowire.Number = 1
	fieldPlay    protowire.Number = 2
	fieldRemove  protowire.Number = 3
	fieldDiscard protowire.Number = 4
	fieldPick    protowire.Number = 5
	fieldSteal   protowire.Number = 6

	fieldPlaceCard    protowire.Number = 1
	fieldPlaceCell    protowire.Number = 2
	fieldPlaceRotated protowire.Number = 3

	fieldPlayCard   protowire.Number = 1
	fieldPlayTarget protowire.Number = 2
	fieldPlayTool   protowire.Number = 3
	fieldPlayCell   protowire.Number = 4

	fieldRemoveDiscards protowire.Number = 1
	fieldRemoveInFront  protowire.Number = 2

	fieldDiscardCards protowire.Number = 1
	fieldPickValue    protowire.Number = 1
	fieldStealVictim  protowire.Number = 1

	fieldCellX protowire.Number = 1
	fieldCellY protowire.Number = 2
)

// AppendAction implements engine.ActionAppender: EncodeAction's message, written directly.
func (Game) AppendAction(b []byte, a Action) []byte {
	var at int
	switch a.Kind {
	case KindPlace:
		b, at = pbappend.Open(b, fieldPlace)
		b = pbappend.Uint(b, fieldPlaceCard, uint64(a.Card))
		b = appendCellField(b, fieldPlaceCell, a.X, a.Y)
		b = pbappend.Bool(b, fieldPlaceRotated, a.Rot)
	case KindPlay:
		b, at = pbappend.Open(b, fieldPlay)
		b = pbappend.Uint(b, fieldPlayCard, uint64(a.Card))
		b = pbappend.Uint(b, fieldPlayTarget, uint64(a.Target))
		b = pbappend.Uint(b, fieldPlayTool, uint64(a.Tool))
		b = appendCellField(b, fieldPlayCell, a.X, a.Y)
	case KindRemove:
		b, at = pbappend.Open(b, fieldRemove)
		b = pbappend.Packed(b, fieldRemoveDiscards, a.Cards[:2])
		b = pbappend.Uint(b, fieldRemoveInFront, uint64(a.InFront))
	case KindDiscard:
		b, at = pbappend.Open(b, fieldDiscard)
		b = pbappend.Packed(b, fieldDiscardCards, a.Cards[:a.N])
	case KindPick:
		b, at = pbappend.Open(b, fieldPick)
		b = pbappend.Uint(b, fieldPickValue, uint64(a.Target))
	case KindSteal:
		b, at = pbappend.Open(b, fieldSteal)
		b = pbappend.Uint(b, fieldStealVictim, uint64(a.Target))
	default:
		return b // an Action with nothing set
	}
	return pbappend.Close(b, at)
}

// appendCellField appends the cell (x, y) as field n (always present, as cell() makes it).
func appendCellField(b []byte, n protowire.Number, x, y int8) []byte {
	b, at := pbappend.Open(b, n)
	b = pbappend.Int(b, fieldCellX, int64(x))
	b = pbappend.Int(b, fieldCellY, int64(y))
	return pbappend.Close(b, at)
}
