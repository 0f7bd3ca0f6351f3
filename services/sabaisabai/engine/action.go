package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Kind is the kind of an Action.
type Kind uint8

// Action kinds.
const (
	KindDraw Kind = iota + 1
	KindPlay
	KindKeep
	KindThrow
	KindResolve
	KindTouchNose
	KindCall
)

// MaxThrow is the most cards one throw may name: no more identical cards can remain once one
// lies on top (four of a rank, five of the joker class).
const MaxThrow = 4

// Action is a move in the engine's own form: a small value, so Legal does not allocate.
type Action struct {
	Kind Kind
	// Throw: the row thrown from, how many slots, the slots in order, and what was aimed at: the
	// top, the turn and, per slot, the card believed there (0: thrown blind).
	Owner uint8
	N     uint8
	Slots [MaxThrow]uint8
	Cards [MaxThrow]uint8
	Top   uint8
	Turn  uint64
	// Keep: the slot. Resolve: own slot, target seat and target slot.
	Slot       uint8
	Target     uint8
	TargetSlot uint8
}

// Throw builds a throw action that names no card (every slot thrown blind).
func Throw(owner uint8, top uint8, turn uint64, slots ...uint8) Action {
	a := Action{Kind: KindThrow, Owner: owner, Top: top, Turn: turn, N: uint8(len(slots))}
	copy(a.Slots[:], slots)
	return a
}

// Aimed returns the throw with the cards believed in its slots, in slot order (0: not known).
func (a Action) Aimed(cards ...uint8) Action {
	copy(a.Cards[:], cards)
	return a
}

// Codes of sabai-sabai's own violations.
const (
	CodeStaleThrow       = "STALE_THROW"
	CodeNothingToThrowOn = "NOTHING_TO_THROW_ON"
	CodeThrowLocked      = "THROW_LOCKED"
	CodeNoSuchSlot       = "NO_SUCH_SLOT"
	CodeNotKnown         = "CARD_NOT_KNOWN"
	CodeOwnerPriority    = "OWNER_HAS_PRIORITY"
	CodeForOthersOff     = "THROW_FOR_OTHERS_OFF"
	CodeWrongPhase       = "WRONG_PHASE"
	CodeEffectPending    = "EFFECT_PENDING"
	CodeNotExecutor      = "NOT_EFFECT_EXECUTOR"
	CodeBadTarget        = "BAD_TARGET"
	CodeNoNoseWindow     = "NO_NOSE_WINDOW"
	CodeAlreadyTouched   = "ALREADY_TOUCHED"
	CodeAlreadyCalled    = "ALREADY_CALLED"
	CodeFinalRound       = "FINAL_ROUND_NO_CALL"
	CodeRoundEnding      = "ROUND_ENDING"
	CodeDuplicateSlot    = "DUPLICATE_SLOT"
	CodeBadCard          = "BAD_CARD"
	CodeDiscardPending   = "DISCARD_PENDING"
	CodeBotReacting      = "BOT_REACTING"
)

// EncodeAction implements engine.Game.
func (Game) EncodeAction(a Action) proto.Message {
	switch a.Kind {
	case KindDraw:
		return &pb.Action{Kind: &pb.Action_Draw{Draw: &pb.Draw{}}}
	case KindPlay:
		return &pb.Action{Kind: &pb.Action_Play{Play: &pb.Play{}}}
	case KindKeep:
		return &pb.Action{Kind: &pb.Action_Keep{Keep: &pb.Keep{Slot: uint32(a.Slot)}}}
	case KindThrow:
		t := &pb.Throw{Owner: uint32(a.Owner), ExpectTop: uint32(a.Top), ExpectTurn: a.Turn}
		named := false
		for i, sl := range a.Slots[:min(a.N, MaxThrow)] {
			t.Slots = append(t.Slots, uint32(sl))
			named = named || a.Cards[i] != 0
		}
		if named {
			for _, c := range a.Cards[:min(a.N, MaxThrow)] {
				t.ExpectCards = append(t.ExpectCards, uint32(c))
			}
		}
		return &pb.Action{Kind: &pb.Action_Throw{Throw: t}}
	case KindResolve:
		return &pb.Action{Kind: &pb.Action_Resolve{Resolve: &pb.Resolve{
			OwnSlot: uint32(a.Slot), TargetSeat: uint32(a.Target), TargetSlot: uint32(a.TargetSlot)}}}
	case KindTouchNose:
		return &pb.Action{Kind: &pb.Action_TouchNose{TouchNose: &pb.TouchNose{}}}
	case KindCall:
		return &pb.Action{Kind: &pb.Action_CallSabaiSabai{CallSabaiSabai: &pb.CallSabaiSabai{}}}
	}
	return &pb.Action{}
}

// DecodeAction implements engine.Game. Numbers that can never be valid (a seat past 11, a slot
// past 60, a card past 16, no or too many or repeated slots) are Malformed.
func (Game) DecodeAction(m proto.Message) (Action, error) {
	msg, ok := m.(*pb.Action)
	if !ok || msg == nil {
		return Action{}, engine.Invalid("action", engine.CodeUnknownAction, "not a sabai-sabai action")
	}
	switch k := msg.Kind.(type) {
	case *pb.Action_Draw:
		return Action{Kind: KindDraw}, nil
	case *pb.Action_Play:
		return Action{Kind: KindPlay}, nil
	case *pb.Action_Keep:
		if k.Keep.GetSlot() >= NumCards {
			return Action{}, engine.Invalid("keep.slot", CodeNoSuchSlot, "slot %d does not exist", k.Keep.GetSlot())
		}
		return Action{Kind: KindKeep, Slot: uint8(k.Keep.GetSlot())}, nil
	case *pb.Action_Throw:
		t := k.Throw
		if t == nil {
			t = &pb.Throw{}
		}
		a := Action{Kind: KindThrow}
		if t.Owner >= maxSeat {
			return Action{}, engine.Invalid("throw.owner", engine.CodeBadSeat, "seat %d does not exist", t.Owner)
		}
		if len(t.Slots) == 0 || len(t.Slots) > MaxThrow {
			return Action{}, engine.Invalid("throw.slots", engine.CodeBadAction,
				"a throw names 1 to %d slots, not %d", MaxThrow, len(t.Slots))
		}
		if t.ExpectTop < 1 || t.ExpectTop > AssJoker {
			return Action{}, engine.Invalid("throw.expect_top", CodeBadCard, "card %d does not exist", t.ExpectTop)
		}
		a.Owner, a.Top, a.Turn, a.N = uint8(t.Owner), uint8(t.ExpectTop), t.ExpectTurn, uint8(len(t.Slots))
		for i, sl := range t.Slots {
			if sl >= NumCards {
				return Action{}, engine.Invalid("throw.slots", CodeNoSuchSlot, "slot %d does not exist", sl)
			}
			for _, prev := range t.Slots[:i] {
				if prev == sl {
					return Action{}, engine.Invalid("throw.slots", CodeDuplicateSlot, "slot %d named twice", sl)
				}
			}
			a.Slots[i] = uint8(sl)
		}
		if len(t.ExpectCards) > 0 && len(t.ExpectCards) != len(t.Slots) {
			return Action{}, engine.Invalid("throw.expect_cards", engine.CodeBadAction,
				"expect_cards names %d cards for %d slots; give one per slot or none", len(t.ExpectCards), len(t.Slots))
		}
		for i, c := range t.ExpectCards {
			if c > AssJoker {
				return Action{}, engine.Invalid("throw.expect_cards", CodeBadCard, "card %d does not exist", c)
			}
			a.Cards[i] = uint8(c)
		}
		return a, nil
	case *pb.Action_Resolve:
		r := k.Resolve
		if r.GetOwnSlot() >= NumCards || r.GetTargetSlot() >= NumCards {
			return Action{}, engine.Invalid("resolve", CodeNoSuchSlot, "slot does not exist")
		}
		if r.GetTargetSeat() >= maxSeat {
			return Action{}, engine.Invalid("resolve.target_seat", engine.CodeBadSeat,
				"seat %d does not exist", r.GetTargetSeat())
		}
		return Action{Kind: KindResolve, Slot: uint8(r.GetOwnSlot()), Target: uint8(r.GetTargetSeat()),
			TargetSlot: uint8(r.GetTargetSlot())}, nil
	case *pb.Action_TouchNose:
		return Action{Kind: KindTouchNose}, nil
	case *pb.Action_CallSabaiSabai:
		return Action{Kind: KindCall}, nil
	}
	return Action{}, engine.Invalid("action", engine.CodeUnknownAction, "the action names no kind")
}
