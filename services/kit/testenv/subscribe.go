package testenv

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// Delivery is one message Subscribe received.
type Delivery struct {
	Subject string
	Data    []byte
	// StreamSeq is the message's sequence in the stream.
	StreamSeq uint64
	// Context carries the publisher's trace context.
	Context context.Context
}

// Subscribe reads stream on the NATS server at url over a connection of its own, as an outside
// consumer of the event stream would: it delivers, in stream order, the messages matching filters
// with a stream sequence of at least from (0: the whole stream), then every new one, until ctx
// ends or stop is called. It uses an ordered consumer: no state on the server, gaps repaired by the
// client library.
func Subscribe(ctx context.Context, url, stream string, filters []string, from uint64, fn func(Delivery)) (stop func(), err error) {
	nc, err := nats.Connect(url, nats.Name("testenv-subscribe"))
	if err != nil {
		return nil, fmt.Errorf("connect nats: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: filters, DeliverPolicy: jetstream.DeliverAllPolicy}
	if from > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = from
	}
	c, err := js.OrderedConsumer(ctx, stream, cfg)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("consumer: %w", err)
	}
	prop := otel.GetTextMapPropagator()
	cc, err := c.Consume(func(m jetstream.Msg) {
		md, err := m.Metadata()
		if err != nil {
			return
		}
		mctx := prop.Extract(ctx, propagation.HeaderCarrier(m.Headers()))
		fn(Delivery{Subject: m.Subject(), Data: m.Data(), StreamSeq: md.Sequence.Stream, Context: mctx})
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("consume: %w", err)
	}
	return func() {
		cc.Stop()
		nc.Close()
	}, nil
}
