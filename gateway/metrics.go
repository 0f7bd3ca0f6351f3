package gateway

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// metrics are the gateway's instruments (exported for Prometheus as cardroom_gateway_*).
type metrics struct {
	watchStreams metric.Int64UpDownCounter
	hubs         metric.Int64UpDownCounter
	refusals     metric.Int64Counter
	matches      metric.Int64Counter
	queueWait    metric.Float64Histogram
	botMoves     metric.Int64Counter
	gapRepairs   metric.Int64Counter
	fallbacks    metric.Int64Counter
}

func newMetrics() *metrics {
	m := otel.Meter("cardroom.dev/gateway")
	// Instrument creation only fails on invalid names, which these are not.
	streams, _ := m.Int64UpDownCounter("cardroom.gateway.watch_streams", metric.WithDescription("Open Watch streams."))
	hubs, _ := m.Int64UpDownCounter("cardroom.gateway.table_hubs", metric.WithDescription("Tables whose events this replica follows."))
	refusals, _ := m.Int64Counter("cardroom.gateway.refusals", metric.WithDescription("Calls refused before routing, by reason."))
	matches, _ := m.Int64Counter("cardroom.gateway.matches", metric.WithDescription("Tables dealt from the matchmaking queues."))
	wait, _ := m.Float64Histogram("cardroom.gateway.queue_wait", metric.WithUnit("s"),
		metric.WithDescription("Time a ticket waited in the queue before its match."),
		metric.WithExplicitBucketBoundaries(0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300))
	bots, _ := m.Int64Counter("cardroom.gateway.bot_moves", metric.WithDescription("Moves played by the gateway, for bots and for absent players."))
	gaps, _ := m.Int64Counter("cardroom.gateway.gap_repairs", metric.WithDescription("Reads of a table's log to fill a gap in its events."))
	fallbacks, _ := m.Int64Counter("cardroom.gateway.shared_fallbacks",
		metric.WithDescription("Calls judged without Redis because it did not answer: rate limit per replica, sign-outs of other replicas unchecked."))
	return &metrics{fallbacks: fallbacks, watchStreams: streams, hubs: hubs, refusals: refusals, matches: matches, queueWait: wait, botMoves: bots, gapRepairs: gaps}
}

var (
	reasonUnauthenticated = metric.WithAttributeSet(attribute.NewSet(attribute.String("reason", "unauthenticated")))
	reasonRateLimited     = metric.WithAttributeSet(attribute.NewSet(attribute.String("reason", "rate_limited")))
	reasonThrottled       = metric.WithAttributeSet(attribute.NewSet(attribute.String("reason", "sign_in_throttled")))
	reasonTooLarge        = metric.WithAttributeSet(attribute.NewSet(attribute.String("reason", "too_large")))
	fellBackRateLimit     = metric.WithAttributeSet(attribute.NewSet(attribute.String("check", "rate_limit")))
	fellBackThrottle      = metric.WithAttributeSet(attribute.NewSet(attribute.String("check", "sign_in_failures")))
	fellBackRevocations   = metric.WithAttributeSet(attribute.NewSet(attribute.String("check", "revocation")))
	forBot                = metric.WithAttributeSet(attribute.NewSet(attribute.String("seat", "bot")))
	forAbsent             = metric.WithAttributeSet(attribute.NewSet(attribute.String("seat", "absent")))
)
