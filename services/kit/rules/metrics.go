package rules

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc/status"
)

type metrics struct {
	game            attribute.KeyValue
	okSet           []metric.AddOption // preallocated: variadic calls would allocate per action
	gameSet         []metric.RecordOption
	actions         metric.Int64Counter
	actionLatency   metric.Float64Histogram
	casRetries      metric.Int64Counter
	timeouts        metric.Int64Counter
	publishFailures metric.Int64Counter
	tablesCreated   metric.Int64Counter
	tablesFinished  metric.Int64Counter
	keptActs        metric.Int64Counter
	keptSets        [keptResults][]metric.AddOption // preallocated per result
}

// keptResult is what became of an action's attempt to commit from the state the replica kept.
type keptResult int

const (
	// keptHit: committed from the kept state, in one store round trip.
	keptHit keptResult = iota
	// keptMiss: no state kept that a commit could start from; the table was loaded.
	keptMiss
	// keptFallback: a state was kept, but the table was loaded and the action judged again (the
	// table moved on, a retry, a refusal, an expected version, a passed deadline).
	keptFallback
	keptResults
)

var keptResultNames = [keptResults]string{keptHit: "hit", keptMiss: "miss", keptFallback: "fallback"}

func newMetrics(game string) *metrics {
	m := otel.Meter("cardroom.dev/services/kit/rules")
	// Instrument creation only fails on invalid names, which these are not.
	actions, _ := m.Int64Counter("cardroom.rules.actions", metric.WithDescription("Actions handled, by result."))
	latency, _ := m.Float64Histogram("cardroom.rules.action.duration", metric.WithUnit("s"),
		metric.WithDescription("Time to handle one action, store and bus included."),
		metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1))
	retries, _ := m.Int64Counter("cardroom.rules.cas_retries", metric.WithDescription("Actions re-validated after a lost compare-and-set."))
	timeouts, _ := m.Int64Counter("cardroom.rules.timeouts", metric.WithDescription("Deadlines applied."))
	pubFail, _ := m.Int64Counter("cardroom.rules.publish_failures", metric.WithDescription("Commits whose events could not be published at once."))
	created, _ := m.Int64Counter("cardroom.rules.tables_created", metric.WithDescription("Tables dealt."))
	finished, _ := m.Int64Counter("cardroom.rules.tables_finished", metric.WithDescription("Tables finished or aborted."))
	kept, _ := m.Int64Counter("cardroom.rules.kept_state_acts", metric.WithDescription(
		"Actions by whether they committed from the replica's kept state without loading the table (hit), found none (miss) or loaded it after all (fallback)."))
	var keptSets [keptResults][]metric.AddOption
	for r, name := range keptResultNames {
		keptSets[r] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("game", game), attribute.String("result", name)))}
	}
	return &metrics{
		game:    attribute.String("game", game),
		okSet:   []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("game", game), attribute.String("result", "ok")))},
		gameSet: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("game", game)))}, actions: actions, actionLatency: latency, casRetries: retries,
		timeouts: timeouts, publishFailures: pubFail, tablesCreated: created, tablesFinished: finished,
		keptActs: kept, keptSets: keptSets,
	}
}

// keptState counts one action's use of the replica's kept state.
func (m *metrics) keptState(ctx context.Context, r keptResult) {
	m.keptActs.Add(ctx, 1, m.keptSets[r]...)
}

func (m *metrics) observeAction(ctx context.Context, start time.Time, err error) {
	m.actionLatency.Record(ctx, time.Since(start).Seconds(), m.gameSet...)
	if err == nil {
		m.actions.Add(ctx, 1, m.okSet...)
		return
	}
	result := "error"
	if st, ok := status.FromError(err); ok {
		result = st.Code().String()
	}
	if errors.Is(err, context.Canceled) {
		result = "canceled"
	}
	m.actions.Add(ctx, 1, metric.WithAttributes(m.game, attribute.String("result", result)))
}
