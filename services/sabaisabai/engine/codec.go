package engine

import (
	"encoding/binary"
	"errors"
	"fmt"

	"cardroom.dev/services/kit/engine/codec"
)

// stateVersion 2 adds the timing of Rulings R1 and B1 at the end; version 1 states decode with
// none (no window, no bot delays), as they were played.
// Version 3 adds the turn of the last discard (discTurn, Ruling T1) at the end.
const stateVersion = 3

// EncodeState implements engine.Game: a compact, deterministic binary encoding.
func (Game) EncodeState(s *State) ([]byte, error) {
	b := make([]byte, 0, 512)
	b = append(b, stateVersion, s.n, s.peek, codec.BoolByte(s.forOthers), s.rounds)
	b = binary.AppendVarint(b, s.noseNS)
	b = binary.AppendVarint(b, s.turnNS)
	rng, err := s.rng.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode rng: %w", err)
	}
	b = append(b, byte(len(rng)))
	b = append(b, rng...)
	b = append(b, s.round, s.starter, s.cur, byte(s.ph), codec.BoolByte(s.turnDone))
	b = binary.AppendUvarint(b, s.turn)
	b = binary.AppendUvarint(b, uint64(s.roundTurns))
	b = append(b, s.drawn)
	b = binary.AppendUvarint(b, uint64(s.locked))
	b = append(b, codec.BoolByte(s.noseOpen))
	b = binary.AppendUvarint(b, uint64(s.touched))
	b = binary.AppendVarint(b, s.noseAt)
	b = append(b, codec.BoolByte(s.called), s.caller, s.lastSeat, s.remaining, byte(s.hall))
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
	b = binary.AppendUvarint(b, s.discTurn)
	return b, nil
}

// DecodeState implements engine.Game.
func (Game) DecodeState(b []byte) (*State, error) {
	r := codec.NewReader(b)
	version := r.Byte()
	if version < 1 || version > stateVersion {
		return nil, fmt.Errorf("state version %d, want 1 to %d", version, stateVersion)
	}
	s := &State{}
	s.n, s.peek, s.forOthers, s.rounds = r.Byte(), r.Byte(), r.Byte() == 1, r.Byte()
	if s.n < 2 || s.n > maxSeat {
		return nil, fmt.Errorf("state has %d seats", s.n)
	}
	s.noseNS = r.Varint()
	s.turnNS = r.Varint()
	rng := r.Next(int(r.Byte()))
	if r.Err() == nil {
		if err := s.rng.UnmarshalBinary(rng); err != nil {
			return nil, fmt.Errorf("decode rng: %w", err)
		}
	}
	s.round, s.starter, s.cur, s.ph, s.turnDone = r.Byte(), r.Byte(), r.Byte(), phase(r.Byte()), r.Byte() == 1
	s.turn = r.Uvarint()
	s.roundTurns = uint32(r.Uvarint())
	s.drawn = r.Byte()
	s.locked = uint16(r.Uvarint())
	s.noseOpen = r.Byte() == 1
	s.touched = uint16(r.Uvarint())
	s.noseAt = r.Varint()
	s.called, s.caller, s.lastSeat, s.remaining, s.hall = r.Byte() == 1, r.Byte(), r.Byte(), r.Byte(), int8(r.Byte())
	s.lastAt = r.Varint()
	s.vp = make([]int32, s.n)
	for i := range s.vp {
		s.vp[i] = int32(r.Varint())
	}
	s.rows = make([][]uint8, s.n)
	for i := range s.rows {
		n := int(r.Byte())
		s.rows[i] = append(make([]uint8, 0, max(8, n)), r.Next(n)...)
	}
	for i := range s.known {
		s.known[i] = uint16(r.Uvarint())
	}
	s.pile = append(make([]uint8, 0, NumCards), r.Next(int(r.Byte()))...)
	s.disc = append(make([]uint8, 0, NumCards), r.Next(int(r.Byte()))...)
	nq := int(r.Byte())
	for range nq {
		s.queue = append(s.queue, effect{exec: r.Byte(), kind: effectKind(r.Byte()), to: r.Byte()})
	}
	if version >= 2 {
		for _, v := range []*int64{&s.windowNS, &s.reactMinNS, &s.reactMaxNS, &s.thinkNS, &s.discAt, &s.topAt, &s.drawAt, &s.pendAt} {
			*v = r.Varint()
		}
		s.bots = uint16(r.Uvarint())
		s.seed = r.Uvarint()
		s.pend, s.pendSlot = Kind(r.Byte()), r.Byte()
	}
	// Before version 3 a throw had to name the current turn: a state stored then keeps that rule
	// until its next discard.
	s.discTurn = s.turn
	if version >= 3 {
		s.discTurn = r.Uvarint()
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%d trailing bytes", r.Len())
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
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
