// Package rules is the RulesService for any engine: load a table, validate, apply, compare-and-set
// on the version, append the action log, publish the events. It also fires deadlines (exactly one
// replica applies each timeout) and republishes events whose publication was not confirmed.
//
// One concern a file: server.go wires (Options, Server, New, and Run, the replica's background
// loop); tables.go creates and aborts tables; act.go is Act's path; reads.go the calls that change
// nothing (GetView, ListLegalActions, SuggestAction, GetLog); load.go loads a table and keeps
// decoded states; deadlines.go fires due deadlines (FireDue); publish.go puts a commit's events on
// the bus and confirms them; outbox.go marks confirmed publications and republishes the rest;
// live.go encodes the gateways' live updates and encode.go the log entries.
package rules

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/store"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
)

// Publisher puts committed events on the bus; *bus.Bus is one.
type Publisher interface {
	Publish(ctx context.Context, msgs []bus.Message) error
}

// Subjecter is a Publisher that names its subjects (*bus.Bus); a Publisher that is not one
// publishes under bus.DefaultPrefix.
type Subjecter interface {
	Subjects() bus.Subjects
}

// Options tune a Server; zero values take the defaults.
type Options struct {
	// Retain is how long a finished table and its log are kept (default 24h).
	Retain time.Duration
	// MaxRetries bounds re-validation after lost compare-and-set races (default 64).
	MaxRetries int
	// SweepInterval is the shortest time between two claims of due deadlines (default 100ms). While
	// Run runs, a replica claims at the earliest deadline it knows of (the store's after each claim,
	// and those of its own commits since), and at least every maxSweepWait for what other replicas
	// left behind.
	SweepInterval time.Duration
	// Lease hides a claimed deadline from other replicas while one applies it (default 5s).
	Lease time.Duration
	// RepublishAfter is how old an unconfirmed publication must be before the sweeper republishes it
	// (default 1s: the events of a replica that died between its commit and its publication reach
	// the bus a second or so later, through another replica; JetStream drops the duplicates).
	RepublishAfter time.Duration
	// SoleReplica says that no other replica of this game shares the store (the all-in-one
	// `cardroom serve`), so nothing but this replica's own failures and an earlier life of its
	// process leave work behind. Run then sweeps the outbox at RepublishAfter/4 only around those
	// (at its start, and after a publication, a mark or a commit of its own that failed or was not
	// confirmed) and otherwise every soleSweep; it claims deadlines at the earliest one the store
	// or its own commits tell of, at least every soleSweep (instead of maxSweepWait).
	SoleReplica bool
	// Now is the clock (default time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// Server serves cardroom.rules.v1.RulesService for one engine.
type Server struct {
	rulesv1.UnimplementedRulesServiceServer

	eng   engine.Engine
	info  engine.Info
	store store.Store
	pub   Publisher
	live  LivePublisher // nil: no live updates
	// subjects name the bus's subjects (pub's, when it is a Subjecter).
	subjects bus.Subjects
	async    AsyncPublisher // nil: every publication is awaited where it is made
	// acks are publications on their way to the stream while Run runs (running), confirmed
	// in the background.
	acks    chan pendingAck
	running atomic.Bool
	opt     Options
	log     *slog.Logger
	tracer  trace.Tracer
	metrics *metrics
	marks   chan store.Mark
	// sweepAt is when Run next claims due deadlines (Unix nanoseconds; 0: Run is not running);
	// dueHint the earliest deadline committed here since (0: none), and dueSoon wakes Run for it.
	sweepAt, dueHint atomic.Int64
	dueSoon          chan struct{}
	// outboxHint wakes Run when this replica may have left a publication undone (see
	// Options.SoleReplica).
	outboxHint chan struct{}
	// actionURL and optionsURL are the usual type URLs of the game's actions and options.
	actionURL, optionsURL string
	configs               configCache
	states                stateCache
	// label is eventLabel, bound once.
	label func(proto.Message) string
}

// New returns a server of eng over st, publishing with pub.
func New(eng engine.Engine, st store.Store, pub Publisher, opt Options) *Server {
	if opt.Retain == 0 {
		opt.Retain = 24 * time.Hour
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = 64
	}
	if opt.SweepInterval == 0 {
		opt.SweepInterval = 100 * time.Millisecond
	}
	if opt.Lease == 0 {
		opt.Lease = 5 * time.Second
	}
	if opt.RepublishAfter == 0 {
		opt.RepublishAfter = time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	info := eng.Info()
	live, _ := pub.(LivePublisher)
	async, _ := pub.(AsyncPublisher)
	var subjects bus.Subjects
	if sj, ok := pub.(Subjecter); ok {
		subjects = sj.Subjects()
	}
	s := &Server{
		eng: eng, info: info, store: st, pub: pub, live: live, async: async, subjects: subjects, opt: opt,
		log:        opt.Logger.With(slog.String("game", info.Name)),
		tracer:     otel.Tracer("cardroom.dev/services/kit/rules"),
		metrics:    newMetrics(info.Name),
		marks:      make(chan store.Mark, 4096),
		dueSoon:    make(chan struct{}, 1),
		outboxHint: make(chan struct{}, 1),
		acks:       make(chan pendingAck, maxPendingAcks),
		actionURL:  typeURL(info.Action), optionsURL: typeURL(info.Options),
	}
	s.label = s.eventLabel
	return s
}

// Game is the game this server runs.
func (s *Server) Game() string { return s.info.Name }

// now is the clock truncated to the millisecond, the precision the store keeps, so a replay from
// the log sees exactly the times the engine saw.
func (s *Server) now() time.Time { return time.UnixMilli(s.opt.Now().UnixMilli()) }

// Run runs the background work of a replica until ctx ends: firing due deadlines, confirming
// publications in batches, and republishing what was committed but not confirmed.
func (s *Server) Run(ctx context.Context) error {
	acked := make(chan struct{})
	marked := make(chan struct{})
	s.running.Store(true)
	go func() {
		defer close(acked)
		s.runAcks(ctx)
	}()
	go func() {
		defer close(marked)
		s.runMarks(ctx, acked)
	}()
	defer func() {
		s.running.Store(false)
		<-marked
	}()
	sweep := time.NewTimer(0) // claim at once, then when due
	defer sweep.Stop()
	s.sweepAt.Store(sweeping)
	defer s.sweepAt.Store(0)
	sweeps := s.newOutboxPace()
	republish := time.NewTimer(sweeps.every)
	defer republish.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sweep.C:
			s.sweepAt.Store(sweeping)
			_, next, more := s.fireDue(ctx)
			s.scheduleSweep(sweep, next, more)
		case <-s.dueSoon:
			if h := s.dueHint.Swap(0); h != 0 && h < s.sweepAt.Load() {
				s.sweepAt.Store(h)
				sweep.Reset(time.Until(time.Unix(0, h)))
			}
		case <-republish.C:
			found, _ := s.republish(ctx, s.now().Add(-s.opt.RepublishAfter))
			republish.Reset(sweeps.next(time.Now(), found > 0))
		case <-s.outboxHint:
			if sweeps.hint(time.Now()) {
				republish.Reset(sweeps.every)
			}
		}
	}
}
