package bus

import (
	"context"
	"maps"
	"net/http"
	"testing"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The header a message gets is the one propagation.HeaderCarrier writes, and reads back the same.
func TestHeaderCarrierMatchesHTTPCarrier(t *testing.T) {
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled,
	})
	ts, err := trace.ParseTraceState("vendor=value")
	if err != nil {
		t.Fatal(err)
	}
	sc = sc.WithTraceState(ts)
	member, err := baggage.NewMember("user", "alice")
	if err != nil {
		t.Fatal(err)
	}
	bag, err := baggage.New(member)
	if err != nil {
		t.Fatal(err)
	}
	ctx := baggage.ContextWithBaggage(trace.ContextWithSpanContext(context.Background(), sc), bag)

	want := http.Header{}
	prop.Inject(ctx, propagation.HeaderCarrier(want))
	var got nats.Header
	prop.Inject(ctx, &headerCarrier{h: &got})
	if !maps.EqualFunc(map[string][]string(got), map[string][]string(want), func(a, b []string) bool { return len(a) == 1 && len(b) == 1 && a[0] == b[0] }) {
		t.Fatalf("header %v, want %v", got, want)
	}
	back := trace.SpanContextFromContext(prop.Extract(context.Background(), propagation.HeaderCarrier(got)))
	if !back.Equal(sc.WithRemote(true)) {
		t.Fatalf("extracted %v, want %v", back, sc)
	}

	var none nats.Header
	prop.Inject(context.Background(), &headerCarrier{h: &none})
	if none != nil {
		t.Fatalf("nothing to inject made a header: %v", none)
	}
}
