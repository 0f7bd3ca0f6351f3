package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"errors"
	"io"
	"strings"
	"testing"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestActionIDs: an action id of 1 to 128 bytes is taken (the limit of ActRequest.action_id) and
// one of 129 refused; its retry with the same action is answered from the log, and the same id
// for another action, or from another seat, is refused as reused, never answered as the first
// move's retry.
func TestActionIDs(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 0, rounds(2), 0)
	id := tb.GetTableId()
	onTurn, other := ann, bob
	if tb.GetYourSeat() != 0 {
		onTurn, other = bob, ann
	}
	longest := strings.Repeat("x", 128)
	_, err := onTurn.C.Act(onTurn.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: action("reveal"), ActionId: longest + "y"})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	first, err := onTurn.C.Act(onTurn.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: action("reveal"), ActionId: longest})
	if err != nil {
		t.Fatalf("an action id of 128 bytes: %v", err)
	}
	again, err := onTurn.C.Act(onTurn.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: action("reveal"), ActionId: longest})
	if err != nil || !again.GetReplayed() || again.GetVersion() != first.GetVersion() {
		t.Fatalf("retry: %v %v", again, err)
	}
	for _, tc := range []struct {
		name string
		c    *Client
		a    *anypb.Any
	}{
		{"another action", onTurn, action("pass")},
		{"another seat", other, action("reveal")},
	} {
		_, err := tc.c.C.Act(tc.c.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: tc.a, ActionId: longest})
		t.Run(tc.name, func(t *testing.T) { wantCode(t, err, codes.InvalidArgument, "ACTION_ID_REUSED") })
	}
	v, err := ann.C.GetView(ann.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
	if err != nil || v.GetVersion() != first.GetVersion() {
		t.Fatalf("the table is at %d after the refusals, not %d (%v)", v.GetVersion(), first.GetVersion(), err)
	}
}

// TestRequestTooLarge: a request over the gateway's limit (64 KiB) is refused with
// INVALID_ARGUMENT, REQUEST_TOO_LARGE, on unary calls and streams alike, up to gRPC's own receive
// limit on the gateway's server (ServerOptions: 4 MiB; it used to be 1 MiB, whence RESOURCE_EXHAUSTED
// for larger requests).
func TestRequestTooLarge(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	huge, _ := anypb.New(wrapperspb.String(strings.Repeat("x", 2<<20)))
	_, err := ann.C.Act(ann.Ctx(), &gatewayv1.ActRequest{TableId: "t-any", Action: huge, ActionId: "a1"})
	wantCode(t, err, codes.InvalidArgument, refusal.TooLarge)
	_, err = ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: huge})
	wantCode(t, err, codes.InvalidArgument, refusal.TooLarge)
	s, err := ann.C.Watch(ann.Ctx(), &gatewayv1.WatchRequest{TableId: strings.Repeat("t", 2<<20)})
	if err == nil {
		var m *gatewayv1.WatchResponse
		m, err = s.Recv()
		if errors.Is(err, io.EOF) {
			t.Fatalf("the stream ended without an error (%v)", m)
		}
	}
	wantCode(t, err, codes.InvalidArgument, refusal.TooLarge)
}
