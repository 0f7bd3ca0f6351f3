package rules

import (
	"context"
	"fmt"
	"hash/fnv"
	mrand "math/rand/v2"
	"unicode/utf8"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The reads: a viewer's view, a seat's legal actions, a bot's suggestion, the log. None changes
// the table.

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
