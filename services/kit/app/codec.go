package app

import (
	"fmt"
	"math/bits"
	"sync"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// Codec is the protobuf codec of cardroom's gRPC servers: gRPC's own ("proto"), except that the
// buffers messages are encoded into come from a pool that does not zero them.
//
// gRPC's default pool clears the whole capacity of every buffer it hands out, and its tiers are
// powers of 2 up to 32 KiB and then 1 MiB: a 40 KB Watch message (a Sponsio seat's legal actions)
// cleared a 1 MiB buffer before being written over, 9 % of `cardroom serve`'s CPU under load. The
// codec writes every byte of the length it asks for (proto.MarshalAppend of exactly proto.Size
// bytes, checked), and Unmarshal copies the received bytes over the whole length, so nothing of a
// previous message can be read from a reused buffer.
var Codec encoding.CodecV2 = protoCodec{}

// poolMinShift..poolMaxShift are the pooled buffer sizes (powers of 2): below 1 KiB gRPC does not
// pool (mem.IsBelowBufferPoolingThreshold); above 1 MiB, the largest message accepted, buffers are
// allocated and left to the collector.
const (
	poolMinShift = 10
	poolMaxShift = 20
)

// dirtyPool is a mem.BufferPool of power-of-2 buffers handed out as they were left.
type dirtyPool struct {
	tiers [poolMaxShift + 1]sync.Pool
}

var buffers = &dirtyPool{}

func (p *dirtyPool) Get(length int) *[]byte {
	shift := max(bits.Len(uint(length-1)), poolMinShift)
	if length <= 0 || shift > poolMaxShift {
		b := make([]byte, length)
		return &b
	}
	if b, ok := p.tiers[shift].Get().(*[]byte); ok {
		*b = (*b)[:length]
		return b
	}
	b := make([]byte, length, 1<<shift)
	return &b
}

func (p *dirtyPool) Put(b *[]byte) {
	c := cap(*b)
	shift := bits.Len(uint(c)) - 1
	if c == 0 || c != 1<<shift || shift < poolMinShift || shift > poolMaxShift {
		return // not one of ours
	}
	p.tiers[shift].Put(b)
}

type protoCodec struct{}

func (protoCodec) Name() string { return "proto" }

func (protoCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("proto: cannot marshal %T, not a proto.Message", v)
	}
	size := proto.Size(m)
	opts := proto.MarshalOptions{UseCachedSize: true} // the size was just computed
	if mem.IsBelowBufferPoolingThreshold(size) {
		b, err := opts.Marshal(m)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	buf := buffers.Get(size)
	out, err := opts.MarshalAppend((*buf)[:0], m)
	if err == nil && len(out) != size {
		err = fmt.Errorf("proto: %T encoded to %d bytes, its size was %d", v, len(out), size)
	}
	if err != nil {
		buffers.Put(buf)
		return nil, err
	}
	*buf = out // the same array: it had the capacity
	return mem.BufferSlice{mem.NewBuffer(buf, buffers)}, nil
}

func (protoCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("proto: cannot unmarshal into %T, not a proto.Message", v)
	}
	buf := data.MaterializeToBuffer(buffers)
	defer buf.Free()
	return proto.Unmarshal(buf.ReadOnlyData(), m)
}
