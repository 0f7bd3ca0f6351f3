package engine

import (
	"errors"
	"fmt"

	"cardroom.dev/services/kit/engine/codec"
)

// The state encoding is a compact hand-written binary: a version byte, then every field in a fixed
// order (slices with a length prefix). The board's grid and reachability are rebuilt on decoding.
const stateVersion = 1

// EncodeState implements engine.Game.
func (Game) EncodeState(s *State) ([]byte, error) {
	w := &codec.Writer{B: make([]byte, 0, 1024)}
	w.Byte(stateVersion)
	w.Bool(s.classic)
	w.Bool(s.discard2)
	w.Uvarint(uint64(s.n))
	w.Varint(s.turnTime)
	w.Varint(s.lastAt)
	rng, err := s.rng.MarshalBinary()
	if err != nil {
		return nil, err
	}
	w.Bytes(rng)
	w.Uvarint(uint64(s.round))
	w.Byte(s.phase)
	w.Uvarint(uint64(s.cur))
	w.Uvarint(uint64(s.lastPlayer))
	w.Ints(s.nuggets)
	w.Bytes(s.roles)
	w.Bytes(s.aside)
	w.Bytes(s.roleOut)
	for _, h := range s.hands {
		w.Bytes(h)
	}
	w.Bytes(s.front)
	for _, t := range s.theftAt {
		w.Uvarint(uint64(t))
	}
	w.Uvarint(uint64(s.seq))
	w.Bytes(s.pile)
	w.Bytes(s.removed)
	w.Bytes(s.spent)
	w.Uvarint(uint64(len(s.b.slots)))
	for _, sl := range s.b.slots {
		w.Varint(int64(sl.x))
		w.Varint(int64(sl.y))
		w.Byte(sl.card)
		w.Bool(sl.rot)
		w.Bool(sl.faceDown)
	}
	w.Byte(s.b.touched)
	w.Bytes(s.goals[:])
	w.Bytes(s.mapped)
	w.Bytes(s.seen)
	w.Bytes(s.goldDeck)
	w.Bytes(s.offer)
	w.Ints(s.thieves)
	l := &s.last
	w.Uvarint(uint64(l.round))
	w.Bool(l.goldReached)
	w.Uvarint(uint64(l.connector))
	w.Bytes(l.roles)
	w.Ints(l.winners)
	w.Ints(l.payouts)
	w.Bool(l.blueOpen)
	w.Bool(l.greenOpen)
	w.Uvarint(uint64(l.crystals))
	w.Bool(s.over)
	return w.B, nil
}

// DecodeState implements engine.Game.
func (Game) DecodeState(b []byte) (*State, error) {
	r := codec.NewReader(b)
	if v := r.Byte(); v != stateVersion {
		return nil, fmt.Errorf("state version %d, want %d", v, stateVersion)
	}
	s := &State{}
	s.classic = r.Bool()
	s.discard2 = r.Bool()
	s.n = int(r.Uvarint())
	if r.Err() == nil && (s.n < 2 || s.n > MaxSeats) {
		return nil, fmt.Errorf("bad seat count %d", s.n)
	}
	s.turnTime = r.Varint()
	s.lastAt = r.Varint()
	if err := s.rng.UnmarshalBinary(r.Bytes()); err != nil && r.Err() == nil {
		return nil, fmt.Errorf("rng: %w", err)
	}
	s.round = int(r.Uvarint())
	s.phase = r.Byte()
	s.cur = int(r.Uvarint())
	s.lastPlayer = int(r.Uvarint())
	s.nuggets = r.Ints()
	s.roles = r.Bytes()
	s.aside = r.Bytes()
	s.roleOut = r.Bytes()
	s.hands = make([][]uint8, s.n)
	for i := range s.hands {
		s.hands[i] = r.Bytes()
	}
	s.front = r.Bytes()
	s.theftAt = make([]uint16, s.n)
	for i := range s.theftAt {
		s.theftAt[i] = uint16(r.Uvarint())
	}
	s.seq = uint16(r.Uvarint())
	s.pile = r.Bytes()
	s.removed = r.Bytes()
	s.spent = r.Bytes()
	ns := r.Uvarint()
	if ns < 4 || ns > 200 {
		r.Fail(errors.New("bad board"))
	}
	for i := uint64(0); i < ns && r.Err() == nil; i++ {
		sl := slot{x: int8(r.Varint()), y: int8(r.Varint()), card: r.Byte(), rot: r.Bool(), faceDown: r.Bool()}
		if sl.card >= numCards || !inGrid(int(sl.x), int(sl.y)) || s.b.at(int(sl.x), int(sl.y)) >= 0 {
			r.Fail(errors.New("bad board card"))
			break
		}
		s.b.add(sl)
	}
	s.b.touched = r.Byte()
	copy(s.goals[:], r.Bytes())
	s.mapped = r.Bytes()
	s.seen = r.Bytes()
	s.goldDeck = r.Bytes()
	s.offer = r.Bytes()
	s.thieves = r.Ints()
	l := &s.last
	l.round = int(r.Uvarint())
	l.goldReached = r.Bool()
	l.connector = int(r.Uvarint())
	l.roles = r.Bytes()
	l.winners = r.Ints()
	l.payouts = r.Ints()
	l.blueOpen = r.Bool()
	l.greenOpen = r.Bool()
	l.crystals = int(r.Uvarint())
	s.over = r.Bool()
	if r.Err() != nil {
		return nil, r.Err()
	}
	if r.Len() != 0 {
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
