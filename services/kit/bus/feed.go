package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/propagation"
)

// Feed receives the live updates of the tables it watches into one buffer, read by one goroutine
// (Run): a replica watching thousands of tables runs no goroutine per table, and NATS sends it only
// those tables' updates.
type Feed struct {
	b  *Bus
	ch chan *nats.Msg
}

// Update is one live update received.
type Update struct {
	Table string
	Data  []byte
	// Context carries the publisher's trace context.
	Context context.Context
}

// NewFeed returns a feed that holds at most buffer updates received and not yet handed to Run's
// function; past it NATS drops them, counted per TableWatch.
func (b *Bus) NewFeed(buffer int) *Feed {
	return &Feed{b: b, ch: make(chan *nats.Msg, buffer)}
}

// TableWatch is a feed's subscription to one table's live updates.
type TableWatch struct {
	sub *nats.Subscription
}

// watchTimeout bounds the round trip that makes sure the server has a new subscription.
var watchTimeout = 5 * time.Second

// ErrUnavailable is in the error of a Watch that the server did not confirm in time while the
// connection seemed up (a server stalled, or a link that carries nothing and is not yet known
// dead): the caller may try again soon, and should say so (UNAVAILABLE), not fail.
var ErrUnavailable = errors.New("the event bus did not answer")

// Watch subscribes the feed to table's live updates and returns once the server has the
// subscription, so that every update published after Watch returns reaches the feed. While the
// connection is down it returns at once: the subscription is made when the connection comes back
// (Reconnects tells when).
func (f *Feed) Watch(table string) (*TableWatch, error) {
	subject := f.b.subj.Live(table)
	sub, err := f.b.nc.ChanSubscribe(subject, f.ch)
	if err != nil {
		return nil, fmt.Errorf("subscribe %s: %w", subject, err)
	}
	if err := f.b.nc.FlushTimeout(watchTimeout); err != nil && f.b.nc.IsConnected() {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("subscribe %s: %w: %w", subject, ErrUnavailable, err)
	}
	return &TableWatch{sub: sub}, nil
}

// Dropped is how many of the table's updates NATS dropped because the feed's buffer was full.
func (w *TableWatch) Dropped() int {
	d, _ := w.sub.Dropped()
	return d
}

// Stop ends the subscription.
func (w *TableWatch) Stop() { _ = w.sub.Unsubscribe() }

// Run hands every update received to fn, in the order received, until ctx ends. The update's
// Context is ctx with the publisher's trace context.
func (f *Feed) Run(ctx context.Context, fn func(Update)) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-f.ch:
			table, ok := f.b.subj.LiveTableOf(m.Subject)
			if !ok {
				continue
			}
			uctx := ctx
			if len(m.Header) > 0 {
				uctx = f.b.prop.Extract(ctx, propagation.HeaderCarrier(m.Header))
			}
			fn(Update{Table: table, Data: m.Data, Context: uctx})
		}
	}
}

// Reconnects is how many times the connection came back after a loss: a subscriber may have
// missed messages meanwhile.
func (b *Bus) Reconnects() uint64 { return b.nc.Stats().Reconnects }

// SlowEpisodes is how many times one of the connection's subscriptions began dropping messages
// (NATS reports a subscription once when its buffer overflows, and again only after it has
// delivered since). ok is false for a bus made with FromConn, which cannot tell: its caller looks
// at each subscription's drops instead.
func (b *Bus) SlowEpisodes() (n uint64, ok bool) {
	if b.slow == nil {
		return 0, false
	}
	return b.slow.Load(), true
}

// Received is how many messages the connection has received.
func (b *Bus) Received() uint64 { return b.nc.Stats().InMsgs }

// Notify sends an empty message on subject (one of Subjects' gateway notifications), kept
// nowhere: it wakes the listeners connected now.
func (b *Bus) Notify(subject string) error {
	if err := b.nc.Publish(subject, nil); err != nil {
		return fmt.Errorf("notify %s: %w", subject, err)
	}
	return nil
}

// Listen signals wake at each notification on subject (several at once may be signalled once)
// until stop.
func (b *Bus) Listen(subject string) (wake <-chan struct{}, stop func(), err error) {
	ch := make(chan struct{}, 1)
	sub, err := b.nc.Subscribe(subject, func(*nats.Msg) {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listen %s: %w", subject, err)
	}
	return ch, func() { _ = sub.Unsubscribe() }, nil
}
