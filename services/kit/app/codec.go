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

// Buffers is the pool Codec encodes into, whose buffers are handed out as they were left. It
// suits whatever writes every byte of a buffer's length before reading it: gRPC's transport
// (frames are read whole into the buffers it asks for; messages across frames are copied), given
// it with experimental.WithBufferPool, and a codec materializing a message's buffers.
func Buffers() mem.BufferPool { return buffers }

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

// Encoded is a message its sender already holds in wire form: Codec sends Bytes as they are,
// without proto.Marshal. The gateway's Watch writes each response from its table's events,
// encoded once for every stream, instead of encoding the same events again for each reader. Codec
// copies Bytes while SendMsg runs (gRPC encodes a message before SendMsg returns), so the sender
// may reuse them afterwards. Only Codec knows the type: a server that sends one must be made with
// grpc.ForceServerCodecV2(Codec), as NewGRPCServer's are.
type Encoded struct {
	Bytes []byte
}

type protoCodec struct{}

func (protoCodec) Name() string { return "proto" }

func (protoCodec) Marshal(v any) (mem.BufferSlice, error) {
	if e, ok := v.(*Encoded); ok {
		return encoded(e.Bytes), nil
	}
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

// encoded is b in a buffer of gRPC's own: allocated below gRPC's pooling threshold (as gRPC
// itself does for small messages), else pooled.
func encoded(b []byte) mem.BufferSlice {
	if mem.IsBelowBufferPoolingThreshold(len(b)) {
		return mem.BufferSlice{mem.SliceBuffer(append([]byte(nil), b...))}
	}
	buf := buffers.Get(len(b))
	copy(*buf, b) // Get returned len(b) bytes: all are written
	return mem.BufferSlice{mem.NewBuffer(buf, buffers)}
}
