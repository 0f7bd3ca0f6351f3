package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"unsafe"
)

// The frequent events are built in one box each: the Event, its oneof wrapper and the message
// share one allocation (the interior pointers keep it alive). The messages are never copied.
// Each event's box is a box (or throwBox) of its wrapper and message types; its method fills the
// message and links the three, which generated oneof wrappers leave to code that names them.

// box is an Event of kind W (a oneof wrapper) carrying M.
type box[W, M any] struct {
	e pb.Event
	w W
	m M
}

// throwBox is a box with room for a throw's slots and the cards aimed at.
type throwBox[W, M any] struct {
	e            pb.Event
	w            W
	m            M
	slots, cards [MaxThrow]uint32
}

type turnStartedBox box[pb.Event_TurnStarted, pb.TurnStarted]

func (b *turnStartedBox) event(seat uint8, turn uint64) *pb.Event {
	b.m.Seat, b.m.Turn = uint32(seat), turn
	b.w.TurnStarted = &b.m
	b.e.Kind = &b.w
	return &b.e
}

type drewBox box[pb.Event_Drew, pb.Drew]

func (b *drewBox) event(seat uint8) *pb.Event {
	b.m.Seat = uint32(seat)
	b.w.Drew = &b.m
	b.e.Kind = &b.w
	return &b.e
}

type drewCardBox box[pb.Event_DrewCard, pb.DrewCard]

func (b *drewCardBox) event(n uint8) *pb.Event {
	b.m.Card = uint32(n)
	b.w.DrewCard = &b.m
	b.e.Kind = &b.w
	return &b.e
}

type playedBox box[pb.Event_Played, pb.Played]

func (b *playedBox) event(seat, n uint8) *pb.Event {
	b.m.Seat, b.m.Card = uint32(seat), uint32(n)
	b.w.Played = &b.m
	b.e.Kind = &b.w
	return &b.e
}

type keptBox box[pb.Event_Kept, pb.Kept]

func (b *keptBox) event(seat, slot, n uint8) *pb.Event {
	b.m.Seat, b.m.Slot, b.m.Discarded = uint32(seat), uint32(slot), uint32(n)
	b.w.Kept = &b.m
	b.e.Kind = &b.w
	return &b.e
}

type thrownBox throwBox[pb.Event_Thrown, pb.Thrown]

func (b *thrownBox) event(thrower, owner uint8) (*pb.Event, *[MaxThrow]uint32, *[MaxThrow]uint32, *pb.Thrown) {
	b.m.Thrower, b.m.Owner = uint32(thrower), uint32(owner)
	b.w.Thrown = &b.m
	b.e.Kind = &b.w
	return &b.e, &b.slots, &b.cards, &b.m
}

type wrongThrowBox throwBox[pb.Event_WrongThrow, pb.WrongThrow]

func (b *wrongThrowBox) event(thrower, owner uint8) (*pb.Event, *[MaxThrow]uint32, *[MaxThrow]uint32, *pb.WrongThrow) {
	b.m.Thrower, b.m.Owner = uint32(thrower), uint32(owner)
	b.w.WrongThrow = &b.m
	b.e.Kind = &b.w
	return &b.e, &b.slots, &b.cards, &b.m
}

type penaltyBox box[pb.Event_PenaltyCard, pb.PenaltyCard]

func (b *penaltyBox) event(seat uint8, why pb.PenaltyReason) (*pb.Event, *pb.PenaltyCard) {
	b.m.Seat, b.m.Reason = uint32(seat), why
	b.w.PenaltyCard = &b.m
	b.e.Kind = &b.w
	return &b.e, &b.m
}

type effectQueuedBox struct {
	e pb.Event
	w pb.Event_EffectQueued
	m pb.EffectQueued
	p pb.PendingEffect
}

func (s *State) evEffectQueued(e effect) *pb.Event {
	b := s.mem.queued.get()
	b.p.Executor, b.p.Effect, b.p.ToSeat = uint32(e.exec), pb.Effect(e.kind), uint32(e.to)
	b.m.Effect = &b.p
	b.w.EffectQueued = &b.m
	b.e.Kind = &b.w
	return &b.e
}

type noseTouchedBox box[pb.Event_NoseTouched, pb.NoseTouched]

func evNoseTouched(seat uint8) *pb.Event {
	b := &noseTouchedBox{}
	b.m.Seat = uint32(seat)
	b.w.NoseTouched = &b.m
	b.e.Kind = &b.w
	return &b.e
}

type reshuffledBox box[pb.Event_Reshuffled, pb.Reshuffled]

func evReshuffled(size int) *pb.Event {
	b := &reshuffledBox{}
	b.m.DrawSize = uint32(size)
	b.w.Reshuffled = &b.m
	b.e.Kind = &b.w
	return &b.e
}

// revealFrame holds the events of a keep that reveals the Ass Joker (Ruling A2): the reveal and
// the drawn card's play.
type revealFrame struct {
	e      pb.Event
	w      pb.Event_AssJokerRevealed
	m      pb.AssJokerRevealed
	played playedBox
}

func (b *revealFrame) event(seat, slot uint8) *pb.Event {
	b.m.Seat, b.m.Slot = uint32(seat), uint32(slot)
	b.w.AssJokerRevealed = &b.m
	b.e.Kind = &b.w
	return &b.e
}

// The resolutions of effects: each frame holds the event list and its events.

// frame is an effect's list and its one event, of kind W carrying M.
type frame[W, M any] struct {
	evs [2]engine.Event
	e   pb.Event
	w   W
	m   M
}

// pairFrame is an effect's list and its two events: what the table sees (W1, M1) and what one seat
// learns (W2, M2).
type pairFrame[W1, M1, W2, M2 any] struct {
	evs [2]engine.Event
	e1  pb.Event
	w1  W1
	m1  M1
	e2  pb.Event
	w2  W2
	m2  M2
}

type peekFrame pairFrame[pb.Event_Peeked, pb.Peeked, pb.Event_PeekResult, pb.PeekResult]

func (f *peekFrame) events() (*pb.Event, *pb.Peeked, *pb.Event, *pb.PeekResult) {
	f.w1.Peeked, f.w2.PeekResult = &f.m1, &f.m2
	f.e1.Kind, f.e2.Kind = &f.w1, &f.w2
	return &f.e1, &f.m1, &f.e2, &f.m2
}

type spyFrame pairFrame[pb.Event_Spied, pb.Spied, pb.Event_SpyResult, pb.SpyResult]

func (f *spyFrame) events() (*pb.Event, *pb.Spied, *pb.Event, *pb.SpyResult) {
	f.w1.Spied, f.w2.SpyResult = &f.m1, &f.m2
	f.e1.Kind, f.e2.Kind = &f.w1, &f.w2
	return &f.e1, &f.m1, &f.e2, &f.m2
}

type gaveFrame frame[pb.Event_Gave, pb.Gave]

func (f *gaveFrame) event() (*pb.Event, *pb.Gave) {
	f.w.Gave = &f.m
	f.e.Kind = &f.w
	return &f.e, &f.m
}

type switchedFrame frame[pb.Event_Switched, pb.Switched]

func (f *switchedFrame) event() (*pb.Event, *pb.Switched) {
	f.w.Switched = &f.m
	f.e.Kind = &f.w
	return &f.e, &f.m
}

// The turn actions go further: the event list and the action's usual events share one frame (the
// next turn's TurnStarted included). The list holds the usual two events; a rarer longer list (a
// reshuffle, a nose window, the round's end) grows out of the frame.

type drawFrame struct {
	evs  [2]engine.Event
	drew drewBox
	card drewCardBox
}

type playFrame struct {
	evs    [2]engine.Event
	played playedBox
	turn   turnStartedBox
}

type keepFrame struct {
	evs  [2]engine.Event
	kept keptBox
	turn turnStartedBox
}

type wrongFrame struct {
	evs   [4]engine.Event
	wrong wrongThrowBox
	pen   penaltyBox
}

type thrownFrame struct {
	evs    [6]engine.Event
	thrown thrownBox
}

// frames lends the frames of the frequent actions (and the boxes of queued effects) from chunks, so
// that a state applying many actions (a playout, a bot's search) allocates once per chunk. The
// chunks double from one value up to about chunkBytes: a state decoded to apply a single action
// allocates no more than one value. A lent value is never lent again, so events handed out are
// never changed. The chunks belong to one state: Clone and DecodeState start without any.
type frames struct {
	draw   pool[drawFrame]
	play   pool[playFrame]
	keep   pool[keepFrame]
	queued pool[effectQueuedBox]
	turn   pool[turnStartedBox] // a TurnStarted no action's frame holds
}

// chunkBytes is the most a chunk takes: a size class of the allocator, which a chunk of the
// largest whole number of values fills with little waste.
const chunkBytes = 2048

type pool[T any] struct {
	chunk []T
	used  int // values of chunk lent (an index, not a reslice: no pointer is written per value)
}

func (p *pool[T]) get() *T {
	if p.used == len(p.chunk) {
		var v T
		p.chunk = make([]T, max(min(2*len(p.chunk), chunkBytes/int(unsafe.Sizeof(v))), 1))
		p.used = 0
	}
	v := &p.chunk[p.used]
	p.used++
	return v
}

func emit(evs *[]engine.Event, to int, e *pb.Event) {
	*evs = append(*evs, engine.Event{To: to, Payload: e})
}
