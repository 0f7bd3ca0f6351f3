package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// stateVersion 2 adds the timing of Rulings R1 and B1 at the end; version 1 states decode with
// none (no window, no bot delays), as they were played.
const stateVersion = 2

// EncodeState implements engine.Game: a compact, deterministic binary encoding.
func (Game) EncodeState(s *State) ([]byte, error) {
	b := make([]byte, 0, 512)
	b = append(b, stateVersion, s.n, s.peek, boolByte(s.forOthers), s.rounds)
	b = binary.AppendVarint(b, s.noseNS)
	b = binary.AppendVarint(b, s.turnNS)
	rng, err := s.rng.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode rng: %w", err)
	}
	b = append(b, byte(len(rng)))
	b = append(b, rng...)
	b = append(b, s.round, s.starter, s.cur, byte(s.ph), boolByte(s.turnDone))
	b = binary.AppendUvarint(b, s.turn)
	b = binary.AppendUvarint(b, uint64(s.roundTurns))
	b = append(b, s.drawn)
	b = binary.AppendUvarint(b, uint64(s.locked))
	b = append(b, boolByte(s.noseOpen))
	b = binary.AppendUvarint(b, uint64(s.touched))
	b = binary.AppendVarint(b, s.noseAt)
	b = append(b, boolByte(s.called), s.caller, s.lastSeat, s.remaining, byte(s.hall))
	b = binary.AppendVarint(b, s.lastAt)
	for _, v := range s.vp {
		b = binary.AppendVarint(b, int64(v))
	}
	for _, r := range s.rows {
		b = append(b, byte(len(r)))
		b = append(b, r...)
	}
	for _, k := range s.known {
		b = binary.AppendUvarint(b, uint64(k))
	}
	b = append(b, byte(len(s.pile)))
	b = append(b, s.pile...)
	b = append(b, byte(len(s.disc)))
	b = append(b, s.disc...)
	b = append(b, byte(len(s.queue)))
	for _, e := range s.queue {
		b = append(b, e.exec, byte(e.kind), e.to)
	}
	for _, v := range []int64{s.windowNS, s.reactMinNS, s.reactMaxNS, s.thinkNS, s.discAt, s.topAt, s.drawAt, s.pendAt} {
		b = binary.AppendVarint(b, v)
	}
	b = binary.AppendUvarint(b, uint64(s.bots))
	b = binary.AppendUvarint(b, s.seed)
	b = append(b, byte(s.pend), s.pendSlot)
	return b, nil
}

type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("state too short")

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errShort
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || len(r.b) < n {
		r.err = errShort
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// DecodeState implements engine.Game.
func (Game) DecodeState(b []byte) (*State, error) {
	r := &reader{b: b}
	version := r.byte()
	if version != 1 && version != stateVersion {
		return nil, fmt.Errorf("state version %d, want 1 or %d", version, stateVersion)
	}
	s := &State{}
	s.n, s.peek, s.forOthers, s.rounds = r.byte(), r.byte(), r.byte() == 1, r.byte()
	if s.n < 2 || s.n > maxSeat {
		return nil, fmt.Errorf("state has %d seats", s.n)
	}
	s.noseNS = r.varint()
	s.turnNS = r.varint()
	rng := r.bytes(int(r.byte()))
	if r.err == nil {
		if err := s.rng.UnmarshalBinary(rng); err != nil {
			return nil, fmt.Errorf("decode rng: %w", err)
		}
	}
	s.round, s.starter, s.cur, s.ph, s.turnDone = r.byte(), r.byte(), r.byte(), phase(r.byte()), r.byte() == 1
	s.turn = r.uvarint()
	s.roundTurns = uint32(r.uvarint())
	s.drawn = r.byte()
	s.locked = uint16(r.uvarint())
	s.noseOpen = r.byte() == 1
	s.touched = uint16(r.uvarint())
	s.noseAt = r.varint()
	s.called, s.caller, s.lastSeat, s.remaining, s.hall = r.byte() == 1, r.byte(), r.byte(), r.byte(), int8(r.byte())
	s.lastAt = r.varint()
	s.vp = make([]int32, s.n)
	for i := range s.vp {
		s.vp[i] = int32(r.varint())
	}
	s.rows = make([][]uint8, s.n)
	for i := range s.rows {
		n := int(r.byte())
		s.rows[i] = append(make([]uint8, 0, max(8, n)), r.bytes(n)...)
	}
	for i := range s.known {
		s.known[i] = uint16(r.uvarint())
	}
	s.pile = append(make([]uint8, 0, NumCards), r.bytes(int(r.byte()))...)
	s.disc = append(make([]uint8, 0, NumCards), r.bytes(int(r.byte()))...)
	nq := int(r.byte())
	for range nq {
		s.queue = append(s.queue, effect{exec: r.byte(), kind: effectKind(r.byte()), to: r.byte()})
	}
	if version >= 2 {
		for _, v := range []*int64{&s.windowNS, &s.reactMinNS, &s.reactMaxNS, &s.thinkNS, &s.discAt, &s.topAt, &s.drawAt, &s.pendAt} {
			*v = r.varint()
		}
		s.bots = uint16(r.uvarint())
		s.seed = r.uvarint()
		s.pend, s.pendSlot = Kind(r.byte()), r.byte()
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%d trailing bytes", len(r.b))
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// validate checks a decoded state enough that no action can make it panic: every card once,
// seats and effects in range.
func (s *State) validate() error {
	var seen [NumCards]bool
	mark := func(id uint8) error {
		if id >= NumCards || seen[id] {
			return fmt.Errorf("card id %d invalid or repeated", id)
		}
		seen[id] = true
		return nil
	}
	for _, r := range s.rows {
		for _, id := range r {
			if id == noCard {
				continue
			}
			if err := mark(id); err != nil {
				return err
			}
		}
	}
	for _, id := range s.pile {
		if err := mark(id); err != nil {
			return err
		}
	}
	for _, id := range s.disc {
		if err := mark(id); err != nil {
			return err
		}
	}
	if s.drawn != noCard {
		if err := mark(s.drawn); err != nil {
			return err
		}
	}
	if c := s.Conservation(); c != NumCards {
		return fmt.Errorf("state holds %d cards, not %d", c, NumCards)
	}
	if s.cur >= s.n || s.starter >= s.n || s.caller >= s.n || s.lastSeat >= s.n || s.ph > phaseOver ||
		int(s.hall) >= int(s.n) || s.rounds == 0 || s.round > s.rounds || s.peek > rowSize {
		return errors.New("state fields out of range")
	}
	if s.pend != 0 && s.pend != KindPlay && s.pend != KindKeep || s.bots>>s.n != 0 ||
		s.windowNS < 0 || s.reactMinNS < 0 || s.reactMaxNS < s.reactMinNS || s.thinkNS < 0 {
		return errors.New("timing fields out of range")
	}
	for _, e := range s.queue {
		if e.exec >= s.n || e.to >= s.n || e.kind < effPeek || e.kind > effGiveBack {
			return errors.New("pending effect out of range")
		}
	}
	return nil
}
