package rules_test

import (
	"context"
	"fmt"
	"testing"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/store"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestCommitSpans checks that, with a recording tracer, each commit has a store.commit span that
// names its table.
func TestCommitSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) }) // the global stays set: record no more
	srv := newServer(store.NewMemory(), nil)
	ctx := context.Background()
	if _, err := srv.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: "traced", Config: tableConfig(2, 1, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Act(ctx, &rulesv1.ActRequest{TableId: "traced", Seat: 0, Action: act("reveal"), ActionId: "1"}); err != nil {
		t.Fatal(err)
	}
	commits := 0
	for _, s := range rec.Ended() {
		if s.Name() != "store.commit" {
			continue
		}
		commits++
		found := false
		for _, a := range s.Attributes() {
			found = found || a == attribute.String("table", "traced")
		}
		if !found {
			t.Fatalf("store.commit span without the table: %v", s.Attributes())
		}
	}
	if commits != 1 {
		t.Fatalf("%d store.commit spans, want 1", commits)
	}
}

// TestCommitSpansFollowTheCaller: under a caller's span, a commit's span is recorded when the
// caller's is sampled, as its child, and not when the caller's is not (as the SDK's ParentBased
// sampler decides, which the harness need not ask).
func TestCommitSpansFollowTheCaller(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	srv := newServer(store.NewMemory(), nil)
	if _, err := srv.CreateTable(context.Background(), &rulesv1.CreateTableRequest{TableId: "caller", Config: tableConfig(2, 1000, 0)}); err != nil {
		t.Fatal(err)
	}
	for i, sampled := range []bool{false, true, false} {
		sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{byte(i + 1)}, SpanID: trace.SpanID{byte(i + 1)}, Remote: true})
		if sampled {
			sc = sc.WithTraceFlags(trace.FlagsSampled)
		}
		ctx := trace.ContextWithRemoteSpanContext(context.Background(), sc)
		before := len(rec.Ended())
		if _, err := srv.Act(ctx, &rulesv1.ActRequest{TableId: "caller", Seat: uint32(i % 2), Action: act([]string{"reveal", "pass"}[i%2]), ActionId: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		var commits []sdktrace.ReadOnlySpan
		for _, s := range rec.Ended()[before:] {
			if s.Name() == "store.commit" {
				commits = append(commits, s)
			}
		}
		switch {
		case !sampled && len(commits) != 0:
			t.Fatalf("action %d under an unsampled caller: %d store.commit spans recorded", i, len(commits))
		case sampled && len(commits) != 1:
			t.Fatalf("action %d under a sampled caller: %d store.commit spans, want 1", i, len(commits))
		case sampled && (commits[0].Parent().SpanID() != sc.SpanID() || commits[0].SpanContext().TraceID() != sc.TraceID()):
			t.Fatalf("store.commit span %v is not a child of the caller's %v", commits[0].SpanContext(), sc)
		}
	}
}
