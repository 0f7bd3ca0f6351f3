package telemetry

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func TestMetricsAndTraceIDs(t *testing.T) {
	var logs bytes.Buffer
	tel, err := Setup(t.Context(), Options{Service: "test", LogLevel: "info", LogFormat: "json", LogOut: &logs})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())

	c, err := otel.Meter("test").Int64Counter("cardroom.test.things")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(t.Context(), 3)
	rec := httptest.NewRecorder()
	tel.Metrics.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if body := rec.Body.String(); !strings.Contains(body, "cardroom_test_things_total") || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("metrics exposition lacks the counter or runtime metrics:\n%.2000s", body)
	}

	ctx, span := otel.Tracer("test").Start(t.Context(), "op")
	tel.Logger.InfoContext(ctx, "traced")
	span.End()
	tel.Logger.Info("untraced")
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("logged %d lines", len(lines))
	}
	want := `"trace_id":"` + span.SpanContext().TraceID().String() + `"`
	if !strings.Contains(lines[0], want) || !strings.Contains(lines[0], `"service":"test"`) {
		t.Fatalf("traced line %s lacks %s", lines[0], want)
	}
	if strings.Contains(lines[1], "trace_id") {
		t.Fatalf("untraced line has a trace id: %s", lines[1])
	}
}

// TestSampler: without an exporter nothing is recorded, yet spans carry a trace id; with one, the
// share of new traces and the parent's decision apply.
func TestSampler(t *testing.T) {
	tel, err := Setup(t.Context(), Options{Service: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	_, span := otel.Tracer("test").Start(t.Context(), "op")
	if span.IsRecording() || !span.SpanContext().IsValid() {
		t.Errorf("without an exporter: recording %v, valid context %v", span.IsRecording(), span.SpanContext().IsValid())
	}
	span.End()

	for ratio, want := range map[float64]bool{0: false, 1: true} {
		s := Sampler(Options{OTLPEndpoint: "collector:4317", TraceSample: ratio})
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(s))
		_, span := tp.Tracer("test").Start(t.Context(), "op")
		if span.IsRecording() != want {
			t.Errorf("sample %v: recording %v", ratio, span.IsRecording())
		}
		span.End()
	}
}
