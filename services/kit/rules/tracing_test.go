package rules_test

import (
	"context"
	"testing"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/store"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
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
