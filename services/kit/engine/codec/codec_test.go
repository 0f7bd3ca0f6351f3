package codec_test

import (
	"errors"
	"slices"
	"testing"

	"cardroom.dev/services/kit/engine/codec"
)

func TestRoundTrip(t *testing.T) {
	w := &codec.Writer{}
	w.Byte(7)
	w.Bool(true)
	w.Bool(false)
	w.Uvarint(300)
	w.Varint(-5)
	w.Bytes([]byte{1, 2, 3})
	w.Ints([]int{-1, 0, 1 << 40})
	w.B = append(w.B, 9, 8)
	r := codec.NewReader(w.B)
	if r.Byte() != 7 || !r.Bool() || r.Bool() || r.Uvarint() != 300 || r.Varint() != -5 ||
		!slices.Equal(r.Bytes(), []byte{1, 2, 3}) || !slices.Equal(r.Ints(), []int{-1, 0, 1 << 40}) ||
		!slices.Equal(r.Next(2), []byte{9, 8}) || r.Len() != 0 || r.Err() != nil {
		t.Fatalf("round trip of %v failed: %v", w.B, r.Err())
	}
}

func TestShortReadsStick(t *testing.T) {
	w := &codec.Writer{}
	w.Bytes([]byte{1, 2, 3})
	for cut := range len(w.B) {
		r := codec.NewReader(w.B[:cut])
		if got := r.Bytes(); got != nil || !errors.Is(r.Err(), codec.ErrShort) {
			t.Fatalf("cut at %d: %v %v", cut, got, r.Err())
		}
		if r.Byte() != 0 || r.Uvarint() != 0 || r.Varint() != 0 || r.Next(0) != nil || r.Ints() != nil {
			t.Fatalf("cut at %d: a read after a short one returned a value", cut)
		}
	}
	r := codec.NewReader([]byte{0x80}) // an unfinished varint
	if r.Uvarint(); r.Err() == nil {
		t.Fatal("an unfinished varint read")
	}
	if r := codec.NewReader([]byte{5, 1}); r.Ints() != nil || r.Err() == nil {
		t.Fatal("a list longer than its input read")
	}
	if codec.BoolByte(true) != 1 || codec.BoolByte(false) != 0 {
		t.Fatal("BoolByte")
	}
}
