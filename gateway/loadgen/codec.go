package loadgen

import (
	"fmt"

	"cardroom.dev/services/kit/app"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the codec delegated to
	"google.golang.org/grpc/mem"
)

// codec is the gRPC codec of the load generator's connections (set with grpc.ForceCodecV2 on
// them, not registered: the process's other clients and servers keep the standard one). It
// speaks the same protobuf on the wire: the Watch and Act messages the seats exchange go through
// the lean decoders and encoder of wire.go, every other message through the standard codec.
type codec struct{}

// protoCodec is gRPC's standard protobuf codec.
var protoCodec = encoding.GetCodecV2("proto")

func (codec) Name() string { return "proto" }

func (codec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(*actRequest)
	if !ok {
		return protoCodec.Marshal(v)
	}
	n := r.size()
	if mem.IsBelowBufferPoolingThreshold(n) {
		return mem.BufferSlice{mem.SliceBuffer(r.appendTo(make([]byte, 0, n)))}, nil
	}
	pool := app.Buffers()
	buf := pool.Get(n)
	*buf = r.appendTo((*buf)[:0])
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	switch v.(type) {
	case *watchMsg, *actAnswer:
	default:
		return protoCodec.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(app.Buffers()) // copied over its whole length
	defer buf.Free()
	var err error
	switch m := v.(type) {
	case *watchMsg:
		err = decodeWatch(buf.ReadOnlyData(), m)
	case *actAnswer:
		err = decodeActAnswer(buf.ReadOnlyData(), m)
	}
	if err != nil {
		return fmt.Errorf("decoding %T: %w", v, err)
	}
	return nil
}
