package app

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// statsCalls makes the same calls on a server with handler h: health checks that succeed, one that
// is refused (NOT_FOUND), a method that fails (INTERNAL, a server error), a stream that
// sends several messages and is cancelled, and one whose deadline passes.
func statsCalls(t *testing.T, h stats.Handler, client ...grpc.DialOption) {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer(grpc.StatsHandler(h), grpc.UnknownServiceHandler(func(any, grpc.ServerStream) error {
		return status.Error(codes.Internal, "broken")
	}))
	hs := health.NewServer()
	hs.SetServingStatus("slow", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(gs, hs)
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()
	cc, err := grpc.NewClient("passthrough:///bufnet", append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	}, client...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx := t.Context()
	c := healthpb.NewHealthClient(cc)
	for range 3 {
		if _, err := c.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Check(ctx, &healthpb.HealthCheckRequest{Service: "nobody"}); status.Code(err) != codes.NotFound {
		t.Fatalf("check of an unknown service: %v", err)
	}
	if err := cc.Invoke(ctx, "/cardroom.test.v1.Broken/Call", &healthpb.HealthCheckRequest{}, &healthpb.HealthCheckResponse{}); status.Code(err) != codes.Internal {
		t.Fatalf("failing method: %v", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	w, err := c.Watch(wctx, &healthpb.HealthCheckRequest{Service: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Recv(); err != nil {
		t.Fatal(err)
	}
	hs.SetServingStatus("slow", healthpb.HealthCheckResponse_NOT_SERVING)
	if _, err := w.Recv(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := w.Recv(); status.Code(err) != codes.Canceled {
		t.Fatalf("cancelled stream: %v", err)
	}
	// The server sees the stream's end after the client does: stop (which waits for the handlers)
	// before the metrics are read.
	gs.GracefulStop()
}

// points are the data points of rpc.server.call.duration: each attribute set and its count.
func points(t *testing.T, r *sdkmetric.ManualReader) map[string]uint64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "rpc.server.call.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				var kvs []string
				for _, kv := range dp.Attributes.ToSlice() {
					kvs = append(kvs, string(kv.Key)+"="+kv.Value.String())
				}
				slices.Sort(kvs)
				got[strings.Join(kvs, " ")] += dp.Count
			}
		}
	}
	return got
}

// TestServerStatsRecordAsOtelgrpc: the server's stats handler records the call duration metric
// otelgrpc records, with the same attribute sets and counts.
func TestServerStatsRecordAsOtelgrpc(t *testing.T) {
	theirs, ours := sdkmetric.NewManualReader(), sdkmetric.NewManualReader()
	statsCalls(t, otelgrpc.NewServerHandler(otelgrpc.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(theirs)))))
	statsCalls(t, newServerStats(sdkmetric.NewMeterProvider(sdkmetric.WithReader(ours))))
	want, got := points(t, theirs), points(t, ours)
	if len(want) < 4 {
		t.Fatalf("otelgrpc recorded %v: fewer kinds of call than made", want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d calls recorded, otelgrpc %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %d calls recorded, otelgrpc none", k, n)
		}
	}
	t.Logf("%v", got)
}

// TestServerStatsSpans: the server's spans are otelgrpc's: each a child of the caller's span,
// named by the method, with the call's status.
func TestServerStatsSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prop := propagation.TraceContext{}
	statsCalls(t, newServerStats(sdkmetric.NewMeterProvider(), otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(prop)),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(prop))))
	clients := map[string]bool{}
	var server []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.SpanKind().String() == "client" {
			clients[s.SpanContext().SpanID().String()] = true
		} else {
			server = append(server, s)
		}
	}
	if len(server) != 6 {
		t.Fatalf("%d server spans, want 6 (one per call)", len(server))
	}
	var codesSeen []string
	for _, s := range server {
		if !clients[s.Parent().SpanID().String()] {
			t.Errorf("server span %s: its parent is not a client span", s.Name())
		}
		for _, a := range s.Attributes() {
			if a.Key == attribute.Key("rpc.response.status_code") {
				codesSeen = append(codesSeen, a.Value.AsString())
			}
		}
	}
	slices.Sort(codesSeen)
	if want := []string{"CANCELLED", "INTERNAL", "NOT_FOUND", "OK", "OK", "OK"}; !slices.Equal(codesSeen, want) {
		t.Errorf("status codes on the spans %v, want %v", codesSeen, want)
	}
}
