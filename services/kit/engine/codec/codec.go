// Package codec has the byte helpers the engines' hand-written state encodings share (the harness
// encodes a table's state after every action, so the engines write their own compact binaries):
// a Writer of bytes, varints and length-prefixed lists, and a Reader of them that remembers its
// first short read. Each engine still decides its own layout and version byte.
package codec

import (
	"encoding/binary"
	"errors"
)

// ErrShort is the error of a read past the end of the encoding.
var ErrShort = errors.New("state encoding is truncated")

// BoolByte is 1 for true, 0 for false.
func BoolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// Writer appends to B.
type Writer struct{ B []byte }

// Byte appends v.
func (w *Writer) Byte(v byte) { w.B = append(w.B, v) }

// Bool appends v as one byte (BoolByte).
func (w *Writer) Bool(v bool) { w.B = append(w.B, BoolByte(v)) }

// Uvarint appends v as an unsigned varint.
func (w *Writer) Uvarint(v uint64) { w.B = binary.AppendUvarint(w.B, v) }

// Varint appends v as a signed (zig-zag) varint.
func (w *Writer) Varint(v int64) { w.B = binary.AppendVarint(w.B, v) }

// Bytes appends v's length as a Uvarint, then v.
func (w *Writer) Bytes(v []byte) {
	w.Uvarint(uint64(len(v)))
	w.B = append(w.B, v...)
}

// Ints appends v's length as a Uvarint, then each value as a Varint.
func (w *Writer) Ints(v []int) {
	w.Uvarint(uint64(len(v)))
	for _, x := range v {
		w.Varint(int64(x))
	}
}

// Reader reads an encoding from its start. After a short read Err is ErrShort and every later read
// returns zero values, so a decoder reads every field and checks Err once.
type Reader struct {
	b   []byte
	err error
}

// NewReader reads b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Err is ErrShort after a read past the end, else nil.
func (r *Reader) Err() error { return r.err }

// Fail makes err the Reader's error, as a decoder's own check fails: later reads return zero
// values.
func (r *Reader) Fail(err error) { r.err = err }

// Len is the number of bytes not read yet.
func (r *Reader) Len() int { return len(r.b) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = ErrShort
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// Bool reads a byte: true unless 0.
func (r *Reader) Bool() bool { return r.Byte() != 0 }

// Next reads the next n bytes; the slice shares the input's memory.
func (r *Reader) Next(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.err = ErrShort
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = ErrShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Varint reads a signed varint.
func (r *Reader) Varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = ErrShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Bytes reads what Writer.Bytes wrote, as a copy.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = ErrShort
		return nil
	}
	v := append([]byte(nil), r.b[:n]...)
	r.b = r.b[n:]
	return v
}

// Ints reads what Writer.Ints wrote.
func (r *Reader) Ints() []int {
	n := r.Uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = ErrShort
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = int(r.Varint())
	}
	return v
}
