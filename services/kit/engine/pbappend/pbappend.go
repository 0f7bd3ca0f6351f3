// Package pbappend writes small protobuf messages straight in the wire format, for the games'
// engine.ActionAppender: an action's bytes appended where they are needed, with no message built,
// sized and marshalled. Callers write fields in number order and leave out what proto3 leaves out
// (zero scalars, absent messages), so that the bytes are those proto.Marshal writes.
package pbappend

import "google.golang.org/protobuf/encoding/protowire"

// Uint appends a uint32, uint64 or enum field; zero is not written.
func Uint(b []byte, n protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, n, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// Present appends a uint32, uint64 or enum field with explicit presence (proto3 optional): zero
// is written too.
func Present(b []byte, n protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, n, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// Int appends an int32 or int64 field (a negative value takes ten bytes, as in proto); zero is
// not written.
func Int(b []byte, n protowire.Number, v int64) []byte { return Uint(b, n, uint64(v)) }

// Bool appends a bool field; false is not written.
func Bool(b []byte, n protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	b = protowire.AppendTag(b, n, protowire.VarintType)
	return append(b, 1)
}

// Open starts a message field (or a packed repeated field): its tag and a one-byte length that
// Close fills in. It returns where the field's content starts, for Close.
func Open(b []byte, n protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

// Close ends the field Open started at start, writing its length. The messages of actions are
// a few bytes long; a longer one (128 bytes or more) has its content moved to make room for the
// longer length.
func Close(b []byte, start int) []byte {
	size := len(b) - start
	if size < 1<<7 {
		b[start-1] = byte(size)
		return b
	}
	extra := protowire.SizeVarint(uint64(size)) - 1
	b = append(b, make([]byte, extra)...)
	copy(b[start+extra:], b[start:start+size])
	protowire.AppendVarint(b[:start-1], uint64(size))
	return b
}

// Empty appends a message field that is present and has nothing set (a oneof's empty message).
func Empty(b []byte, n protowire.Number) []byte {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return append(b, 0)
}

// Packed appends vs as a packed repeated uint32, uint64 or enum field; nothing for none.
func Packed[T ~uint8 | ~uint16 | ~uint32 | ~uint64](b []byte, n protowire.Number, vs []T) []byte {
	if len(vs) == 0 {
		return b
	}
	b, at := Open(b, n)
	for _, v := range vs {
		b = protowire.AppendVarint(b, uint64(v))
	}
	return Close(b, at)
}
