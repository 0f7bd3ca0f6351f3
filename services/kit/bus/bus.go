// Package bus is cardroom's one event path, and the only code that touches NATS. Per commit a
// rules service sends one live update (cardroom.rules.v1.TableUpdate, plain NATS, kept nowhere) to
// the gateways that watch the table (Feed), and puts the commit's public events on one JetStream
// stream, which the stats service reads with a durable consumer whose position it keeps
// (ConsumePublic) or once up to its end (ReadPublic). The gateways' notifications ride plain
// NATS too (Notify, Listen). Trace context rides in every message's headers and comes out of every
// delivery. Every subject and the stream's name derive from one prefix (Subjects), so several
// cardroom instances can share a NATS server.
package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// DefaultPrefix is the subject prefix of every cardroom subject unless Options.Prefix names
// another: its stream is CARDROOM, its subjects cardroom.table.*.public, cardroom.live.* and the
// gateways' cardroomgw.*.
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

// stream are the subjects the stream holds: every table's public events. Private events, live
// updates and gateway notifications are not kept (the rules services' log is the record of a
// table; see docs/events.md).
func (s Subjects) stream() []string {
	return []string{s.AllPublic()}
}

// Public is where a table's public events go.
func (s Subjects) Public(table string) string { return s.Prefix() + ".table." + table + ".public" }

// AllPublic matches every table's public events: what the stats service reads.
func (s Subjects) AllPublic() string { return s.Prefix() + ".table.*.public" }

// Live carries a table's live updates (cardroom.rules.v1.TableUpdate) from the rules services to
// the gateways: plain NATS, outside the stream.
func (s Subjects) Live(table string) string { return s.Prefix() + ".live." + table }

// LiveTableOf is the table of a subject Live names.
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
	// Replicas is how many servers of a NATS cluster keep the stream (0: 1; at most MaxReplicas).
	// The durable consumers inherit it. A process raises an existing stream's replicas to its own
	// value when it connects, and never lowers them.
	Replicas int
	// Memory keeps the stream in memory instead of files (tests and benchmarks).
	Memory bool
	// Transient says that the NATS server lives and dies with this process and keeps nothing
	// after it (cardroom serve's embedded server on a temporary directory): durable consumers then
	// keep their state in memory, since no later server could read it from disk (see
	// ConsumePublic).
	Transient bool
	// InProcess, when set, is a NATS server running in this process (natsembed): the connection
	// goes to it through memory instead of a loopback socket. The URL passed to Connect is then
	// only a name for the logs.
	InProcess nats.InProcessConnProvider
	Logger    *slog.Logger
}

// MaxReplicas is the most replicas JetStream keeps of a stream.
const MaxReplicas = 5

// reconnectWait is the pause between two rounds of reconnection attempts over the known servers.
const reconnectWait = 250 * time.Millisecond

// asyncAckTimeout is how long a JetStream publication waits for its acknowledgement before it
// fails. When the stream's leader dies in a NATS cluster the publications it had not acknowledged
// get no answer (a connection to a surviving server is not cut, so the client does not fail them
// as it does on a disconnection); without a bound each would hold one of the client's pending
// slots forever. It is longer than the rules services' own wait (which then leaves the
// publication to the outbox), so it only frees what nobody waits for any more.
const asyncAckTimeout = 30 * time.Second

// Bus publishes and subscribes.
type Bus struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	subj   Subjects
	stream string
	prop   propagation.TextMapPropagator
	// transient is Options.Transient.
	transient bool
	// slow counts the slow-consumer episodes of the connection's subscriptions (nil: a connection
	// Connect did not make, whose error handler is its owner's).
	slow *atomic.Uint64
}

// Connect connects to url and makes sure the stream exists with the configured subjects and
// replicas. url may name several servers of one NATS cluster, comma-separated: the connection
// starts on one of them at random and, when its server goes away, moves to another of those or of
// the servers the cluster announced since. It keeps trying forever (a service without its bus is
// not ready, and comes back with it); what is published meanwhile waits in the client's
// reconnection buffer (8 MiB) and is sent once connected again. JetStream publications the
// stream never acknowledged are published again by their owner with the same message ids, which
// the stream drops within its de-duplication window (Options.Duplicates).
func Connect(ctx context.Context, url, name string, opt Options) (*Bus, error) {
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	slow := new(atomic.Uint64)
	opts := []nats.Option{
		nats.Name(name),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrSlowConsumer) {
				slow.Add(1)
				return
			}
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Warn("nats asynchronous error", slog.String("subject", subject), slog.Any("error", err))
		}),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.ReconnectBufSize(nats.DefaultReconnectBufSize),
		nats.RetryOnFailedConnect(false),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", slog.Any("error", err))
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("nats reconnected", slog.String("url", c.ConnectedUrlRedacted()), slog.String("server", c.ConnectedServerName()))
		}),
	}
	if opt.InProcess != nil {
		opts = append(opts, nats.InProcessServer(opt.InProcess))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect nats: %w", err)
	}
	b, err := FromConn(ctx, nc, opt)
	if err != nil {
		nc.Close()
		return nil, err
	}
	b.slow = slow
	return b, nil
}

// FromConn uses an existing connection (its owner closes it).
func FromConn(ctx context.Context, nc *nats.Conn, opt Options) (*Bus, error) {
	subj, err := NewSubjects(opt.Prefix)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(asyncAckTimeout))
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
	if cfg.Replicas > MaxReplicas {
		return nil, fmt.Errorf("stream %s: %d replicas, at most %d", cfg.Name, cfg.Replicas, MaxReplicas)
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
	// Never fewer replicas than the stream has: a process started without the setting (a one-off
	// command, say) would otherwise strip a production stream of its copies. Lowering them is an
	// operator's decision, made with the nats CLI.
	err = RetryAPI(ctx, func(ctx context.Context) error {
		s, err := js.Stream(ctx, cfg.Name)
		if err != nil {
			if errors.Is(err, jetstream.ErrStreamNotFound) {
				return nil
			}
			return fmt.Errorf("stream %s: %w", cfg.Name, err)
		}
		if have := s.CachedInfo().Config.Replicas; have > cfg.Replicas {
			log := opt.Logger
			if log == nil {
				log = slog.Default()
			}
			log.Warn("nats stream keeps more replicas than configured", slog.String("stream", cfg.Name), slog.Int("replicas", have), slog.Int("configured", cfg.Replicas))
			cfg.Replicas = have
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = RetryAPI(ctx, func(ctx context.Context) error {
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("create stream %s: %w", cfg.Name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Bus{nc: nc, js: js, subj: subj, stream: cfg.Name, prop: otel.GetTextMapPropagator(), transient: opt.Transient}, nil
}

// Healthy reports whether the connection to the NATS server is up: nil when connected, else an
// error naming its state (readiness checks use it).
func (b *Bus) Healthy() error {
	if !b.nc.IsConnected() {
		return fmt.Errorf("nats connection %s", b.nc.Status())
	}
	return nil
}

// Server is the name of the NATS server the connection is on (empty while disconnected).
func (b *Bus) Server() string { return b.nc.ConnectedServerName() }

// Close drains the connection.
func (b *Bus) Close() {
	if b.nc != nil {
		_ = b.nc.Drain()
	}
}

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
// reaches the subscribers connected now, or nobody. The trace context of ctx goes in its headers.
// The server has it once a later PublishAsync's wait returns.
func (b *Bus) PublishLive(ctx context.Context, subject string, data []byte) error {
	m := &nats.Msg{Subject: subject, Data: data}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		b.prop.Inject(ctx, &headerCarrier{h: &m.Header})
	}
	if err := b.nc.PublishMsg(m); err != nil {
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
// in each message's headers. Whatever this connection sent before (live updates included) has
// reached the server when wait returns nil: with no msgs, wait is a round trip to the server.
func (b *Bus) PublishAsync(ctx context.Context, msgs []Message) (wait func(context.Context) error, err error) {
	if len(msgs) == 0 {
		return b.flush, nil
	}
	// The trace context is injected once and shared by every message's header (the values are
	// never changed); the message id goes straight into the header, as jetstream.WithMsgID would put
	// it, without an option to apply per message.
	var hdr nats.Header
	b.prop.Inject(ctx, &headerCarrier{h: &hdr})
	acks := make([]jetstream.PubAckFuture, 0, len(msgs))
	for _, m := range msgs {
		nm := &nats.Msg{Subject: m.Subject, Data: m.Data, Header: make(nats.Header, len(hdr)+1)}
		for k, v := range hdr {
			nm.Header[k] = v
		}
		if m.ID != "" {
			nm.Header[jetstream.MsgIDHeader] = []string{m.ID}
		}
		f, err := b.js.PublishMsgAsync(nm)
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

// flush returns once the server has everything this connection sent before.
func (b *Bus) flush(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, flushTimeout)
		defer cancel()
	}
	if err := b.nc.FlushWithContext(ctx); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return nil
}

// flushTimeout bounds a round trip to the server when the caller set no deadline.
const flushTimeout = 5 * time.Second

// LastSequence is the stream's last sequence (0 when empty).
func (b *Bus) LastSequence(ctx context.Context) (uint64, error) {
	var last uint64
	err := RetryAPI(ctx, func(ctx context.Context) error {
		s, err := b.js.Stream(ctx, b.stream)
		if err != nil {
			return fmt.Errorf("stream info: %w", err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			return fmt.Errorf("stream info: %w", err)
		}
		last = info.State.LastSeq
		return nil
	})
	return last, err
}

// ErrClosed is returned for a bus that has been closed.
var ErrClosed = errors.New("bus: closed")

// apiAttempt bounds one JetStream API request. A clustered JetStream drops requests while it
// elects a leader, and a request whose answer never comes would otherwise hold its caller (a
// process starting, the stats service recreating its consumer) until the caller's context ends.
const apiAttempt = 5 * time.Second

// RetryAPI calls f, a JetStream API request, each time with apiAttempt to answer, until it
// succeeds, fails for a reason other than the cluster being briefly unable to answer, or ctx ends.
// f must be safe to repeat: its last attempt may have taken effect without its answer arriving.
func RetryAPI(ctx context.Context, f func(context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, apiAttempt)
		err := f(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !transientAPIError(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// transientAPIError: no answer in time, nobody to answer, or the cluster's "temporarily
// unavailable" (503) while it elects a leader.
func transientAPIError(err error) bool {
	if apiErr := (*jetstream.APIError)(nil); errors.As(err, &apiErr) {
		return apiErr.Code == 503
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders)
}

// SequenceRange is the stream's first and last sequences: 0 and 0 for a stream that never held a
// message, first = last+1 for one whose messages all aged out.
func (b *Bus) SequenceRange(ctx context.Context) (first, last uint64, err error) {
	err = RetryAPI(ctx, func(ctx context.Context) error {
		s, err := b.js.Stream(ctx, b.stream)
		if err != nil {
			return fmt.Errorf("stream info: %w", err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			return fmt.Errorf("stream info: %w", err)
		}
		first, last = info.State.FirstSeq, info.State.LastSeq
		return nil
	})
	return first, last, err
}
