// Package bus carries game events on NATS JetStream: one stream holds every table's public and
// per-seat subjects and every game's finished subject, so a reconnecting client resumes from a
// sequence and the stats service never misses a game. Trace context rides in message headers.
// Every subject and the stream's name derive from one prefix (Subjects), so several cardroom
// instances can share a NATS server.
package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// DefaultPrefix is the subject prefix of every cardroom subject unless Options.Prefix names
// another: its stream is CARDROOM, its subjects cardroom.table.>, cardroom.game.>, cardroom.live.*
// and the gateways' cardroomgw.*.
const DefaultPrefix = "cardroom"

// DefaultStream is the JetStream stream name of DefaultPrefix.
const DefaultStream = "CARDROOM"

// validPrefix: one NATS subject token that is also a stream name once upper-cased. Lower case only,
// so two prefixes never share a stream name.
var validPrefix = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// CheckPrefix says whether prefix can name a cardroom instance's subjects and stream. A prefix
// ending in "gw" is refused: its subjects would be another prefix's gateway notifications
// (prefix "xgw" and prefix "x"'s "xgw.table.<id>").
func CheckPrefix(prefix string) error {
	if !validPrefix.MatchString(prefix) {
		return fmt.Errorf("nats prefix %q: 1 to 64 of a-z, 0-9, '_' and '-', starting with a letter or digit", prefix)
	}
	if strings.HasSuffix(prefix, "gw") {
		return fmt.Errorf("nats prefix %q: must not end in \"gw\" (the gateway notifications of prefix %q)", prefix, strings.TrimSuffix(prefix, "gw"))
	}
	return nil
}

// Subjects names every subject and the stream of one cardroom instance. Instances with different
// prefixes share a NATS server without seeing each other's messages. The zero value is
// DefaultPrefix's.
type Subjects struct {
	prefix string
}

// NewSubjects returns the subjects under prefix ("" is DefaultPrefix); see CheckPrefix.
func NewSubjects(prefix string) (Subjects, error) {
	if prefix == "" || prefix == DefaultPrefix {
		return Subjects{}, nil
	}
	if err := CheckPrefix(prefix); err != nil {
		return Subjects{}, err
	}
	return Subjects{prefix: prefix}, nil
}

// Prefix is the subject prefix.
func (s Subjects) Prefix() string {
	if s.prefix == "" {
		return DefaultPrefix
	}
	return s.prefix
}

// Stream is the JetStream stream of the prefix: the prefix upper-cased ("CARDROOM").
func (s Subjects) Stream() string {
	if s.prefix == "" {
		return DefaultStream
	}
	return strings.ToUpper(s.prefix)
}

// stream are the subjects the stream holds: every table's events and every game's finished
// tables. Live updates and gateway notifications are not kept.
func (s Subjects) stream() []string {
	return []string{s.Prefix() + ".table.>", s.Prefix() + ".game.>"}
}

// Public is where a table's public events go.
func (s Subjects) Public(table string) string { return s.Prefix() + ".table." + table + ".public" }

// AllPublic matches every table's public events.
func (s Subjects) AllPublic() string { return s.Prefix() + ".table.*.public" }

// Seat is where one seat's private events go.
func (s Subjects) Seat(table string, seat int) string {
	return s.Prefix() + ".table." + table + ".seat." + strconv.Itoa(seat)
}

// Table matches every event of a table.
func (s Subjects) Table(table string) string { return s.Prefix() + ".table." + table + ".>" }

// Finished carries a game's TableFinished events.
func (s Subjects) Finished(game string) string { return s.Prefix() + ".game." + game + ".finished" }

// AllFinished matches every game's TableFinished events.
func (s Subjects) AllFinished() string { return s.Prefix() + ".game.*.finished" }

// Live carries a table's live updates (cardroom.rules.v1.TableUpdate) from the rules services to
// the gateways: plain NATS, outside the stream.
func (s Subjects) Live(table string) string { return s.Prefix() + ".live." + table }

// AllLive matches every table's live updates.
func (s Subjects) AllLive() string { return s.Prefix() + ".live.*" }

// LiveTableOf is the table of a subject under AllLive.
func (s Subjects) LiveTableOf(subject string) (string, bool) {
	table, ok := strings.CutPrefix(subject, s.Prefix()+".live.")
	if !ok || table == "" || strings.Contains(table, ".") {
		return "", false
	}
	return table, true
}

// Ticket wakes the watchers of a matchmaking ticket on every gateway replica (plain NATS, no
// payload): <prefix>gw.ticket.<id>.
func (s Subjects) Ticket(id string) string { return s.Prefix() + "gw.ticket." + id }

// TableNotice wakes the gateway replicas waiting on a table's lobby record (plain NATS, no
// payload): <prefix>gw.table.<id>.
func (s Subjects) TableNotice(id string) string { return s.Prefix() + "gw.table." + id }

// Message is one message to publish. ID deduplicates it on the stream (within Options.Duplicates).
type Message struct {
	Subject string
	ID      string
	Data    []byte
}

// Options configure the stream.
type Options struct {
	// Prefix of every subject and, upper-cased, the stream's name (empty: DefaultPrefix); see
	// Subjects.
	Prefix string
	// MaxAge bounds how long events are kept (0: 7 days).
	MaxAge time.Duration
	// Duplicates is the de-duplication window for message ids (0: 10 minutes).
	Duplicates time.Duration
	// Replicas of the stream in a NATS cluster (0: 1).
	Replicas int
	// Memory keeps the stream in memory instead of files (tests and benchmarks).
	Memory bool
	Logger *slog.Logger
}

// Bus publishes and subscribes.
type Bus struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	subj   Subjects
	stream string
	prop   propagation.TextMapPropagator
}

// Connect connects to url and makes sure the stream exists with the configured subjects.
func Connect(ctx context.Context, url, name string, opt Options) (*Bus, error) {
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	nc, err := nats.Connect(url,
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.RetryOnFailedConnect(false),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", slog.Any("error", err))
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("nats reconnected", slog.String("url", c.ConnectedUrlRedacted()))
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("connect nats: %w", err)
	}
	b, err := FromConn(ctx, nc, opt)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return b, nil
}

// FromConn uses an existing connection (its owner closes it).
func FromConn(ctx context.Context, nc *nats.Conn, opt Options) (*Bus, error) {
	subj, err := NewSubjects(opt.Prefix)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	cfg := jetstream.StreamConfig{
		Name:       subj.Stream(),
		Subjects:   subj.stream(),
		Storage:    jetstream.FileStorage,
		MaxAge:     opt.MaxAge,
		Duplicates: opt.Duplicates,
		Replicas:   max(opt.Replicas, 1),
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = 7 * 24 * time.Hour
	}
	if cfg.Duplicates == 0 {
		cfg.Duplicates = 10 * time.Minute
	}
	if opt.Memory {
		cfg.Storage = jetstream.MemoryStorage
	}
	if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
		return nil, fmt.Errorf("create stream %s: %w", cfg.Name, err)
	}
	return &Bus{nc: nc, js: js, subj: subj, stream: cfg.Name, prop: otel.GetTextMapPropagator()}, nil
}

// Close drains the connection.
func (b *Bus) Close() {
	if b.nc != nil {
		_ = b.nc.Drain()
	}
}

// Conn is the underlying connection.
func (b *Bus) Conn() *nats.Conn { return b.nc }

// JetStream is the underlying JetStream context.
func (b *Bus) JetStream() jetstream.JetStream { return b.js }

// Stream is the stream name.
func (b *Bus) Stream() string { return b.stream }

// Subjects are the bus's subjects.
func (b *Bus) Subjects() Subjects { return b.subj }

// DeleteStream removes the bus's stream with everything in it (tests clean up with it).
func (b *Bus) DeleteStream(ctx context.Context) error {
	if err := b.js.DeleteStream(ctx, b.stream); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("delete stream %s: %w", b.stream, err)
	}
	return nil
}

// PublishLive sends one message that the stream does not keep, without waiting for anything: it
// reaches the subscribers connected now, or nobody.
func (b *Bus) PublishLive(subject string, data []byte) error {
	if err := b.nc.Publish(subject, data); err != nil {
		return fmt.Errorf("publish %s: %w", subject, err)
	}
	return nil
}

// Publish publishes msgs, in order, and waits until the stream has acknowledged every one. The
// trace context of ctx goes in each message's headers.
func (b *Bus) Publish(ctx context.Context, msgs []Message) error {
	wait, err := b.PublishAsync(ctx, msgs)
	if err != nil {
		return err
	}
	return wait(ctx)
}

// PublishAsync publishes msgs, in order, without waiting for the stream: wait returns once the
// stream has acknowledged every one (or one failed, or ctx ended). The trace context of ctx goes
// in each message's headers.
func (b *Bus) PublishAsync(ctx context.Context, msgs []Message) (wait func(context.Context) error, err error) {
	if len(msgs) == 0 {
		return func(context.Context) error { return nil }, nil
	}
	hdr := nats.Header{}
	b.prop.Inject(ctx, propagation.HeaderCarrier(hdr))
	acks := make([]jetstream.PubAckFuture, 0, len(msgs))
	for _, m := range msgs {
		nm := &nats.Msg{Subject: m.Subject, Data: m.Data, Header: nats.Header{}}
		for k, v := range hdr {
			nm.Header[k] = v
		}
		var opts []jetstream.PublishOpt
		if m.ID != "" {
			opts = append(opts, jetstream.WithMsgID(m.ID))
		}
		f, err := b.js.PublishMsgAsync(nm, opts...)
		if err != nil {
			return nil, fmt.Errorf("publish %s: %w", m.Subject, err)
		}
		acks = append(acks, f)
	}
	return func(ctx context.Context) error {
		for _, f := range acks {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				return fmt.Errorf("publish %s: %w", f.Msg().Subject, err)
			case <-ctx.Done():
				return fmt.Errorf("publish: %w", ctx.Err())
			}
		}
		return nil
	}, nil
}

// Delivery is one received message.
type Delivery struct {
	Subject string
	Data    []byte
	// StreamSeq is the message's sequence in the stream.
	StreamSeq uint64
	// Context carries the publisher's trace context.
	Context context.Context
}

// Subscribe delivers, in stream order, the messages matching filters with a stream sequence of at
// least from (0: the whole stream), then every new one, until ctx ends or stop is called. It uses
// an ordered consumer: no state on the server, gaps repaired by the client library.
func (b *Bus) Subscribe(ctx context.Context, filters []string, from uint64, fn func(Delivery)) (stop func(), err error) {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: filters, DeliverPolicy: jetstream.DeliverAllPolicy}
	if from > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = from
	}
	c, err := b.js.OrderedConsumer(ctx, b.stream, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer: %w", err)
	}
	cc, err := c.Consume(func(m jetstream.Msg) {
		md, err := m.Metadata()
		if err != nil {
			return
		}
		mctx := b.prop.Extract(ctx, propagation.HeaderCarrier(m.Headers()))
		fn(Delivery{Subject: m.Subject(), Data: m.Data(), StreamSeq: md.Sequence.Stream, Context: mctx})
	})
	if err != nil {
		return nil, fmt.Errorf("consume: %w", err)
	}
	return cc.Stop, nil
}

// LastSequence is the stream's last sequence (0 when empty).
func (b *Bus) LastSequence(ctx context.Context) (uint64, error) {
	s, err := b.js.Stream(ctx, b.stream)
	if err != nil {
		return 0, fmt.Errorf("stream info: %w", err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("stream info: %w", err)
	}
	return info.State.LastSeq, nil
}

// ErrClosed is returned for a bus that has been closed.
var ErrClosed = errors.New("bus: closed")
