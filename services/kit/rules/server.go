// Package rules is the RulesService for any engine: load a table, validate, apply, compare-and-set
// on the version, append the action log, publish the events. It also fires deadlines (exactly one
// replica applies each timeout) and republishes events whose publication was not confirmed.
package rules

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/store"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
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

// eventLabel labels an event in words: the harness's own events here, the game's by the engine.
func (s *Server) eventLabel(m proto.Message) string {
	switch e := m.(type) {
	case *eventsv1.TableCreated:
		return "the table is dealt"
	case *eventsv1.TableFinished:
		o := e.GetOutcome()
		switch {
		case o.GetAborted():
			return "the game is " + cmp.Or(o.GetSummary(), "aborted")
		case o.GetSummary() != "":
			return "the game is over: " + o.GetSummary()
		}
		return "the game is over"
	}
	return s.eng.DescribeEvent(m)
}

// Game is the game this server runs.
func (s *Server) Game() string { return s.info.Name }

// now is the clock truncated to the millisecond, the precision the store keeps, so a replay from
// the log sees exactly the times the engine saw.
func (s *Server) now() time.Time { return time.UnixMilli(s.opt.Now().UnixMilli()) }

// checkTableID accepts 1 to 64 letters, digits, '-' or '_': safe in NATS subjects and Redis keys.
func checkTableID(id string) error {
	if id == "" {
		return refusal.Invalid("table_id", refusal.MissingField, "table_id is required")
	}
	ok := len(id) <= 64
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
	}
	if !ok {
		return refusal.Invalid("table_id", refusal.InvalidField, "table_id must be 1 to 64 letters, digits, '-' or '_'")
	}
	return nil
}

func newTableID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

func (s *Server) DescribeGame(context.Context, *rulesv1.DescribeGameRequest) (*rulesv1.DescribeGameResponse, error) {
	r := &rulesv1.DescribeGameResponse{
		Game:        s.info.Name,
		MinSeats:    uint32(s.info.MinSeats),
		MaxSeats:    uint32(s.info.MaxSeats),
		OptionsType: string(s.info.Options.ProtoReflect().Descriptor().FullName()),
		ActionType:  string(s.info.Action.ProtoReflect().Descriptor().FullName()),
		ViewType:    string(s.info.View.ProtoReflect().Descriptor().FullName()),
		UsualSeats:  uint32(cmp.Or(s.info.UsualSeats, s.info.MaxSeats)),
	}
	if s.info.DefaultOptions != nil {
		a, err := anypb.New(s.info.DefaultOptions)
		if err != nil {
			return nil, fmt.Errorf("wrap default options: %w", err)
		}
		r.DefaultOptions = a
	}
	return r, nil
}

// decodeAny unmarshals a into a new message of proto's type (whose usual type URL is wantURL);
// field names the request field.
func decodeAny(field string, a *anypb.Any, prototype proto.Message, wantURL string) (proto.Message, error) {
	m := prototype.ProtoReflect().New().Interface()
	if a == nil {
		return m, nil
	}
	if a.GetTypeUrl() == wantURL {
		// The usual type URL names the right type: decode without parsing it again.
		if err := proto.Unmarshal(a.GetValue(), m); err != nil {
			return nil, refusal.Invalid(field, refusal.InvalidField, "%s is not a valid %s", field, typeNameOf(prototype))
		}
		return m, nil
	}
	want := string(prototype.ProtoReflect().Descriptor().FullName())
	if a.MessageName() != "" && string(a.MessageName()) != want {
		return nil, refusal.Invalid(field, refusal.WrongGame, "%s must be a %s, not a %s", field, want, a.MessageName())
	}
	if err := a.UnmarshalTo(m); err != nil {
		return nil, refusal.Invalid(field, refusal.InvalidField, "%s is not a valid %s", field, want)
	}
	return m, nil
}

func (s *Server) CreateTable(ctx context.Context, req *rulesv1.CreateTableRequest) (*rulesv1.CreateTableResponse, error) {
	resp, err := s.createTable(ctx, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) createTable(ctx context.Context, req *rulesv1.CreateTableRequest) (*rulesv1.CreateTableResponse, error) {
	id := req.GetTableId()
	if id == "" {
		id = newTableID()
	} else if err := checkTableID(id); err != nil {
		return nil, err
	}
	cfg := proto.CloneOf(req.GetConfig())
	if cfg == nil {
		return nil, refusal.Invalid("config", refusal.MissingField, "config is required")
	}
	if cfg.GetGame() != s.info.Name {
		return nil, refusal.Invalid("config.game", refusal.WrongGame, "this service runs %q, not %q", s.info.Name, cfg.GetGame())
	}
	n := len(cfg.GetSeats())
	if n < s.info.MinSeats || n > s.info.MaxSeats {
		return nil, refusal.Invalid("config.seats", engine.CodeBadSeatCount, "%s is played by %d to %d players, not %d", s.info.Name, s.info.MinSeats, s.info.MaxSeats, n)
	}
	for i, seat := range cfg.GetSeats() {
		if seat.GetIndex() != uint32(i) {
			return nil, refusal.Invalid(fmt.Sprintf("config.seats[%d].index", i), refusal.InvalidField, "seats must be numbered 0 to %d in order", n-1)
		}
	}
	opts, err := decodeAny("config.options", cfg.GetOptions(), s.info.Options, s.optionsURL)
	if err != nil {
		return nil, err
	}
	turn := cfg.GetTimeLimits().GetPerAction().AsDuration()
	if turn < 0 {
		return nil, refusal.Invalid("config.time_limits.per_action", refusal.InvalidField, "the time per action cannot be negative")
	}
	switch cfg.GetSeedPolicy() {
	case gamev1.SeedPolicy_SEED_POLICY_FIXED:
	case gamev1.SeedPolicy_SEED_POLICY_UNSPECIFIED, gamev1.SeedPolicy_SEED_POLICY_RANDOM:
		cfg.SeedPolicy, cfg.Seed = gamev1.SeedPolicy_SEED_POLICY_RANDOM, randomSeed()
	default:
		return nil, refusal.Invalid("config.seed_policy", refusal.InvalidField, "unknown seed policy %d", cfg.GetSeedPolicy())
	}
	now := s.now()
	kinds := make([]gamev1.PlayerKind, n)
	for i, seat := range cfg.GetSeats() {
		kinds[i] = seat.GetPlayer().GetKind()
	}
	st, evs, err := s.eng.Setup(engine.Config{Seats: n, Seed: cfg.GetSeed(), Options: opts, TurnTime: turn, Start: now, Kinds: kinds})
	if err != nil {
		return nil, err
	}
	state, err := st.Encode()
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	cfgBytes, err := proto.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	public := proto.CloneOf(cfg)
	public.Seed = 0 // the seed decides every hidden card: secret until the end
	created := append([]engine.Event{{To: engine.Public, Payload: &eventsv1.TableCreated{Config: public}}}, evs...)
	data, encs, err := encodeEntry(&entryHead{at: now}, id, s.info.Name, 0, created, s.label, nil)
	if err != nil {
		return nil, err
	}
	dl, _ := st.Deadline()
	t := store.Table{ID: id, Config: cfgBytes, State: state, Sequence: uint64(len(encs)), Deadline: dl, CreatedAt: now, Token: newToken()}
	if err := s.store.Create(ctx, t, store.Entry{Data: data}); err != nil {
		return nil, err
	}
	s.noteDeadline(dl)
	subj := &subjects{}
	s.publishLive(ctx, id, 0, encs, st, n, subj)
	s.publish(ctx, id, encs, subj)
	s.states.put(t, cfg, st, subj) // neither is used again
	s.metrics.tablesCreated.Add(ctx, 1)
	return &rulesv1.CreateTableResponse{Table: s.summary(t, cfg, nil)}, nil
}

func (s *Server) summary(t store.Table, cfg *gamev1.TableConfig, outcome *gamev1.Outcome) *gamev1.TableSummary {
	public := proto.CloneOf(cfg)
	if !t.Finished {
		public.Seed = 0
	}
	return &gamev1.TableSummary{
		TableId: t.ID, Config: public, Version: t.Version, Finished: t.Finished,
		CreatedAt: timestamppb.New(t.CreatedAt), Outcome: outcome,
	}
}

// typeURLs caches google.protobuf.Any type URLs by message name.
var typeURLs sync.Map

func typeURL(m proto.Message) string {
	name := m.ProtoReflect().Descriptor().FullName()
	if u, ok := typeURLs.Load(name); ok {
		return u.(string)
	}
	u := "type.googleapis.com/" + string(name)
	typeURLs.Store(name, u)
	return u
}

// Visibilities are immutable once built, so the common ones are shared by every envelope.
var (
	publicVisibility = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}
	seatVisibility   = func() (v [16]*eventsv1.Visibility) {
		for i := range v {
			v[i] = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: uint32(i)}}
		}
		return v
	}()
)

func visibility(to int) *eventsv1.Visibility {
	switch {
	case to < 0:
		return publicVisibility
	case to < len(seatVisibility):
		return seatVisibility[to]
	}
	return &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: uint32(to)}}
}

// loaded is a table read from the store and decoded.
type loaded struct {
	t     store.Table
	cfg   *gamev1.TableConfig
	state engine.State
	prior *store.Entry
	// cached: the state may come from and go back to the state cache (writers only).
	cached bool
	// subj: the table's bus subjects, kept with the state (nil: none made yet).
	subj *subjects
}

// load reads a table and decodes it. A writer (write true) may get the state this replica last
// committed instead of decoding it again; it must give the state back with keep or drop it.
func (s *Server) load(ctx context.Context, id, actionID string, write bool) (l loaded, err error) {
	if err := checkTableID(id); err != nil {
		return l, err
	}
	ctx, span := s.startSpan(ctx, "store.load")
	t, prior, err := s.store.Load(ctx, id, actionID)
	span.End()
	if err != nil {
		return l, err
	}
	cfg, err := s.configs.get(id, t.Config)
	if err != nil {
		return l, fmt.Errorf("decode config of %s: %w", id, err)
	}
	l = loaded{t: t, cfg: cfg, prior: prior, cached: write}
	if prior != nil {
		return l, nil
	}
	if write {
		if l.state, l.subj = s.states.take(id, t.Version, t.State); l.state != nil {
			return l, nil
		}
	}
	if l.state, err = s.eng.DecodeState(t.State); err != nil {
		return loaded{}, err
	}
	return l, nil
}

// keep puts back in the state cache a writer's state that the game has not changed since load.
func (s *Server) keep(l *loaded) {
	if l.cached && l.state != nil && !l.t.Finished {
		s.states.put(l.t, l.cfg, l.state, l.subj)
	}
}

// committed is the table's record as a commit of l's state, encoded as state, left it: version,
// events more, deadline dl, and the commit's write token.
func (l *loaded) committed(version uint64, state []byte, events int, dl time.Time, token uint64) store.Table {
	t := l.t
	t.Version, t.State, t.Sequence, t.Deadline, t.Token = version, state, l.t.Sequence+uint64(events), dl, token
	return t
}

// newToken picks a write token (store.Table.Token) at random, never 0.
func newToken() uint64 {
	for {
		if t := mrand.Uint64(); t != 0 {
			return t
		}
	}
}

func checkSeat(cfg *gamev1.TableConfig, seat uint32) error {
	if int(seat) >= len(cfg.GetSeats()) {
		return refusal.Invalid("seat", engine.CodeBadSeat, "seat %d does not exist at a table of %d", seat, len(cfg.GetSeats()))
	}
	return nil
}

func (s *Server) Act(ctx context.Context, req *rulesv1.ActRequest) (*rulesv1.ActResponse, error) {
	start := time.Now()
	resp, err := s.act(ctx, req)
	err = s.toStatus(ctx, err)
	s.metrics.observeAction(ctx, start, err)
	return resp, err
}

func (s *Server) act(ctx context.Context, req *rulesv1.ActRequest) (*rulesv1.ActResponse, error) {
	if err := checkTableID(req.GetTableId()); err != nil {
		return nil, err
	}
	if n := len(req.GetActionId()); n == 0 || n > MaxActionIDBytes {
		return nil, refusal.Invalid("action_id", refusal.InvalidField, "action_id must be 1 to %d bytes", MaxActionIDBytes)
	}
	if req.GetAction() == nil {
		return nil, refusal.Invalid("action", refusal.MissingField, "action is required")
	}
	action, err := decodeAny("action", req.GetAction(), s.info.Action, s.actionURL)
	if err != nil {
		return nil, err
	}
	if resp, ok, err := s.actOnKept(ctx, req, action); ok {
		return resp, err
	}
	for attempt := 0; ; attempt++ {
		if attempt > s.opt.MaxRetries {
			return nil, refusal.New(codes.Aborted, refusal.Contention, "the table changed too often while this action was validated; try again")
		}
		l, err := s.load(ctx, req.GetTableId(), req.GetActionId(), true)
		if err != nil {
			return nil, err
		}
		if l.prior != nil {
			return s.replayed(ctx, &l, req, action)
		}
		if err := checkSeat(l.cfg, req.GetSeat()); err != nil {
			s.keep(&l)
			return nil, err
		}
		if req.ExpectedVersion != nil && req.GetExpectedVersion() != l.t.Version {
			s.keep(&l)
			return nil, refusal.New(codes.Aborted, refusal.StaleVersion, "the table is at version %d, not %d", l.t.Version, req.GetExpectedVersion())
		}
		if l.t.Finished {
			return nil, engine.Refuse(engine.CodeGameOver, "the game is over")
		}
		now := s.now()
		if dl, ok := l.state.Deadline(); ok && !now.Before(dl) {
			// A deadline passed before the sweeper fired: it comes first, then the action is judged
			// against what followed.
			if err := s.applyTimeout(ctx, &l, now); err != nil && !errors.Is(err, store.ErrConflict) {
				return nil, err
			}
			continue
		}
		resp, err := s.play(ctx, &l, req, action, now)
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrDuplicate) {
			if req.ExpectedVersion != nil && errors.Is(err, store.ErrConflict) {
				return nil, refusal.New(codes.Aborted, refusal.StaleVersion, "the table moved past version %d", req.GetExpectedVersion())
			}
			s.metrics.casRetries.Add(ctx, 1)
			continue
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
}

// actOnKept tries the action on the state this replica kept of the table after its last commit
// there, without reading the store: the commit — from the kept version, expecting the kept write
// token — is the action's one round trip, and succeeds only if nothing else wrote the table since
// (see stateCache). ok is false when the load path must decide instead: nothing usable is kept; the
// seat, the expected version or a passed deadline need the table as stored; the engine refused the
// action (the kept state may be stale, so a refusal is never answered from it); or the commit failed
// (another replica moved the table on, the action id was already applied, or anything else). The
// kept state then goes back untouched if the game never changed it, and is dropped otherwise. A
// commit that went through but that the store's replicas did not confirm (store.ErrUnconfirmed) is
// the answer (ok, with that error): the load path would find the action applied and wait for them
// again.
func (s *Server) actOnKept(ctx context.Context, req *rulesv1.ActRequest, action proto.Message) (resp *rulesv1.ActResponse, ok bool, err error) {
	e, ok := s.states.takeForCommit(req.GetTableId())
	if !ok {
		s.metrics.keptState(ctx, keptMiss)
		return nil, false, nil
	}
	l := loaded{t: e.t, cfg: e.cfg, state: e.state, subj: e.subj, cached: true}
	now := s.now()
	if !keptAnswers(&l, req, now) {
		s.keep(&l)
		s.metrics.keptState(ctx, keptFallback)
		return nil, false, nil
	}
	resp, err = s.play(ctx, &l, req, action, now)
	if err != nil {
		// The game may have changed the state: it is dropped (a successful commit puts it back).
		s.metrics.keptState(ctx, keptFallback)
		if errors.Is(err, store.ErrUnconfirmed) {
			return nil, true, err
		}
		return nil, false, nil
	}
	s.metrics.keptState(ctx, keptHit)
	return resp, true, nil
}

// keptAnswers reports whether a kept table can take the action as it is: the seat exists, the
// expected version (if any) is the kept one, and no deadline has passed (the timeout comes first,
// on the load path). It only reads the state.
func keptAnswers(l *loaded, req *rulesv1.ActRequest, now time.Time) bool {
	if checkSeat(l.cfg, req.GetSeat()) != nil {
		return false
	}
	if req.ExpectedVersion != nil && req.GetExpectedVersion() != l.t.Version {
		return false
	}
	dl, ok := l.state.Deadline()
	return !ok || now.Before(dl)
}

// play applies the request's action to l's state at now, commits it and answers it. Errors are the
// engine's refusal or the commit's (store.ErrConflict, store.ErrDuplicate, ...).
func (s *Server) play(ctx context.Context, l *loaded, req *rulesv1.ActRequest, action proto.Message, now time.Time) (*rulesv1.ActResponse, error) {
	evs, err := l.state.Apply(int(req.GetSeat()), action, now)
	if err != nil {
		return nil, err
	}
	// Read before the commit: once committed, the state belongs to the replica's cache.
	var legal []*anypb.Any
	var labels []string
	if req.GetIncludeLegalActions() {
		if legal, labels, err = legalAnys(l.state, int(req.GetSeat()), s.actionURL); err != nil {
			return nil, err
		}
	}
	head := &entryHead{by: bySeat, seat: req.GetSeat(), action: req.GetAction(), actionID: req.GetActionId(), standIn: req.GetStandIn()}
	var buf [8]encodedEvent
	encs, finished, err := s.commit(ctx, l, head, evs, now, buf[:0])
	if err != nil {
		return nil, err
	}
	version := l.t.Version + 1
	if finished {
		legal, labels = nil, nil
	}
	return &rulesv1.ActResponse{
		Version: version, Events: envelopes(l.t.ID, s.info.Name, version, now, encs, int(req.GetSeat())), Finished: finished,
		LegalActions: legal, LegalLabels: labels,
	}, nil
}

// replayed answers a retried action id from the log (l.prior) when the retry is the same request
// — the same seat and the same action — and refuses it (ACTION_ID_REUSED) otherwise: a new move
// that happens to reuse an id must not be answered as if it had been played. The first attempt's
// commit may have gone through without being published — its answer lost on the way, say to a
// store restart, and the store's retry found the action applied — so events the table's outbox
// does not count as published are published again (ids make a second copy harmless).
func (s *Server) replayed(ctx context.Context, l *loaded, req *rulesv1.ActRequest, action proto.Message) (*rulesv1.ActResponse, error) {
	e := &rulesv1.LogEntry{}
	if err := proto.Unmarshal(l.prior.Data, e); err != nil {
		return nil, fmt.Errorf("decode log entry: %w", err)
	}
	seat := req.GetSeat()
	if by, ok := e.GetBy().(*rulesv1.LogEntry_Seat); !ok || by.Seat != seat {
		return nil, refusal.Invalid("action_id", refusal.ActionIDReused, "action_id was already used at this table by another seat")
	}
	if !s.sameAction(e.GetAction(), req.GetAction(), action) {
		return nil, refusal.Invalid("action_id", refusal.ActionIDReused, "action_id was already used by this seat for another action")
	}
	s.resend(ctx, l.t, e.GetEvents())
	finished := false
	for _, ev := range e.GetEvents() {
		if ev.GetPayload().MessageIs(&eventsv1.TableFinished{}) {
			finished = true
		}
	}
	return &rulesv1.ActResponse{Version: e.GetVersion(), Events: visibleTo(e.GetEvents(), int(seat)), Finished: finished, Replayed: true}, nil
}

// sameAction reports whether the logged action is the one a retry sends (sent, decoded as action).
// A retry usually sends the very bytes of its first attempt; other bytes may still encode the same
// action (another encoder, fields in another order), so they are compared as messages.
func (s *Server) sameAction(logged, sent *anypb.Any, action proto.Message) bool {
	if logged.GetTypeUrl() == sent.GetTypeUrl() && bytes.Equal(logged.GetValue(), sent.GetValue()) {
		return true
	}
	prior, err := decodeAny("action", logged, s.info.Action, s.actionURL)
	return err == nil && proto.Equal(prior, action)
}

// visibleTo keeps the events seat may see (Spectator: public ones).
func visibleTo(evs []*eventsv1.Event, seat int) []*eventsv1.Event {
	out := make([]*eventsv1.Event, 0, len(evs))
	for _, e := range evs {
		switch a := e.GetVisibility().GetAudience().(type) {
		case *eventsv1.Visibility_Public:
			out = append(out, e)
		case *eventsv1.Visibility_Seat:
			if int(a.Seat) == seat {
				out = append(out, e)
			}
		}
	}
	return out
}

// commit writes one log entry with its events after the state has changed, and publishes them.
func (s *Server) commit(ctx context.Context, l *loaded, head *entryHead, evs []engine.Event, now time.Time, buf []encodedEvent) ([]encodedEvent, bool, error) {
	outcome, finished := l.state.Outcome()
	if finished {
		fin, err := s.finishedEvent(ctx, l, head, outcome, now)
		if err != nil {
			return nil, false, err
		}
		evs = append(evs, engine.Event{To: engine.Public, Payload: fin})
	}
	return s.write(ctx, l, head, evs, now, finished, buf)
}

// finishedEvent is the TableFinished of the table l as the entry head finishes it.
func (s *Server) finishedEvent(ctx context.Context, l *loaded, head *entryHead, outcome *gamev1.Outcome, now time.Time) (*eventsv1.TableFinished, error) {
	seats, err := s.seatActions(ctx, l, head)
	if err != nil {
		return nil, err
	}
	return &eventsv1.TableFinished{
		Config: l.cfg, Outcome: outcome, Actions: l.t.Version + 1,
		StartedAt: timestamppb.New(l.t.CreatedAt), FinishedAt: timestamppb.New(now),
		SeatActions: seats,
	}, nil
}

// seatActions counts, for each seat, the moves applied for it and those a stand-in played, over
// the table's log up to l's version and the entry head being written: one read of the log when a
// table finishes.
func (s *Server) seatActions(ctx context.Context, l *loaded, head *entryHead) ([]*eventsv1.SeatActions, error) {
	n := len(l.cfg.GetSeats())
	moves, standIn := make([]uint32, n), make([]uint32, n)
	count := func(seat uint32, stand bool) {
		if int(seat) < n {
			moves[seat]++
			if stand {
				standIn[seat]++
			}
		}
	}
	if l.t.Version > 0 {
		entries, err := s.store.Log(ctx, l.t.ID, 1)
		if err != nil {
			return nil, fmt.Errorf("read the log: %w", err)
		}
		for _, e := range entries {
			if e.Version > l.t.Version {
				break // written after l was read: this commit will lose its race
			}
			seat, bySeat, stand, err := entryActor(e.Data)
			if err != nil {
				return nil, fmt.Errorf("log entry %d: %w", e.Version, err)
			}
			if bySeat {
				count(seat, stand)
			}
		}
	}
	if head.by == bySeat {
		count(head.seat, head.standIn)
	}
	var out []*eventsv1.SeatActions
	for i := range n {
		if moves[i] > 0 {
			out = append(out, &eventsv1.SeatActions{Seat: uint32(i), Actions: moves[i], StandIn: standIn[i]})
		}
	}
	return out, nil
}

// The events are returned in buf when its capacity is enough.
func (s *Server) write(ctx context.Context, l *loaded, head *entryHead, evs []engine.Event, now time.Time, finished bool, buf []encodedEvent) ([]encodedEvent, bool, error) {
	head.version, head.at = l.t.Version+1, now
	data, encs, err := encodeEntry(head, l.t.ID, s.info.Name, l.t.Sequence, evs, s.label, buf)
	if err != nil {
		return nil, false, err
	}
	state, err := l.state.Encode()
	if err != nil {
		return nil, false, fmt.Errorf("encode state: %w", err)
	}
	var dl time.Time
	if !finished {
		dl, _ = l.state.Deadline()
	}
	token := newToken()
	ctx2, span := s.startSpan(ctx, "store.commit")
	if span.IsRecording() {
		// Set after the start rather than as a start option, which costs allocations even for a span
		// that records nothing; the samplers of package telemetry do not look at attributes.
		span.SetAttributes(attribute.String("table", l.t.ID))
	}
	err = s.store.Commit(ctx2, store.Commit{
		TableID: l.t.ID, From: l.t.Version, State: state, Sequence: l.t.Sequence + uint64(len(encs)),
		Entry: store.Entry{ActionID: head.actionID, Data: data}, Deadline: dl, Finished: finished, Retain: s.opt.Retain,
		Token: token, Expect: l.t.Token,
	})
	span.End()
	if err != nil {
		if !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrDuplicate) && !errors.Is(err, store.ErrNotFound) {
			// It may have been written (unconfirmed, or its answer lost): its events and deadline too.
			s.noteDeadline(dl)
			s.outboxMayHoldWork()
		}
		return nil, false, err
	}
	if l.subj == nil {
		l.subj = &subjects{}
	}
	st := l.state
	if finished {
		st = nil
	}
	s.noteDeadline(dl)
	s.publishLive(ctx, l.t.ID, head.version, encs, st, len(l.cfg.GetSeats()), l.subj)
	s.publish(ctx, l.t.ID, encs, l.subj)
	if finished {
		s.metrics.tablesFinished.Add(ctx, 1)
	} else if l.cached {
		// Committed: the state is the table's at the new version. Neither it nor the subjects are
		// used again here.
		s.states.put(l.committed(head.version, state, len(encs), dl, token), l.cfg, l.state, l.subj)
	}
	return encs, finished, nil
}

// applyTimeout applies the engine's timeout to a loaded table and commits it.
func (s *Server) applyTimeout(ctx context.Context, l *loaded, now time.Time) error {
	evs, err := l.state.Timeout(now)
	if err != nil {
		return err
	}
	_, _, err = s.commit(ctx, l, &entryHead{by: byTimeout}, evs, now, nil)
	if err == nil {
		s.metrics.timeouts.Add(ctx, 1)
	}
	return err
}

func (s *Server) GetView(ctx context.Context, req *rulesv1.GetViewRequest) (*rulesv1.GetViewResponse, error) {
	resp, err := s.getView(ctx, req)
	return resp, s.toStatus(ctx, err)
}

func viewerOf(cfg *gamev1.TableConfig, v *rulesv1.Viewer) (int, error) {
	switch w := v.GetWho().(type) {
	case *rulesv1.Viewer_Seat:
		if err := checkSeat(cfg, w.Seat); err != nil {
			return 0, err
		}
		return int(w.Seat), nil
	case *rulesv1.Viewer_Spectator:
		return engine.Spectator, nil
	}
	return 0, refusal.Invalid("viewer", refusal.MissingField, "viewer must be a seat or a spectator")
}

func (s *Server) getView(ctx context.Context, req *rulesv1.GetViewRequest) (*rulesv1.GetViewResponse, error) {
	l, err := s.load(ctx, req.GetTableId(), "", false)
	if err != nil {
		return nil, err
	}
	viewer, err := viewerOf(l.cfg, req.GetViewer())
	if err != nil {
		return nil, err
	}
	view, err := anypb.New(l.state.View(viewer))
	if err != nil {
		return nil, fmt.Errorf("wrap view: %w", err)
	}
	resp := &rulesv1.GetViewResponse{Version: l.t.Version, View: view, LastSequence: l.t.Sequence}
	if dl, ok := l.state.Deadline(); ok && !l.t.Finished {
		resp.Deadline = timestamppb.New(dl)
	}
	outcome, _ := l.state.Outcome()
	resp.Table = s.summary(l.t, l.cfg, outcome)
	return resp, nil
}

func (s *Server) ListLegalActions(ctx context.Context, req *rulesv1.ListLegalActionsRequest) (*rulesv1.ListLegalActionsResponse, error) {
	resp, err := s.listLegal(ctx, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) listLegal(ctx context.Context, req *rulesv1.ListLegalActionsRequest) (*rulesv1.ListLegalActionsResponse, error) {
	l, err := s.load(ctx, req.GetTableId(), "", false)
	if err != nil {
		return nil, err
	}
	if err := checkSeat(l.cfg, req.GetSeat()); err != nil {
		return nil, err
	}
	resp := &rulesv1.ListLegalActionsResponse{Version: l.t.Version}
	if l.t.Finished {
		return resp, nil
	}
	if resp.Actions, resp.Labels, err = legalAnys(l.state, int(req.GetSeat()), s.actionURL); err != nil {
		return nil, err
	}
	return resp, nil
}

// legalAnys lists seat's legal actions, each wrapped in an Any, and their labels; actionURL is
// the type URL of the game's action message.
func legalAnys(st engine.State, seat int, actionURL string) ([]*anypb.Any, []string, error) {
	if app, ok := st.(engine.LegalAppender); ok {
		if acts, labels, ok := appendedAnys(app, seat, actionURL); ok {
			return acts, labels, nil
		}
	}
	acts, labels := st.LegalLabelled(seat)
	out := make([]*anypb.Any, 0, len(acts))
	for i, a := range acts {
		m, err := anypb.New(a)
		if err != nil {
			return nil, nil, fmt.Errorf("wrap action: %w", err)
		}
		out = append(out, m)
		labels[i] = validLabel(labels[i])
	}
	return out, labels, nil
}

// appendedAnys is legalAnys for a game that appends its actions: the values and labels share
// one buffer and one string, and the Anys one array. It reports false when a label is not valid
// UTF-8 (no game writes one), for legalAnys to repair.
func appendedAnys(app engine.LegalAppender, seat int, actionURL string) ([]*anypb.Any, []string, bool) {
	raw, ends := app.AppendLegal(seat, nil, nil)
	if len(ends) == 0 {
		return []*anypb.Any{}, nil, true
	}
	n := len(ends) / 2
	for i := range n {
		if !utf8.Valid(raw[ends[2*i]:ends[2*i+1]]) {
			return nil, nil, false
		}
	}
	text := string(raw)
	anys, out, labels := make([]anypb.Any, n), make([]*anypb.Any, n), make([]string, n)
	prev := 0
	for i := range n {
		end, labelEnd := ends[2*i], ends[2*i+1]
		anys[i].TypeUrl, anys[i].Value = actionURL, raw[prev:end:end]
		out[i] = &anys[i]
		labels[i] = text[end:labelEnd]
		prev = labelEnd
	}
	return out, labels, true
}

func (s *Server) SuggestAction(ctx context.Context, req *rulesv1.SuggestActionRequest) (*rulesv1.SuggestActionResponse, error) {
	resp, err := s.suggest(ctx, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) suggest(ctx context.Context, req *rulesv1.SuggestActionRequest) (*rulesv1.SuggestActionResponse, error) {
	if err := refusal.CheckBotLevel("level", req.GetLevel()); err != nil {
		return nil, err
	}
	l, err := s.load(ctx, req.GetTableId(), "", false)
	if err != nil {
		return nil, err
	}
	if err := checkSeat(l.cfg, req.GetSeat()); err != nil {
		return nil, err
	}
	if l.t.Finished {
		return nil, engine.Refuse(engine.CodeGameOver, "the game is over")
	}
	// The bot's randomness depends on the table, version and seat: a retry suggests the same move.
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d", l.t.ID, l.t.Version, req.GetSeat())
	a, ok := l.state.Suggest(int(req.GetSeat()), req.GetLevel(), mrand.New(mrand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15)))
	if !ok {
		return nil, engine.Refuse(engine.CodeNothingToDo, "seat %d has no action to take now", req.GetSeat())
	}
	m, err := anypb.New(a)
	if err != nil {
		return nil, fmt.Errorf("wrap action: %w", err)
	}
	resp := &rulesv1.SuggestActionResponse{Version: l.t.Version, Action: m}
	if at, ok := l.state.NotBefore(int(req.GetSeat()), a); ok && at.After(s.now()) {
		resp.NotBefore = timestamppb.New(at)
	}
	return resp, nil
}

func (s *Server) GetLog(ctx context.Context, req *rulesv1.GetLogRequest) (*rulesv1.GetLogResponse, error) {
	resp, err := s.getLog(ctx, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) getLog(ctx context.Context, req *rulesv1.GetLogRequest) (*rulesv1.GetLogResponse, error) {
	l, err := s.load(ctx, req.GetTableId(), "", false)
	if err != nil {
		return nil, err
	}
	entries, err := s.store.Log(ctx, l.t.ID, 0)
	if err != nil {
		return nil, err
	}
	outcome, _ := l.state.Outcome()
	sum := s.summary(l.t, l.cfg, outcome)
	sum.Config = l.cfg // the log is the replay: it carries the seed
	resp := &rulesv1.GetLogResponse{Table: sum}
	from := max(req.GetFromVersion(), 1)
	var rp *replayer
	if req.GetIncludeViews() {
		rp = &replayer{s: s, cfg: l.cfg}
	}
	for _, e := range entries {
		le := &rulesv1.LogEntry{}
		if err := proto.Unmarshal(e.Data, le); err != nil {
			return nil, fmt.Errorf("decode log entry %d: %w", e.Version, err)
		}
		var view *anypb.Any
		if rp != nil {
			if view, err = rp.step(e.Version, le); err != nil {
				return nil, err
			}
		}
		switch {
		case e.Version == 0:
			resp.CreatedEvents = le.GetEvents()
			resp.CreatedView = view
		case e.Version >= from:
			le.View = view
			resp.Entries = append(resp.Entries, le)
		}
	}
	return resp, nil
}

// replayer plays a table again from its seed, one log entry at a time, for the spectator's view
// after each (GetLogRequest.include_views). The game is pure and seeded and every entry keeps the
// time it was applied at, so the states are the ones the table went through.
type replayer struct {
	s     *Server
	cfg   *gamev1.TableConfig
	state engine.State
}

// step applies the entry of version v (version 0: the deal) and returns the spectator's view after it.
func (r *replayer) step(v uint64, e *rulesv1.LogEntry) (*anypb.Any, error) {
	at := e.GetTime().AsTime()
	if v == 0 {
		opts, err := decodeAny("config.options", r.cfg.GetOptions(), r.s.info.Options, r.s.optionsURL)
		if err != nil {
			return nil, err
		}
		kinds := make([]gamev1.PlayerKind, len(r.cfg.GetSeats()))
		for i, seat := range r.cfg.GetSeats() {
			kinds[i] = seat.GetPlayer().GetKind()
		}
		st, _, err := r.s.eng.Setup(engine.Config{Seats: len(kinds), Seed: r.cfg.GetSeed(), Options: opts,
			TurnTime: r.cfg.GetTimeLimits().GetPerAction().AsDuration(), Start: at, Kinds: kinds})
		if err != nil {
			return nil, fmt.Errorf("replay the deal: %w", err)
		}
		r.state = st
	} else if r.state == nil {
		return nil, fmt.Errorf("replay: entry %d before the deal", v)
	} else {
		switch by := e.GetBy().(type) {
		case *rulesv1.LogEntry_Seat:
			action, err := decodeAny("action", e.GetAction(), r.s.info.Action, r.s.actionURL)
			if err != nil {
				return nil, fmt.Errorf("replay entry %d: %w", v, err)
			}
			if _, err := r.state.Apply(int(by.Seat), action, at); err != nil {
				return nil, fmt.Errorf("replay entry %d: %w", v, err)
			}
		case *rulesv1.LogEntry_Timeout:
			if _, err := r.state.Timeout(at); err != nil {
				return nil, fmt.Errorf("replay entry %d: %w", v, err)
			}
		}
		// An abort ends the table without a move: the state stays as it was.
	}
	view, err := anypb.New(r.state.View(engine.Spectator))
	if err != nil {
		return nil, fmt.Errorf("replay entry %d: encode the view: %w", v, err)
	}
	return view, nil
}

func (s *Server) AbortTable(ctx context.Context, req *rulesv1.AbortTableRequest) (*rulesv1.AbortTableResponse, error) {
	resp, err := s.abort(ctx, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) abort(ctx context.Context, req *rulesv1.AbortTableRequest) (*rulesv1.AbortTableResponse, error) {
	for attempt := 0; attempt <= s.opt.MaxRetries; attempt++ {
		l, err := s.load(ctx, req.GetTableId(), "", false)
		if err != nil {
			return nil, err
		}
		if l.t.Finished {
			return nil, engine.Refuse(engine.CodeGameOver, "the game is already over")
		}
		now := s.now()
		summary := "aborted"
		if r := strings.TrimSpace(req.GetReason()); r != "" {
			summary = "aborted: " + r
		}
		outcome := &gamev1.Outcome{Aborted: true, Summary: summary}
		head := &entryHead{by: byAbort}
		fin, err := s.finishedEvent(ctx, &l, head, outcome, now)
		if err != nil {
			return nil, err
		}
		evs := []engine.Event{{To: engine.Public, Payload: fin}}
		_, _, err = s.write(ctx, &l, head, evs, now, true, nil)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		l.t.Version++
		l.t.Finished = true
		return &rulesv1.AbortTableResponse{Table: s.summary(l.t, l.cfg, outcome)}, nil
	}
	return nil, refusal.New(codes.Aborted, refusal.Contention, "the table changed too often to abort; try again")
}
