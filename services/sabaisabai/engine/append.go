package engine

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/pbappend"
	"google.golang.org/protobuf/encoding/protowire"
)

var _ engine.ActionAppender[*State, Action] = Game{}

// Field numbers of cardroom.sabaisabai.v1.Action and the messages in it (TestAppender checks the
// bytes against proto.Marshal).
const (
	fieldDraw      protowire.Number = 1
	fieldPlay      protowire.Number = 2
	fieldKeep      protowire.Number = 3
	fieldThrow     protowire.Number = 4
	fieldResolve   protowire.Number = 5
	fieldTouchNose protowire.Number = 6
	fieldCall      protowire.Number = 7

	fieldKeepSlot protowire.Number = 1

	fieldThrowOwner       protowire.Number = 1
	fieldThrowSlots       protowire.Number = 2
	fieldThrowExpectTop   protowire.Number = 3
	fieldThrowExpectTurn  protowire.Number = 4
	fieldThrowExpectCards protowire.Number = 5

	fieldResolveOwnSlot    protowire.Number = 1
	fieldResolveTargetSeat protowire.Number = 2
	fieldResolveTargetSlot protowire.Number = 3
)

// AppendAction implements engine.ActionAppender: EncodeAction's message, written directly.
func (Game) AppendAction(b []byte, a Action) []byte {
	var at int
	switch a.Kind {
	case KindDraw:
		return pbappend.Empty(b, fieldDraw)
	case KindPlay:
		return pbappend.Empty(b, fieldPlay)
	case KindKeep:
		b, at = pbappend.Open(b, fieldKeep)
		b = pbappend.Uint(b, fieldKeepSlot, uint64(a.Slot))
	case KindThrow:
		n := min(a.N, MaxThrow)
		b, at = pbappend.Open(b, fieldThrow)
		b = pbappend.Uint(b, fieldThrowOwner, uint64(a.Owner))
		b = pbappend.Packed(b, fieldThrowSlots, a.Slots[:n])
		b = pbappend.Uint(b, fieldThrowExpectTop, uint64(a.Top))
		b = pbappend.Uint(b, fieldThrowExpectTurn, a.Turn)
		// The cards aimed at are sent only when one of them is named (not thrown blind).
		for _, c := range a.Cards[:n] {
			if c != 0 {
				b = pbappend.Packed(b, fieldThrowExpectCards, a.Cards[:n])
				break
			}
		}
	case KindResolve:
		b, at = pbappend.Open(b, fieldResolve)
		b = pbappend.Uint(b, fieldResolveOwnSlot, uint64(a.Slot))
		b = pbappend.Uint(b, fieldResolveTargetSeat, uint64(a.Target))
		b = pbappend.Uint(b, fieldResolveTargetSlot, uint64(a.TargetSlot))
	case KindTouchNose:
		return pbappend.Empty(b, fieldTouchNose)
	case KindCall:
		return pbappend.Empty(b, fieldCall)
	default:
		return b // an Action with nothing set
	}
	return pbappend.Close(b, at)
}
