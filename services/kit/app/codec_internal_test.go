package app

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestCodecReusedBuffers encodes large messages, then smaller ones into the same reused buffers,
// and requires gRPC's own encoding every time: a buffer handed out unzeroed must not show any
// byte of the message before it.
func TestCodecReusedBuffers(t *testing.T) {
	sizes := []int{40_000, 33_000, 17_000, 5_000, 1_500, 900, 10, 0, 600_000, 2_000_000}
	for round := range 3 {
		for _, n := range sizes {
			in := wrapperspb.Bytes(bytes.Repeat([]byte{byte('a' + round)}, n))
			want, err := proto.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			data, err := Codec.Marshal(in)
			if err != nil {
				t.Fatalf("marshal %d bytes: %v", n, err)
			}
			if got := data.Materialize(); !bytes.Equal(got, want) {
				t.Fatalf("round %d, %d bytes: encoding differs from proto.Marshal", round, n)
			}
			out := new(wrapperspb.BytesValue)
			if err := Codec.Unmarshal(data, out); err != nil {
				t.Fatalf("unmarshal %d bytes: %v", n, err)
			}
			if !proto.Equal(in, out) {
				t.Fatalf("round %d, %d bytes: decoded message differs", round, n)
			}
			data.Free()
		}
	}
}

// TestCodecUnmarshalSeveralBuffers decodes a message received in several pieces (as the
// transport hands over frames), which is copied into one pooled buffer.
func TestCodecUnmarshalSeveralBuffers(t *testing.T) {
	in := wrapperspb.String(strings.Repeat("x", 50_000))
	b, err := proto.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		var data mem.BufferSlice
		for rest := b; len(rest) > 0; {
			k := min(len(rest), 16_384)
			data = append(data, mem.SliceBuffer(rest[:k]))
			rest = rest[k:]
		}
		out := new(wrapperspb.StringValue)
		if err := Codec.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
		if out.GetValue() != in.GetValue() {
			t.Fatal("decoded message differs")
		}
	}
}

// TestCodecRefusesNonProto: anything but a protobuf message is an error, not a panic.
func TestCodecRefusesNonProto(t *testing.T) {
	if _, err := Codec.Marshal("text"); err == nil {
		t.Fatal("Marshal of a string: no error")
	}
	if err := Codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer([]byte{1})}, new(int)); err == nil {
		t.Fatal("Unmarshal into an int: no error")
	}
}

func TestDirtyPoolSizes(t *testing.T) {
	p := &dirtyPool{}
	for _, n := range []int{1, 1023, 1024, 1025, 4096, 1 << 20, 1<<20 + 1} {
		b := p.Get(n)
		if len(*b) != n {
			t.Fatalf("Get(%d): length %d", n, len(*b))
		}
		if n > 1024 && n <= 1<<20 && cap(*b)&(cap(*b)-1) != 0 {
			t.Fatalf("Get(%d): capacity %d is not a power of 2", n, cap(*b))
		}
		p.Put(b)
	}
	odd := make([]byte, 3000)
	p.Put(&odd) // not a pooled size: dropped
	if b := p.Get(3000); cap(*b) != 4096 {
		t.Fatalf("Get(3000) after a foreign Put: capacity %d, want 4096", cap(*b))
	}
}

// TestCodecEncoded sends an Encoded message's bytes as they are, small or pooled, and keeps no
// hold on them: the sender may write over them once Marshal returned.
func TestCodecEncoded(t *testing.T) {
	for _, n := range []int{0, 10, 1_023, 1_024, 40_000, 2_000_000} {
		in, err := proto.Marshal(wrapperspb.Bytes(bytes.Repeat([]byte{'e'}, n)))
		if err != nil {
			t.Fatal(err)
		}
		msg := &Encoded{Bytes: bytes.Clone(in)}
		data, err := Codec.Marshal(msg)
		if err != nil {
			t.Fatalf("marshal %d bytes: %v", n, err)
		}
		clear(msg.Bytes)
		if got := data.Materialize(); !bytes.Equal(got, in) {
			t.Fatalf("%d bytes: sent %d bytes that differ from those given", n, len(got))
		}
		out := new(wrapperspb.BytesValue)
		if err := Codec.Unmarshal(data, out); err != nil || len(out.GetValue()) != n {
			t.Fatalf("%d bytes: decoded %d bytes, %v", n, len(out.GetValue()), err)
		}
		data.Free()
	}
}
