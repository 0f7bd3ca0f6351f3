package gateway

import (
	"context"
	"strings"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

// clientActionPrefix keeps players' action ids apart from the ids of bot moves.
const clientActionPrefix = "c:"

// maxActionIDBytes bounds a client's action id (cardroom.gateway.v1.ActRequest.action_id); with
// clientActionPrefix it stays within what the rules services take (rules.MaxActionIDBytes).
const maxActionIDBytes = 128

// seated is the started table's rules service, the caller's seat, and how labels name the table's
// seats for the caller; or PERMISSION_DENIED.
func (s *Server) seated(ctx context.Context, sess Session, id string) (rulesv1.RulesServiceClient, int, engine.SeatName, error) {
	t, err := s.table(ctx, id)
	if err != nil {
		return nil, 0, nil, err
	}
	seat := t.SeatOf(sess.Player)
	if seat < 0 {
		return nil, 0, nil, refusal.New(codes.PermissionDenied, refusal.NotYourSeat, "you have no seat at this table")
	}
	c, err := s.rulesOf(t.Game)
	return c, seat, seatNames(t, seat), err
}

func (s *Server) Act(ctx context.Context, req *gatewayv1.ActRequest) (*gatewayv1.ActResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := s.act(ctx, sess, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) act(ctx context.Context, sess Session, req *gatewayv1.ActRequest) (*gatewayv1.ActResponse, error) {
	if n := len(req.GetActionId()); n == 0 || n > maxActionIDBytes {
		return nil, refusal.Invalid("action_id", refusal.InvalidField, "action_id must be 1 to %d bytes", maxActionIDBytes)
	}
	if req.GetAction() == nil {
		return nil, refusal.Invalid("action", refusal.MissingField, "action is required")
	}
	c, seat, names, err := s.seated(ctx, sess, req.GetTableId())
	if err != nil {
		return nil, err
	}
	r, err := c.Act(ctx, &rulesv1.ActRequest{
		TableId: req.GetTableId(), Seat: uint32(seat), Action: req.GetAction(),
		ActionId: clientActionPrefix + req.GetActionId(), ExpectedVersion: req.ExpectedVersion,
		IncludeLegalActions: req.GetIncludeLegalActions(),
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ActResponse{Version: r.GetVersion(), Events: labelledAll(r.GetEvents(), names), Finished: r.GetFinished(),
		Replayed: r.GetReplayed(), LegalActions: r.GetLegalActions(), LegalLabels: renderLabels(r.GetLegalLabels(), names)}, nil
}

func (s *Server) GetView(ctx context.Context, req *gatewayv1.GetViewRequest) (*gatewayv1.GetViewResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := s.getView(ctx, sess, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) getView(ctx context.Context, sess Session, req *gatewayv1.GetViewRequest) (*gatewayv1.GetViewResponse, error) {
	t, err := s.table(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	c, err := s.rulesOf(t.Game)
	if err != nil {
		return nil, err
	}
	viewer := &rulesv1.Viewer{Who: &rulesv1.Viewer_Spectator{Spectator: true}}
	var seat *uint32
	if i := t.SeatOf(sess.Player); i >= 0 {
		viewer.Who = &rulesv1.Viewer_Seat{Seat: uint32(i)}
		seat = proto.Uint32(uint32(i))
	}
	r, err := c.GetView(ctx, &rulesv1.GetViewRequest{TableId: t.ID, Viewer: viewer})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetViewResponse{Version: r.GetVersion(), View: r.GetView(), Deadline: r.GetDeadline(),
		Table: r.GetTable(), LastSequence: r.GetLastSequence(), Seat: seat}, nil
}

func (s *Server) ListLegalActions(ctx context.Context, req *gatewayv1.ListLegalActionsRequest) (*gatewayv1.ListLegalActionsResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := s.listLegal(ctx, sess, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) listLegal(ctx context.Context, sess Session, req *gatewayv1.ListLegalActionsRequest) (*gatewayv1.ListLegalActionsResponse, error) {
	c, seat, names, err := s.seated(ctx, sess, req.GetTableId())
	if err != nil {
		return nil, err
	}
	r, err := c.ListLegalActions(ctx, &rulesv1.ListLegalActionsRequest{TableId: req.GetTableId(), Seat: uint32(seat)})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ListLegalActionsResponse{Version: r.GetVersion(), Actions: r.GetActions(), Labels: renderLabels(r.GetLabels(), names)}, nil
}

func (s *Server) GetReplay(ctx context.Context, req *gatewayv1.GetReplayRequest) (*gatewayv1.GetReplayResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := s.getReplay(ctx, sess, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) getReplay(ctx context.Context, sess Session, req *gatewayv1.GetReplayRequest) (*gatewayv1.GetReplayResponse, error) {
	t, err := s.table(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	own := t.SeatOf(sess.Player)
	names := seatNames(t, own)
	c, err := s.rulesOf(t.Game)
	if err != nil {
		return nil, err
	}
	l, err := c.GetLog(ctx, &rulesv1.GetLogRequest{TableId: t.ID, IncludeViews: req.GetIncludeViews()})
	if err != nil {
		return nil, err
	}
	if !l.GetTable().GetFinished() {
		return nil, refusal.New(codes.FailedPrecondition, refusal.TableInPlay, "the replay is available once the table is finished")
	}
	resp := &gatewayv1.GetReplayResponse{Table: l.GetTable(), CreatedEvents: labelledAll(l.GetCreatedEvents(), names), CreatedView: l.GetCreatedView()}
	for _, e := range l.GetEntries() {
		re := &gatewayv1.ReplayEntry{Version: e.GetVersion(), Action: e.GetAction(), Time: e.GetTime(), Events: labelledAll(e.GetEvents(), names), View: e.GetView()}
		switch by := e.GetBy().(type) {
		case *rulesv1.LogEntry_Seat:
			re.By = &gatewayv1.ReplayEntry_Seat{Seat: by.Seat}
			// Only the mover learns its action ids (another's would tell nothing but how its
			// client names its moves), as it sent them: without the prefix the gateway adds.
			if id, sent := strings.CutPrefix(e.GetActionId(), clientActionPrefix); sent && own >= 0 && by.Seat == uint32(own) && !e.GetStandIn() {
				re.ActionId = id
			}
		case *rulesv1.LogEntry_Timeout:
			re.By = &gatewayv1.ReplayEntry_Timeout{Timeout: true}
		case *rulesv1.LogEntry_Abort:
			re.By = &gatewayv1.ReplayEntry_Abort{Abort: true}
		}
		resp.Entries = append(resp.Entries, re)
	}
	return resp, nil
}
