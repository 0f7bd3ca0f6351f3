package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// codec visits every field of the state's fixed part; walk is the one place that lists them, so
// the encoder and the decoder cannot disagree on the order. (A hand-written codec: the harness
// encodes the state after every action, and reflection-based encoding was the slowest part.)
type codec interface {
	i8(*int8)
	i16(*int16)
	i32(*int32)
	i64(*int64)
	cards(*Cards)
	flag(*bool)
}

func (c *core) walk(k codec) {
	for _, f := range []*int8{&c.Players, (*int8)(&c.Removed), &c.Round, &c.Dealer, &c.Phase, &c.Decision,
		&c.ToAct, &c.Turn, &c.Pending, &c.PendingToken, &c.PendingCards, (*int8)(&c.Combat), &c.Trick,
		&c.Leader, &c.LastTrick, &c.NPlayed, &c.Redeem, &c.EndReason} {
		k.i8(f)
	}
	for i := range c.Tokens {
		k.i8(&c.Tokens[i])
	}
	for i := range c.Plays {
		k.i8((*int8)(&c.Plays[i]))
	}
	k.cards(&c.Talon)
	for i := range c.Seats {
		st := &c.Seats[i]
		k.i32(&st.Coins)
		k.i8(&st.Marker)
		k.cards(&st.Hand)
		k.cards(&st.Open)
		k.cards(&st.Taken)
		k.cards(&st.Played)
		k.cards(&st.Nines)
		k.i8(&st.Tricks)
		k.i8(&st.Bets)
		k.flag(&st.Troll)
		k.flag(&st.Doubling)
		k.i8(&st.Staked)
		k.i32(&st.Won)
		k.i32(&st.LastWon)
		k.flag(&st.Winner)
		k.i32(&st.Final)
	}
	for i := range c.Bets {
		b := &c.Bets[i]
		k.i8(&b.Owner)
		k.i8(&b.Option)
		k.i8(&b.Target)
		k.flag(&b.Double)
		k.i8(&b.Result)
		k.i16(&b.CoinsWon)
	}
	k.i64(&c.BankIn)
	k.i64(&c.BankOut)
	k.i64(&c.TurnTime)
	k.i64(&c.LastSec)
	k.i32(&c.LastNsec)
}

type encoder struct{ b []byte }

func (e *encoder) i8(v *int8)   { e.b = append(e.b, byte(*v)) }
func (e *encoder) i16(v *int16) { e.b = binary.LittleEndian.AppendUint16(e.b, uint16(*v)) }
func (e *encoder) i32(v *int32) { e.b = binary.LittleEndian.AppendUint32(e.b, uint32(*v)) }
func (e *encoder) i64(v *int64) { e.b = binary.LittleEndian.AppendUint64(e.b, uint64(*v)) }
func (e *encoder) cards(v *Cards) {
	e.b = binary.LittleEndian.AppendUint64(e.b, uint64(*v))
}
func (e *encoder) flag(v *bool) {
	if *v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// decoder reads what encoder wrote; short input sets bad and reads zeros.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) take(n int) []byte {
	if len(d.b) < n {
		d.bad = true
		d.b = nil
		return make([]byte, n)
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) i8(v *int8)   { *v = int8(d.take(1)[0]) }
func (d *decoder) i16(v *int16) { *v = int16(binary.LittleEndian.Uint16(d.take(2))) }
func (d *decoder) i32(v *int32) { *v = int32(binary.LittleEndian.Uint32(d.take(4))) }
func (d *decoder) i64(v *int64) { *v = int64(binary.LittleEndian.Uint64(d.take(8))) }
func (d *decoder) cards(v *Cards) {
	*v = Cards(binary.LittleEndian.Uint64(d.take(8)))
}
func (d *decoder) flag(v *bool) {
	switch d.take(1)[0] {
	case 0:
		*v = false
	case 1:
		*v = true
	default:
		d.bad = true
	}
}

// EncodeState implements engine.Game.
func (Game) EncodeState(s *State) ([]byte, error) { return s.encode() }

// DecodeState implements engine.Game.
func (Game) DecodeState(b []byte) (*State, error) { return decodeState(b) }

func (s *State) encode() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte(stateVersion)
	rng, err := s.rng.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode rng: %w", err)
	}
	buf.WriteByte(byte(len(rng)))
	buf.Write(rng)
	if s.custom {
		buf.WriteByte(1)
		encodeRules(&buf, s.rules)
	} else {
		buf.WriteByte(0)
	}
	e := encoder{b: buf.Bytes()}
	s.core.walk(&e)
	return e.b, nil
}

func decodeState(b []byte) (*State, error) {
	r := bytes.NewReader(b)
	if v, err := r.ReadByte(); err != nil || v != stateVersion {
		return nil, errBadState
	}
	n, err := r.ReadByte()
	if err != nil || int(n) > r.Len() {
		return nil, errBadState
	}
	s := &State{rules: &Standard}
	rng := make([]byte, n)
	_, _ = r.Read(rng)
	if err := s.rng.UnmarshalBinary(rng); err != nil {
		return nil, fmt.Errorf("decode rng: %w", err)
	}
	custom, err := r.ReadByte()
	if err != nil {
		return nil, errBadState
	}
	if custom == 1 {
		s.custom = true
		if s.rules, err = decodeRules(r); err != nil {
			return nil, err
		}
	}
	rest := make([]byte, r.Len())
	_, _ = r.Read(rest)
	d := decoder{b: rest}
	s.core.walk(&d)
	if d.bad || len(d.b) != 0 || !s.valid() {
		return nil, errBadState
	}
	return s, nil
}

// valid checks the decoded state's ranges that indexing relies on.
func (s *State) valid() bool {
	in := func(v, lo, hi int8) bool { return v >= lo && v <= hi }
	if !in(s.Players, 3, 4) || !in(int8(s.Removed), -1, 3) || !in(s.Dealer, 0, s.Players-1) ||
		!in(s.Phase, PhaseBetting, PhaseOver) || !in(s.Decision, 0, DecRedeem) || !in(s.ToAct, -1, s.Players-1) ||
		!in(s.Pending, -1, 15) || !in(s.PendingToken, -1, int8(numTokens)-1) || !in(s.Leader, 0, s.Players-1) ||
		!in(s.LastTrick, -1, 3) || !in(s.NPlayed, 0, s.Players) || !in(s.Redeem, 0, s.Players) {
		return false
	}
	if s.Phase != PhaseOver && s.ToAct < 0 {
		return false
	}
	for i := range s.Seats {
		if !in(s.Seats[i].Marker, 0, 9) {
			return false
		}
	}
	for i := range s.Bets {
		b := &s.Bets[i]
		if !in(b.Owner, -1, s.Players-1) || !in(b.Target, -1, s.Players-1) || !in(b.Option, -1, int8(len(s.rules.Coupons[i].Options))-1) {
			return false
		}
	}
	for _, c := range s.Plays {
		if !in(int8(c), -1, 35) {
			return false
		}
	}
	return in(int8(s.Combat), -1, 35)
}

func encodeRules(buf *bytes.Buffer, r *Rules) {
	for i := range r.Coupons {
		c := &r.Coupons[i]
		buf.Write([]byte{byte(c.Number), byte(c.Kind), byte(c.Colour), byte(len(c.Options))})
		for _, o := range c.Options {
			buf.Write([]byte{byte(o.Min), byte(o.Max), byte(o.Odds)})
		}
	}
}

func decodeRules(r *bytes.Reader) (*Rules, error) {
	rules := Standard
	for i := range rules.Coupons {
		var h [4]byte
		if _, err := r.Read(h[:]); err != nil {
			return nil, errBadState
		}
		c := Coupon{Number: int8(h[0]), Kind: CouponKind(h[1]), Colour: Colour(int8(h[2]))}
		if int(c.Number) != i+1 || c.Kind < KindColourCount || c.Kind > KindCounterBet || c.Colour < 0 || c.Colour > 3 ||
			h[3] < 1 || h[3] > 8 || (c.Kind == KindCounterBet) != (i == 15) {
			return nil, errBadState
		}
		for range h[3] {
			var o [3]byte
			if _, err := r.Read(o[:]); err != nil {
				return nil, errBadState
			}
			c.Options = append(c.Options, Option{int8(o[0]), int8(o[1]), int8(o[2])})
		}
		rules.Coupons[i] = c
	}
	return &rules, nil
}
