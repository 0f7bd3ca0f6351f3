package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/propagation"
)

// The readers of the stream: every table's public events, read by a durable consumer whose
// position its reader keeps (ConsumePublic, the stats service's sessions), or once up to the
// stream's end as it stands (ReadPublic: a rebuild of the aggregates, an export).

// Received is one of the stream's messages as its reader gets it.
type Received struct {
	Subject string
	Data    []byte
	// StreamSeq is the message's sequence in the stream.
	StreamSeq uint64
	// ConsumerSeq is its delivery's sequence in the consumer: 1, 2, 3 … without a gap unless a
	// delivery was lost.
	ConsumerSeq uint64
	msg         jetstream.Msg
	prop        propagation.TextMapPropagator
}

func (b *Bus) received(m jetstream.Msg) (Received, *jetstream.MsgMetadata, error) {
	md, err := m.Metadata()
	if err != nil {
		return Received{}, nil, fmt.Errorf("message metadata: %w", err)
	}
	return Received{Subject: m.Subject(), Data: m.Data(), StreamSeq: md.Sequence.Stream, ConsumerSeq: md.Sequence.Consumer, msg: m, prop: b.prop}, md, nil
}

// Traced reports whether the message's publisher put a trace context in its headers.
func (r Received) Traced() bool { return len(r.msg.Headers()) > 0 }

// Context is ctx with the trace context the message's publisher put in its headers.
func (r Received) Context(ctx context.Context) context.Context {
	h := r.msg.Headers()
	if len(h) == 0 {
		return ctx
	}
	return r.prop.Extract(ctx, propagation.HeaderCarrier(h))
}

// Ack acknowledges the message and, on a durable consumer, every one delivered before it.
func (r Received) Ack() error { return r.msg.Ack() }

// Consumption is a durable consumer's delivery under way (ConsumePublic).
type Consumption struct {
	cc   jetstream.ConsumeContext
	lost chan error
}

// Lost receives why the delivery cannot go on: the consumer is gone from the server (deleted, or
// lost by a restarted server), or a message came without its metadata. Its reader then starts
// again from its own position (ConsumePublic anew).
func (c *Consumption) Lost() <-chan error { return c.lost }

// Stop ends the delivery.
func (c *Consumption) Stop() { c.cc.Stop() }

func (c *Consumption) lose(err error) {
	select {
	case c.lost <- err:
	default:
	}
}

// ConsumePublic (re)creates the durable consumer opt.Name of every table's public events,
// delivering from the stream sequence after opt.After, and hands its messages to fn, in order, one
// at a time, until Stop. Acknowledging a message (Received.Ack) acknowledges every one before it.
func (b *Bus) ConsumePublic(ctx context.Context, opt DurableOptions, fn func(Received)) (*Consumption, error) {
	cons, err := b.publicDurable(ctx, opt)
	if err != nil {
		return nil, err
	}
	c := &Consumption{lost: make(chan error, 1)}
	opts := []jetstream.PullConsumeOpt{jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) {
			c.lose(err)
		}
	})}
	if opt.Pull > 0 {
		opts = append(opts, jetstream.PullMaxMessages(opt.Pull))
	}
	c.cc, err = cons.Consume(func(m jetstream.Msg) {
		r, _, err := b.received(m)
		if err != nil {
			c.lose(err)
			return
		}
		fn(r)
	}, opts...)
	if err != nil {
		return nil, fmt.Errorf("consume: %w", err)
	}
	return c, nil
}

// ReadFrom is where ReadPublic starts.
type ReadFrom struct {
	// Seq is the first stream sequence to read (0 or 1: the stream's first).
	Seq uint64
	// Since, when not zero, starts at the first message the stream stored at or after it (Seq is
	// then ignored).
	Since time.Time
}

// ReadPublic hands fn, in stream order, every table's public events from where up to the last one
// the stream held when it was called, then returns nil (at once when there is none). An error of
// fn ends it and is returned. The reader is an ordered consumer (no state on the server; gaps
// repaired by the client library) that asks for up to pull messages at once; a reader that keeps
// its own position (an export, say) starts from it.
func (b *Bus) ReadPublic(ctx context.Context, from ReadFrom, pull int, fn func(Received) error) error {
	target, err := b.LastSequence(ctx)
	if err != nil || target == 0 {
		return err
	}
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{b.subj.AllPublic()}, DeliverPolicy: jetstream.DeliverAllPolicy}
	switch {
	case !from.Since.IsZero():
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &from.Since
	case from.Seq > target:
		return nil
	case from.Seq > 1:
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, from.Seq
	}
	cons, err := b.js.OrderedConsumer(ctx, b.stream, cfg)
	if err != nil {
		return fmt.Errorf("replay consumer: %w", err)
	}
	info, err := consumerInfo(ctx, cons)
	if err != nil {
		return fmt.Errorf("replay consumer: %w", err)
	}
	if info.NumPending == 0 {
		return nil
	}
	var opts []jetstream.PullMessagesOpt
	if pull > 0 {
		opts = append(opts, jetstream.PullMaxMessages(pull))
	}
	it, err := cons.Messages(opts...)
	if err != nil {
		return fmt.Errorf("replay consumer: %w", err)
	}
	defer it.Stop()
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return fmt.Errorf("replay read: %w", err)
		}
		r, md, err := b.received(m)
		if err != nil {
			return fmt.Errorf("replay read: %w", err)
		}
		if r.StreamSeq > target {
			return nil
		}
		if err := fn(r); err != nil {
			return err
		}
		if r.StreamSeq == target || md.NumPending == 0 {
			return nil
		}
	}
}

// DurableOptions configure ConsumePublic.
type DurableOptions struct {
	// Name of the durable consumer.
	Name        string
	Description string
	// After is the last stream sequence already applied (0: deliver the whole stream).
	After uint64
	// MaxAckPending bounds the messages delivered and not acknowledged.
	MaxAckPending int
	// Pull is the most messages asked of the server at once (0: the client library's default).
	Pull int
}

// publicDurable (re)creates the durable consumer opt.Name of every table's public events, acked
// all up to each acknowledged message, delivering from the stream sequence after opt.After: the
// consumer's position is its reader's, not the server's.
func (b *Bus) publicDurable(ctx context.Context, opt DurableOptions) (jetstream.Consumer, error) {
	err := RetryAPI(ctx, func(ctx context.Context) error {
		if err := b.js.DeleteConsumer(ctx, b.stream, opt.Name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return fmt.Errorf("reset consumer %s: %w", opt.Name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cfg := jetstream.ConsumerConfig{
		Durable:       opt.Name,
		Description:   opt.Description,
		FilterSubject: b.subj.AllPublic(),
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckAllPolicy,
		AckWait:       time.Minute,
		MaxAckPending: opt.MaxAckPending,
		// Replicas 0: as many as the stream, so that the consumer's state survives what the
		// stream survives.
		//
		// On a transient server (Options.Transient) the state is kept in memory: the consumer
		// is made again at every start from its reader's position anyway, and a file-backed
		// consumer writes its state file anew (a temporary file, written and renamed) after
		// acknowledgements (a sixth of the samples of an idle `cardroom serve`'s CPU profile). Elsewhere it stays on
		// disk, where a restarted server finds it: nats.go does not report a consumer that a
		// restart lost (its pulls get no heartbeats), so its reader would wait.
		MemoryStorage: b.transient,
	}
	if opt.After > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, opt.After+1
	}
	var c jetstream.Consumer
	err = RetryAPI(ctx, func(ctx context.Context) error {
		var err error
		if c, err = b.js.CreateConsumer(ctx, b.stream, cfg); err != nil {
			return fmt.Errorf("create consumer %s: %w", opt.Name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// consumerInfo is c's state, asked again while the cluster elects the consumer's leader (a
// consumer just created on a cluster that lost a server may have none for a while, and a request
// to it goes unanswered).
func consumerInfo(ctx context.Context, c jetstream.Consumer) (*jetstream.ConsumerInfo, error) {
	var info *jetstream.ConsumerInfo
	err := RetryAPI(ctx, func(ctx context.Context) error {
		var err error
		info, err = c.Info(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("consumer info: %w", err)
	}
	return info, nil
}
