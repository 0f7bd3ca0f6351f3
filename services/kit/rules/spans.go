package rules

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// noSpan is the span startSpan returns when it starts none: it records nothing and ending it does
// nothing.
var noSpan = trace.SpanFromContext(context.Background())

// startSpan starts a span named name under ctx's, unless ctx's span is a valid one that is neither
// recorded nor sampled: a child of it would record nothing either under the samplers cardroom
// installs (package telemetry: NeverSample without an exporter, ParentBased otherwise), and
// starting one per store call and publication would still cost a span, a context and a new span id
// each, several times per action. ctx is then returned as it is, with noSpan, so that what follows
// (the Redis commands, the trace context in the bus's headers) carries the caller's unsampled
// trace. Without a span in ctx, or under a sampled one, the span is started as usual.
func (s *Server) startSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	if p := trace.SpanFromContext(ctx); !p.IsRecording() {
		if sc := p.SpanContext(); sc.IsValid() && !sc.IsSampled() {
			return ctx, noSpan
		}
	}
	return s.tracer.Start(ctx, name)
}
