package rules

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/store"
	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Act: an action checked and applied by the engine, committed with a compare-and-set on the
// table's version with its log entry, then published; a retry is answered from the log.

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
