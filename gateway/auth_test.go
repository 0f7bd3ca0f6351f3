package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"context"
	"strings"
	"testing"
	"time"

	"cardroom.dev/gateway"
	"cardroom.dev/gateway/lobby"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestBadInput: each bad call is refused with its code, and the table does not change.
func TestBadInput(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true})
	ann, bob, eve := e.SignIn(0, "Ann"), e.SignIn(0, "Bob"), e.SignIn(0, "Eve")
	tb := privateTable(t, ann, []*Client{bob}, 0, rounds(2), 0)
	id := tb.GetTableId()
	onTurn := ann
	if tb.GetYourSeat() != 0 {
		onTurn = bob
	}
	// A token signed by a replica with another key, and one that expired.
	otherKey, err := gateway.New(gateway.Options{SessionKey: []byte(strings.Repeat("another key ", 3))}, lobby.NewMemory(), e.Bus,
		map[string]grpc.ClientConnInterface{TestGame: nil})
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := otherKey.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: "Mallory"})
	past, _ := gateway.New(gateway.Options{SessionKey: []byte("test key shared by every replica"), SessionTTL: time.Hour,
		Now: func() time.Time { return time.Now().Add(-2 * time.Hour) }}, lobby.NewMemory(), e.Bus,
		map[string]grpc.ClientConnInterface{TestGame: nil})
	expired, _ := past.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: "Old"})
	tampered := onTurn.Token[:len(onTurn.Token)-2] + "xx"
	huge, _ := anypb.New(wrapperspb.String(strings.Repeat("x", 100_000)))
	wrongGame, _ := anypb.New(wrapperspb.Int32(3))
	version := func() uint64 {
		v, err := onTurn.C.GetView(onTurn.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		return v.GetVersion()
	}
	before := version()
	act := func(table string, a *anypb.Any) *gatewayv1.ActRequest {
		return &gatewayv1.ActRequest{TableId: table, Action: a, ActionId: NextActionID()}
	}
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		c         *Client
		req       *gatewayv1.ActRequest
		code      codes.Code
		violation string
	}{
		{"no token", t.Context(), onTurn, act(id, action("reveal")), codes.Unauthenticated, refusal.Unauthenticated},
		{"garbage token", WithToken(t.Context(), "nonsense"), onTurn, act(id, action("reveal")), codes.Unauthenticated, refusal.Unauthenticated},
		{"tampered token", WithToken(t.Context(), tampered), onTurn, act(id, action("reveal")), codes.Unauthenticated, refusal.Unauthenticated},
		{"another key", WithToken(t.Context(), forged.GetSessionToken()), onTurn, act(id, action("reveal")), codes.Unauthenticated, refusal.Unauthenticated},
		{"expired token", WithToken(t.Context(), expired.GetSessionToken()), onTurn, act(id, action("reveal")), codes.Unauthenticated, refusal.Unauthenticated},
		{"not seated", nil, eve, act(id, action("reveal")), codes.PermissionDenied, refusal.NotYourSeat},
		{"unknown table", nil, onTurn, act("t-nosuchtable", action("reveal")), codes.NotFound, refusal.TableNotFound},
		{"wrong game's action", nil, onTurn, act(id, wrongGame), codes.InvalidArgument, "WRONG_GAME"},
		{"unknown action", nil, onTurn, act(id, action("fold")), codes.InvalidArgument, "UNKNOWN_ACTION"},
		{"oversized", nil, onTurn, act(id, huge), codes.InvalidArgument, refusal.TooLarge},
		{"no action id", nil, onTurn, &gatewayv1.ActRequest{TableId: id, Action: action("reveal")}, codes.InvalidArgument, refusal.InvalidField},
		{"stale version", nil, onTurn, &gatewayv1.ActRequest{TableId: id, Action: action("reveal"), ActionId: "stale", ExpectedVersion: new(uint64(7))}, codes.Aborted, "STALE_VERSION"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = tc.c.Ctx()
			}
			_, err := tc.c.C.Act(ctx, tc.req)
			wantCode(t, err, tc.code, tc.violation)
		})
	}
	// Not your turn: the game's own refusal passes through.
	other := bob
	if onTurn == bob {
		other = ann
	}
	_, err = other.C.Act(other.Ctx(), act(id, action("reveal")))
	wantCode(t, err, codes.FailedPrecondition, "NOT_YOUR_TURN")
	if after := version(); after != before {
		t.Fatalf("the table moved from version %d to %d", before, after)
	}
	// Other calls refuse the same way.
	_, err = eve.C.ListLegalActions(eve.Ctx(), &gatewayv1.ListLegalActionsRequest{TableId: id})
	wantCode(t, err, codes.PermissionDenied, refusal.NotYourSeat)
	_, err = eve.C.GetReplay(eve.Ctx(), &gatewayv1.GetReplayRequest{TableId: id})
	wantCode(t, err, codes.FailedPrecondition, refusal.TableInPlay)
	_, err = eve.C.CreateTable(eve.Ctx(), &gatewayv1.CreateTableRequest{Game: "chess"})
	wantCode(t, err, codes.InvalidArgument, refusal.UnknownGame)
	_, err = eve.C.EnqueueTicket(eve.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 1})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	_, err = eve.C.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: ""})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	// A spectator watches public events only (checked over a whole game in TestMatchmadeGame's
	// clients; here the view is a spectator's).
	v, err := eve.C.GetView(eve.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
	if err != nil || v.Seat != nil {
		t.Fatalf("spectator view %v %v", v, err)
	}
	s := &wrapperspb.StringValue{}
	_ = v.GetView().UnmarshalTo(s)
	if strings.Trim(s.GetValue(), "01:? ") != "" {
		t.Fatalf("a spectator sees %q", s.GetValue())
	}
}

func TestSessionRefresh(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	r, err := ann.C.RefreshSession(ann.Ctx(), &gatewayv1.RefreshSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ann.Token = r.GetSessionToken()
	if _, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame}); err != nil {
		t.Fatalf("refreshed token refused: %v", err)
	}
	_, err = ann.C.RefreshSession(t.Context(), &gatewayv1.RefreshSessionRequest{})
	wantCode(t, err, codes.Unauthenticated, refusal.Unauthenticated)
	g, err := ann.C.ListGames(t.Context(), &gatewayv1.ListGamesRequest{})
	if err != nil || len(g.GetGames()) != 1 || g.GetGames()[0].GetActionType() != "google.protobuf.StringValue" {
		t.Fatalf("games %v %v", g, err)
	}
}

func TestRateLimit(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{RateLimit: 0.001, RateBurst: 3}})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	for range 3 {
		if _, err := ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: "t-x"}); err == nil {
			t.Fatal("found a table that does not exist")
		}
	}
	_, err := ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: "t-x"})
	wantCode(t, err, codes.ResourceExhausted, refusal.RateLimited)
	// Sign-ins are limited per address: Ann and Bob used two of this address's three.
	if _, err := ann.C.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: "Cid"}); err != nil {
		t.Fatal(err)
	}
	_, err = ann.C.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: "Dan"})
	wantCode(t, err, codes.ResourceExhausted, refusal.RateLimited)
	// Others are not affected.
	_, err = bob.C.GetTable(bob.Ctx(), &gatewayv1.GetTableRequest{TableId: "t-x"})
	wantCode(t, err, codes.NotFound, refusal.TableNotFound)
}

// TestTicketParty: a party of two queues together, a stranger joins the pool, bots fill after the
// longest wait; a cancelled ticket ends its stream.
func TestTicketParty(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, bob, cid := e.SignIn(0, "Ann"), e.SignIn(0, "Bob"), e.SignIn(0, "Cid")
	r, err := ann.C.EnqueueTicket(ann.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 4, MaxSeats: 4, PartySize: 2,
		BotsMayFill: true, MaxWait: durationpb.New(200 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cid.C.JoinTicket(cid.Ctx(), &gatewayv1.JoinTicketRequest{TicketId: "k-nosuch"})
	wantCode(t, err, codes.NotFound, refusal.TicketNotFound)
	if _, err := bob.C.JoinTicket(bob.Ctx(), &gatewayv1.JoinTicketRequest{TicketId: r.GetTicketId()}); err != nil {
		t.Fatal(err)
	}
	// A retry (its answer lost) joins nothing more and succeeds, also once the party is complete.
	if _, err := bob.C.JoinTicket(bob.Ctx(), &gatewayv1.JoinTicketRequest{TicketId: r.GetTicketId()}); err != nil {
		t.Fatalf("joining again: %v", err)
	}
	_, err = cid.C.JoinTicket(cid.Ctx(), &gatewayv1.JoinTicketRequest{TicketId: r.GetTicketId()})
	wantCode(t, err, codes.FailedPrecondition, refusal.TicketClosed)
	ma, mb := ann.WaitMatched(r.GetTicketId()), bob.WaitMatched(r.GetTicketId())
	if ma.GetTableId() != mb.GetTableId() || ma.GetSeat() == mb.GetSeat() {
		t.Fatalf("party split: %v %v", ma, mb)
	}
	g, err := ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: ma.GetTableId()})
	if err != nil {
		t.Fatal(err)
	}
	bots := 0
	for _, s := range g.GetTable().GetSeats() {
		if s.GetPlayer().GetKind() == 2 {
			bots++
		}
	}
	if len(g.GetTable().GetSeats()) != 4 || bots != 2 {
		t.Fatalf("table %v: want 4 seats, 2 bots", g.GetTable())
	}
	// Cancel.
	r2, err := cid.C.EnqueueTicket(cid.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 4, MaxSeats: 4, MaxWait: durationpb.New(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cid.C.WatchTicket(cid.Ctx(), &gatewayv1.WatchTicketRequest{TicketId: r2.GetTicketId()})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Recv()
	if err != nil || first.GetState() != gatewayv1.TicketState_TICKET_STATE_QUEUED || first.GetPlayersWaiting() != 1 {
		t.Fatalf("first update %v %v", first, err)
	}
	if _, err := cid.C.CancelTicket(cid.Ctx(), &gatewayv1.CancelTicketRequest{TicketId: r2.GetTicketId()}); err != nil {
		t.Fatal(err)
	}
	for {
		u, err := s.Recv()
		if err != nil {
			t.Fatalf("stream ended without CANCELLED: %v", err)
		}
		if u.GetState() == gatewayv1.TicketState_TICKET_STATE_CANCELLED {
			break
		}
	}
	_, err = ann.C.WatchTicket(ann.Ctx(), &gatewayv1.WatchTicketRequest{TicketId: r2.GetTicketId()})
	if err == nil {
		// Errors of server streams arrive with the first receive.
		st, _ := ann.C.WatchTicket(ann.Ctx(), &gatewayv1.WatchTicketRequest{TicketId: r2.GetTicketId()})
		_, err = st.Recv()
	}
	wantCode(t, err, codes.NotFound, refusal.TicketNotFound)
}

// TestOrphanedMatch: tickets claimed by a matcher that died before forming the table (the claim
// alone) are seated at that table by its owner, another replica: the claim put the table in the
// lobby's owned set with its match.
func TestOrphanedMatch(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{MatchInterval: time.Hour}})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	r, err := ann.C.EnqueueTicket(ann.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 2, MaxSeats: 2, MaxWait: durationpb.New(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := e.Lobby.LoadTicket(t.Context(), r.GetTicketId())
	if err != nil {
		t.Fatal(err)
	}
	// Bob queues through another (dying) replica, which claims the match and stops.
	other := tk
	other.ID, other.Players = "k-other", []lobby.Player{{ID: bob.ID, Name: "Bob"}}
	other.QueuedAt = other.QueuedAt.Add(time.Millisecond)
	if err := e.Lobby.CreateTicket(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := e.Lobby.ClaimMatch(t.Context(), tk.Pool, "t-never-dealt", time.Now()); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	done := make(chan *gatewayv1.WatchTicketResponse, 1)
	go func() { done <- bob.WaitMatched(other.ID) }()
	m := ann.WaitMatched(r.GetTicketId())
	mb := <-done
	if m.GetTableId() != "t-never-dealt" || m.Seat == nil || mb.GetTableId() != m.GetTableId() || mb.GetSeat() == m.GetSeat() {
		t.Fatalf("matched %v and %v, want both at t-never-dealt", m, mb)
	}
}
