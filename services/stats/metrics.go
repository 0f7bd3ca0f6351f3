package stats

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// metrics of the consumer, exported with every other OpenTelemetry metric of the process.
type metrics struct {
	events   metric.Int64Counter
	kinds    [4][]metric.AddOption
	apply    metric.Float64Histogram
	restarts metric.Int64Counter
	position metric.Int64Gauge
}

func newMetrics() *metrics {
	m := otel.Meter("cardroom.dev/services/stats")
	// Instrument creation only fails on invalid names, which these are not.
	events, _ := m.Int64Counter("cardroom.stats.events", metric.WithDescription("Stream messages committed to the aggregates, by kind."))
	apply, _ := m.Float64Histogram("cardroom.stats.apply.duration", metric.WithUnit("s"),
		metric.WithDescription("Time to write one batch to the aggregate store."),
		metric.WithExplicitBucketBoundaries(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1))
	restarts, _ := m.Int64Counter("cardroom.stats.consumer.restarts", metric.WithDescription("Consumer sessions ended by a failure."))
	position, _ := m.Int64Gauge("cardroom.stats.position", metric.WithDescription("Last stream sequence applied to the aggregates."))
	out := &metrics{events: events, apply: apply, restarts: restarts, position: position}
	for k, name := range map[eventKind]string{kindRejected: "rejected", kindIgnored: "ignored", kindCreated: "table_created", kindFinished: "table_finished"} {
		out.kinds[k] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("kind", name)))}
	}
	return out
}

func (m *metrics) committed(ctx context.Context, evs []*event, took time.Duration, pos uint64) {
	var n [4]int64
	for _, e := range evs {
		n[e.kind]++
	}
	for k, v := range n {
		if v > 0 {
			m.events.Add(ctx, v, m.kinds[k]...)
		}
	}
	m.apply.Record(ctx, took.Seconds())
	m.position.Record(ctx, int64(pos))
}
