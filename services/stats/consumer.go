package stats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"cardroom.dev/services/kit/bus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// The stats service reads every table's public events (bus.Bus.ConsumePublic). TableCreated and
// TableFinished are aggregated, the games' own public events skipped.

// ConsumerOptions configure the durable consumer.
type ConsumerOptions struct {
	// Durable is the JetStream consumer name (default "stats").
	Durable string
	// Batch is the most messages applied in one store call (default 2000).
	Batch int
	// Linger is how long a batch waits for more messages after its first, when no more are
	// waiting (default 20ms; negative: none). A trickle of events is then applied in a few store
	// calls a second rather than one per event, for a delay nobody reading statistics notices.
	Linger time.Duration
	// Aggregator is the aggregation (default DefaultAggregator).
	Aggregator *Aggregator
	Logger     *slog.Logger
	// CacheLimit bounds the records a session keeps in memory (default 200,000).
	CacheLimit int
	// AfterApply, when set, is called after each batch is applied (tests inject failures here).
	AfterApply func(ctx context.Context, position uint64) error
}

// Consumer reads the stream with a durable JetStream consumer and applies it to a store.
//
// The store, not the server, is the authority on progress: every session starts by reading the
// store's position and (re)creating the durable consumer to deliver from the next sequence, and
// each batch moves the position together with its effects. A crash between applying and
// acknowledging, a redelivery, or a lost message (detected as a gap in the consumer sequence)
// therefore never applies an event twice or skips one: the session restarts from the store.
type Consumer struct {
	bus     *bus.Bus
	ap      applier
	opt     ConsumerOptions
	metrics *metrics
	tracer  trace.Tracer
}

// NewConsumer returns a consumer of b's stream into st.
func NewConsumer(b *bus.Bus, st Store, opt ConsumerOptions) *Consumer {
	if opt.Durable == "" {
		opt.Durable = "stats"
	}
	if opt.Batch <= 0 {
		opt.Batch = 2000
	}
	if opt.CacheLimit <= 0 {
		opt.CacheLimit = cacheLimit
	}
	if opt.Linger == 0 {
		opt.Linger = defaultLinger
	}
	agg := DefaultAggregator
	if opt.Aggregator != nil {
		agg = *opt.Aggregator
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	return &Consumer{bus: b, ap: applier{store: st, agg: agg, log: opt.Logger, subj: b.Subjects()}, opt: opt, metrics: newMetrics(), tracer: otel.Tracer("cardroom.dev/services/stats")}
}

var errGap = errors.New("gap in the consumer sequence")

// defaultLinger is ConsumerOptions.Linger's default.
const defaultLinger = 20 * time.Millisecond

// Run consumes until ctx ends. Failures (store or bus) restart the session after a backoff; they
// never stop the loop.
func (c *Consumer) Run(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for {
		err := c.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		c.metrics.restarts.Add(ctx, 1)
		c.opt.Logger.WarnContext(ctx, "stats consumer restarting", slog.Any("error", err), slog.Duration("after", backoff))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

func (c *Consumer) session(ctx context.Context) error {
	pos, err := c.ap.store.Position(ctx)
	if err != nil {
		return err
	}
	return c.consume(ctx, pos)
}

// consume feeds batches to the applier until ctx ends or something fails.
func (c *Consumer) consume(ctx context.Context, pos uint64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	msgs := make(chan bus.Received, 2*c.opt.Batch)
	cons, err := c.bus.ConsumePublic(ctx, bus.DurableOptions{
		Name:          c.opt.Durable,
		Description:   "cardroom stats: aggregates; the position lives with the aggregates",
		After:         pos,
		MaxAckPending: 4 * c.opt.Batch,
		Pull:          2 * c.opt.Batch,
	}, func(m bus.Received) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	})
	if err != nil {
		return err
	}
	defer cons.Stop()
	// Batches are folded here and applied by a committer goroutine, so the next batch is decoded
	// and folded while the previous one is being written: the store's CPU and ours overlap.
	st, err := c.ap.store.Load(ctx, Keys{})
	if err != nil {
		return err
	}
	if st.Position != pos {
		return fmt.Errorf("%w: store at %d, session started at %d", ErrConflict, st.Position, pos)
	}
	cc2 := newCache(st)
	work := make(chan *pending, 1)
	failed := make(chan error, 1)
	done := make(chan struct{})
	var inflight sync.WaitGroup
	go func() {
		defer close(done)
		c.commit(ctx, work, failed, &inflight)
	}()
	defer func() {
		close(work)
		<-done // nothing in flight when the next session reads the position
	}()
	nextConsumerSeq := uint64(1)
	for {
		var first bus.Received
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-cons.Lost():
			return err
		case err := <-failed:
			return err
		case first = <-msgs:
		}
		batch := make([]Message, 0, c.opt.Batch)
		last := first
		m := first
		linger := time.Now().Add(c.opt.Linger)
		var timer *time.Timer
		for {
			switch cs := m.ConsumerSeq; {
			case cs == nextConsumerSeq:
				nextConsumerSeq++
			case cs > nextConsumerSeq:
				return fmt.Errorf("%w: expected %d, got %d", errGap, nextConsumerSeq, cs)
			}
			if ss := m.StreamSeq; ss > pos {
				batch = append(batch, Message{Subject: m.Subject, Data: m.Data, Seq: ss, trace: traceOf(m)})
				pos = ss
			}
			last = m
			if len(batch) >= c.opt.Batch {
				break
			}
			more := false
			select {
			case m = <-msgs:
				more = true
			default:
				if wait := time.Until(linger); wait > 0 {
					if timer == nil {
						timer = time.NewTimer(wait)
					} else {
						timer.Reset(wait)
					}
					select {
					case m = <-msgs:
						more = true
					case <-timer.C:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
			}
			if !more {
				break
			}
		}
		if timer != nil {
			timer.Stop()
		}
		if cc2.size() > c.opt.CacheLimit {
			inflight.Wait() // nothing in flight: the store holds everything the cache does
			cc2 = newCache(&State{Position: cc2.pos, HighWater: cc2.highWater})
		}
		d, evs, err := c.ap.foldCached(ctx, cc2, batch)
		if err != nil {
			return err
		}
		inflight.Add(1)
		select {
		case work <- &pending{delta: d, events: evs, last: last, pos: pos}:
		case <-ctx.Done():
			inflight.Done()
			return ctx.Err()
		case err := <-failed:
			inflight.Done()
			return err
		}
	}
}

// pending is a folded batch on its way to the store.
type pending struct {
	delta  *Delta // nil: nothing after the position (acknowledge only)
	events []*event
	last   bus.Received
	pos    uint64
}

// commit applies pending batches in order, acknowledges them and logs their rejections, until work
// is closed. At the first failure it reports on failed and applies nothing more (the session ends).
func (c *Consumer) commit(ctx context.Context, work <-chan *pending, failed chan<- error, inflight *sync.WaitGroup) {
	var err error
	for p := range work {
		if err == nil {
			if err = c.commitOne(ctx, p); err != nil {
				failed <- err
			}
		}
		inflight.Done()
	}
}

// traceOf returns a function giving the trace context m's publisher put in its headers (nil: it
// put none).
func traceOf(m bus.Received) func(context.Context) context.Context {
	if !m.Traced() {
		return nil
	}
	return m.Context
}

// traceFinished records, in the trace of the action that finished each table of the batch, a
// stats.finished span over the store write that counted it.
func (c *Consumer) traceFinished(ctx context.Context, evs []*event, start, end time.Time) {
	for _, e := range evs {
		if e.kind != kindFinished || e.trace == nil {
			continue
		}
		tctx := e.trace(ctx)
		if !trace.SpanContextFromContext(tctx).IsValid() {
			continue
		}
		_, span := c.tracer.Start(tctx, "stats.finished", trace.WithTimestamp(start),
			trace.WithAttributes(attribute.String("table", e.env.GetTableId()), attribute.Int64("stream_seq", int64(e.seq))))
		span.End(trace.WithTimestamp(end))
	}
}

func (c *Consumer) commitOne(ctx context.Context, p *pending) error {
	if p.delta != nil {
		start := time.Now()
		if err := c.ap.store.Apply(ctx, p.delta); err != nil {
			return err
		}
		end := time.Now()
		c.traceFinished(ctx, p.events, start, end)
		c.metrics.committed(ctx, p.events, end.Sub(start), p.pos)
		c.ap.logRejections(ctx, p.events)
	}
	if c.opt.AfterApply != nil {
		if err := c.opt.AfterApply(ctx, p.pos); err != nil {
			return err
		}
	}
	if err := p.last.Ack(); err != nil {
		c.opt.Logger.DebugContext(ctx, "ack failed", slog.Any("error", err))
	}
	return nil
}
