package app

import (
	"context"
	"strings"
	"sync"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/semconv/v1.43.0/rpcconv"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// serverStats is a gRPC server's stats handler: otelgrpc's server spans (and the trace context it
// takes from the caller's metadata), and the call duration histogram otelgrpc would record,
// rpc.server.call.duration with the stable conventions' attributes (rpc.system.name, rpc.method,
// rpc.response.status_code, and error.type for a server error).
//
// It does what otelgrpc.NewServerHandler does at a fraction of the cost per call: otelgrpc builds
// and hashes the metric's attribute set at the end of every call and is handed every message of a
// stream, which it ignores on a server. Here the spans' handler is fed only the events it acts on
// (the call's headers and its end), and each method keeps one attribute set per status code, built
// at its first use.
type serverStats struct {
	spans    stats.Handler
	duration rpcconv.ServerCallDuration
	methods  sync.Map // full method name → *methodStats
}

// methodStats are one method's attribute sets, one per status code, built with it. (Only the
// server's own methods are tagged: gRPC answers any other at once, without stats.)
type methodStats struct {
	method string
	sets   [len(statusNames)]attribute.Set
}

type methodStatsKey struct{}

// newServerStats records into mp, and its spans into the tracer provider that opts name (the
// global one by default).
func newServerStats(mp metric.MeterProvider, opts ...otelgrpc.Option) *serverStats {
	s := &serverStats{spans: otelgrpc.NewServerHandler(append(opts, otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider()))...)}
	meter := mp.Meter(otelgrpc.ScopeName,
		metric.WithInstrumentationVersion(otelgrpc.Version), metric.WithSchemaURL(semconv.SchemaURL))
	var err error
	// otelgrpc's buckets, in seconds.
	s.duration, err = rpcconv.NewServerCallDuration(meter, metric.WithExplicitBucketBoundaries(
		0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10))
	if err != nil {
		otel.Handle(err)
	}
	return s
}

func (s *serverStats) TagConn(ctx context.Context, info *stats.ConnTagInfo) context.Context {
	return s.spans.TagConn(ctx, info)
}

func (s *serverStats) HandleConn(ctx context.Context, cs stats.ConnStats) {
	s.spans.HandleConn(ctx, cs)
}

func (s *serverStats) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	ctx = s.spans.TagRPC(ctx, info)
	m, ok := s.methods.Load(info.FullMethodName)
	if !ok {
		m, _ = s.methods.LoadOrStore(info.FullMethodName, newMethodStats(strings.TrimPrefix(info.FullMethodName, "/")))
	}
	return context.WithValue(ctx, methodStatsKey{}, m)
}

func (s *serverStats) HandleRPC(ctx context.Context, rs stats.RPCStats) {
	switch rs := rs.(type) {
	case *stats.InHeader:
		s.spans.HandleRPC(ctx, rs)
	case *stats.End:
		s.spans.HandleRPC(ctx, rs)
		m, ok := ctx.Value(methodStatsKey{}).(*methodStats)
		if !ok || s.duration.Float64Histogram == nil {
			return
		}
		code := codes.OK
		if rs.Error != nil {
			code = status.Code(rs.Error)
		}
		s.duration.RecordSet(ctx, rs.EndTime.Sub(rs.BeginTime).Seconds(), m.set(code))
	}
}

func newMethodStats(method string) *methodStats {
	m := &methodStats{method: method}
	for code := range m.sets {
		m.sets[code] = callSet(method, codes.Code(code))
	}
	return m
}

// set is the attribute set of a call that ended with code.
func (m *methodStats) set(code codes.Code) attribute.Set {
	if int(code) < len(m.sets) {
		return m.sets[code]
	}
	return attribute.NewSet(semconv.RPCMethod(m.method), semconv.RPCSystemNameGRPC, semconv.RPCResponseStatusCode(code.String()))
}

// callSet is the attribute set of a call of method that ended with code.
func callSet(method string, code codes.Code) attribute.Set {
	name := statusNames[code]
	kvs := []attribute.KeyValue{semconv.RPCMethod(method), semconv.RPCSystemNameGRPC, semconv.RPCResponseStatusCode(name)}
	if serverError(code) {
		kvs = append(kvs, semconv.ErrorTypeKey.String(name))
	}
	return attribute.NewSet(kvs...)
}

// serverError is whether code is a server's error by the conventions (otelgrpc's rule): the
// others are the caller's doing.
func serverError(code codes.Code) bool {
	switch code {
	case codes.Unknown, codes.DeadlineExceeded, codes.Unimplemented, codes.Internal, codes.Unavailable, codes.DataLoss:
		return true
	}
	return false
}

// statusNames are the status codes' names as the conventions write them.
var statusNames = [...]string{
	codes.OK:                 "OK",
	codes.Canceled:           "CANCELLED",
	codes.Unknown:            "UNKNOWN",
	codes.InvalidArgument:    "INVALID_ARGUMENT",
	codes.DeadlineExceeded:   "DEADLINE_EXCEEDED",
	codes.NotFound:           "NOT_FOUND",
	codes.AlreadyExists:      "ALREADY_EXISTS",
	codes.PermissionDenied:   "PERMISSION_DENIED",
	codes.ResourceExhausted:  "RESOURCE_EXHAUSTED",
	codes.FailedPrecondition: "FAILED_PRECONDITION",
	codes.Aborted:            "ABORTED",
	codes.OutOfRange:         "OUT_OF_RANGE",
	codes.Unimplemented:      "UNIMPLEMENTED",
	codes.Internal:           "INTERNAL",
	codes.Unavailable:        "UNAVAILABLE",
	codes.DataLoss:           "DATA_LOSS",
	codes.Unauthenticated:    "UNAUTHENTICATED",
}
