package gateway

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// A request body that is no message of the call's type (bad protobuf, over native gRPC or from a
// browser's binary Connect or gRPC-Web call, which vanguard passes to gRPC undecoded) is the
// client's mistake, INVALID_ARGUMENT with MALFORMED_REQUEST as bad JSON is (bodies.go). gRPC
// would answer it INTERNAL, and write that status itself before any of the gateway's code runs.
// So the gateway's server decodes with lenientCodec, which leaves a gateway request it cannot
// decode empty and keeps the error aside, and its service is registered with every handler's
// decoding wrapped (checkedService), which takes that error and answers it.

// lenientCodec is the gateway server's codec: app.Codec, except for the gateway's own requests
// that do not decode (above).
type lenientCodec struct{ encoding.CodecV2 }

var (
	undecoded        sync.Map // the request message (a pointer) → its decoding error
	undecodedPending atomic.Int64
)

func (c lenientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	m, ok := v.(proto.Message)
	if !ok || !strings.HasPrefix(string(m.ProtoReflect().Descriptor().FullName()), "cardroom.gateway.v1.") {
		return err // not a request of the gateway's handlers, which alone take the error
	}
	proto.Reset(m)
	undecodedPending.Add(1)
	undecoded.Store(v, err)
	return nil
}

// takeUndecoded is the client's error for request m when lenientCodec could not decode it.
func takeUndecoded(m any) error {
	if undecodedPending.Load() == 0 {
		return nil
	}
	err, ok := undecoded.LoadAndDelete(m)
	if !ok {
		return nil
	}
	undecodedPending.Add(-1)
	return refusal.New(codes.InvalidArgument, refusal.MalformedBody, "the request body is not a message of this call's type: %v", err)
}

// checkedService is the gateway's service description with every request's decoding checked.
func checkedService() *grpc.ServiceDesc {
	d := gatewayv1.GatewayService_ServiceDesc
	d.Methods = append([]grpc.MethodDesc(nil), d.Methods...)
	for i := range d.Methods {
		h := d.Methods[i].Handler
		d.Methods[i].Handler = func(srv any, ctx context.Context, dec func(any) error, in grpc.UnaryServerInterceptor) (any, error) {
			return h(srv, ctx, func(m any) error {
				if err := dec(m); err != nil {
					return err
				}
				return takeUndecoded(m)
			}, in)
		}
	}
	d.Streams = append([]grpc.StreamDesc(nil), d.Streams...)
	for i := range d.Streams {
		h := d.Streams[i].Handler
		d.Streams[i].Handler = func(srv any, ss grpc.ServerStream) error { return h(srv, checkedStream{ss}) }
	}
	return &d
}

// checkedStream is a server stream whose received messages' decoding errors are the client's.
type checkedStream struct{ grpc.ServerStream }

func (s checkedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return takeUndecoded(m)
}
