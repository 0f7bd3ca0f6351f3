package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The state encoding is a compact hand-written binary: a version byte, then every field in a fixed
// order (slices with a length prefix). The board's grid and reachability are rebuilt on decoding.
const stateVersion = 1

type writer struct{ b []byte }

func (w *writer) u8(v uint8)  { w.b = append(w.b, v) }
func (w *writer) bool(v bool) { w.u8(uint8(b2i(v))) }
func (w *writer) uv(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *writer) iv(v int64)  { w.b = binary.AppendVarint(w.b, v) }
func (w *writer) bytes(v []uint8) {
	w.uv(uint64(len(v)))
	w.b = append(w.b, v...)
}
func (w *writer) ints(v []int) {
	w.uv(uint64(len(v)))
	for _, x := range v {
		w.iv(int64(x))
	}
}

type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("state encoding is truncated")

func (r *reader) u8() uint8 {
	if r.err != nil || len(r.b) == 0 {
		r.err = errShort
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}
func (r *reader) bool() bool { return r.u8() != 0 }
func (r *reader) uv() uint64 {
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
func (r *reader) iv() int64 {
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
func (r *reader) bytes() []uint8 {
	n := r.uv()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errShort
		return nil
	}
	v := append([]uint8(nil), r.b[:n]...)
	r.b = r.b[n:]
	return v
}
func (r *reader) ints() []int {
	n := r.uv()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errShort
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = int(r.iv())
	}
	return v
}

// EncodeState implements engine.Game.
func (Game) EncodeState(s *State) ([]byte, error) {
	w := &writer{b: make([]byte, 0, 1024)}
	w.u8(stateVersion)
	w.bool(s.classic)
	w.bool(s.discard2)
	w.uv(uint64(s.n))
	w.iv(s.turnTime)
	w.iv(s.lastAt)
	rng, err := s.rng.MarshalBinary()
	if err != nil {
		return nil, err
	}
	w.bytes(rng)
	w.uv(uint64(s.round))
	w.u8(s.phase)
	w.uv(uint64(s.cur))
	w.uv(uint64(s.lastPlayer))
	w.ints(s.nuggets)
	w.bytes(s.roles)
	w.bytes(s.aside)
	w.bytes(s.roleOut)
	for _, h := range s.hands {
		w.bytes(h)
	}
	w.bytes(s.front)
	for _, t := range s.theftAt {
		w.uv(uint64(t))
	}
	w.uv(uint64(s.seq))
	w.bytes(s.pile)
	w.bytes(s.removed)
	w.bytes(s.spent)
	w.uv(uint64(len(s.b.slots)))
	for _, sl := range s.b.slots {
		w.iv(int64(sl.x))
		w.iv(int64(sl.y))
		w.u8(sl.card)
		w.bool(sl.rot)
		w.bool(sl.faceDown)
	}
	w.u8(s.b.touched)
	w.bytes(s.goals[:])
	w.bytes(s.mapped)
	w.bytes(s.seen)
	w.bytes(s.goldDeck)
	w.bytes(s.offer)
	w.ints(s.thieves)
	l := &s.last
	w.uv(uint64(l.round))
	w.bool(l.goldReached)
	w.uv(uint64(l.connector))
	w.bytes(l.roles)
	w.ints(l.winners)
	w.ints(l.payouts)
	w.bool(l.blueOpen)
	w.bool(l.greenOpen)
	w.uv(uint64(l.crystals))
	w.bool(s.over)
	return w.b, nil
}

// DecodeState implements engine.Game.
func (Game) DecodeState(b []byte) (*State, error) {
	r := &reader{b: b}
	if v := r.u8(); v != stateVersion {
		return nil, fmt.Errorf("state version %d, want %d", v, stateVersion)
	}
	s := &State{}
	s.classic = r.bool()
	s.discard2 = r.bool()
	s.n = int(r.uv())
	if r.err == nil && (s.n < 2 || s.n > MaxSeats) {
		return nil, fmt.Errorf("bad seat count %d", s.n)
	}
	s.turnTime = r.iv()
	s.lastAt = r.iv()
	if err := s.rng.UnmarshalBinary(r.bytes()); err != nil && r.err == nil {
		return nil, fmt.Errorf("rng: %w", err)
	}
	s.round = int(r.uv())
	s.phase = r.u8()
	s.cur = int(r.uv())
	s.lastPlayer = int(r.uv())
	s.nuggets = r.ints()
	s.roles = r.bytes()
	s.aside = r.bytes()
	s.roleOut = r.bytes()
	s.hands = make([][]uint8, s.n)
	for i := range s.hands {
		s.hands[i] = r.bytes()
	}
	s.front = r.bytes()
	s.theftAt = make([]uint16, s.n)
	for i := range s.theftAt {
		s.theftAt[i] = uint16(r.uv())
	}
	s.seq = uint16(r.uv())
	s.pile = r.bytes()
	s.removed = r.bytes()
	s.spent = r.bytes()
	ns := r.uv()
	if ns < 4 || ns > 200 {
		r.err = errors.New("bad board")
	}
	for i := uint64(0); i < ns && r.err == nil; i++ {
		sl := slot{x: int8(r.iv()), y: int8(r.iv()), card: r.u8(), rot: r.bool(), faceDown: r.bool()}
		if sl.card >= numCards || !inGrid(int(sl.x), int(sl.y)) || s.b.at(int(sl.x), int(sl.y)) >= 0 {
			r.err = errors.New("bad board card")
			break
		}
		s.b.add(sl)
	}
	s.b.touched = r.u8()
	copy(s.goals[:], r.bytes())
	s.mapped = r.bytes()
	s.seen = r.bytes()
	s.goldDeck = r.bytes()
	s.offer = r.bytes()
	s.thieves = r.ints()
	l := &s.last
	l.round = int(r.uv())
	l.goldReached = r.bool()
	l.connector = int(r.uv())
	l.roles = r.bytes()
	l.winners = r.ints()
	l.payouts = r.ints()
	l.blueOpen = r.bool()
	l.greenOpen = r.bool()
	l.crystals = int(r.uv())
	s.over = r.bool()
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, errors.New("trailing bytes after the state")
	}
	if len(s.nuggets) != s.n || len(s.roles) != s.n || len(s.front) != s.n || len(s.mapped) != s.n ||
		len(s.seen) != s.n*s.n || s.cur >= s.n || s.lastPlayer >= s.n {
		return nil, errors.New("inconsistent state")
	}
	if err := s.validShape(); err != nil {
		return nil, err
	}
	s.b.rebuildFrontier()
	s.b.recompute()
	return s, nil
}

// validShape refuses a decoded state whose fields could not come from a game.
func (s *State) validShape() error {
	bad := errors.New("inconsistent state")
	if len(s.b.slots) < 4 || s.b.slots[0].card != cStart || s.b.slots[0].faceDown || s.b.slots[0].x != 0 || s.b.slots[0].y != 0 {
		return bad
	}
	for i, sl := range s.b.slots {
		switch {
		case i >= 1 && i <= 3:
			if sl.x != GoalX || int(sl.y) != goalY[i-1] || (sl.card != cGold && sl.card != cCoalNE && sl.card != cCoalNW) {
				return bad
			}
		case i > 3:
			if !IsPath(sl.card) || sl.faceDown {
				return bad
			}
		}
	}
	cardsOK := func(cs []uint8) bool {
		for _, c := range cs {
			if c == 0 || c >= numCards {
				return false
			}
		}
		return true
	}
	for _, h := range s.hands {
		if !cardsOK(h) {
			return bad
		}
	}
	if !cardsOK(s.pile) || !cardsOK(s.removed) || !cardsOK(s.spent) || s.phase < phaseTurn || s.phase > phaseOver {
		return bad
	}
	for _, r := range append(append(append([]uint8(nil), s.roles...), s.aside...), s.last.roles...) {
		if r == 0 || r > roleProfiteer {
			return bad
		}
	}
	for _, t := range s.thieves {
		if t < 0 || t >= s.n {
			return bad
		}
	}
	for _, v := range s.offer {
		if v < 1 || v > 3 {
			return bad
		}
	}
	if s.phase == phaseTurn && len(s.hands[s.cur]) == 0 || s.phase == phasePickGold && len(s.offer) == 0 ||
		s.phase == phaseTheft && len(s.thieves) == 0 || len(s.last.payouts) > s.n || len(s.last.winners) > s.n {
		return bad
	}
	return nil
}
