package rules

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// A table's birth and end: CreateTable deals it, AbortTable ends it early; DescribeGame tells
// what the game is.

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
