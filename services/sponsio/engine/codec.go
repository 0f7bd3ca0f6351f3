package engine

import "encoding/binary"

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
