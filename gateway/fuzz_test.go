package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// refusalCodes are the gRPC codes a refusal of bad input may have; each comes with a
// RuleViolation naming a stable code.
var refusalCodes = map[codes.Code]bool{
	codes.InvalidArgument: true, codes.NotFound: true, codes.FailedPrecondition: true, codes.PermissionDenied: true,
	codes.Unauthenticated: true, codes.Aborted: true, codes.ResourceExhausted: true, codes.AlreadyExists: true,
	codes.OutOfRange: true,
}

// FuzzEdge calls the gateway's handlers over gRPC with random ids, versions, counts, tokens and
// Any payloads, on a live table of the test game: whatever comes in, the gateway does not panic
// (the fuzzing process would die), and every refusal is a gRPC status with one of refusalCodes
// and a RuleViolation with a code. The seeds (testdata/fuzz/FuzzEdge) run in every `go test`;
// `go test -fuzz FuzzEdge -run '^$' ./gateway/` searches further.
//
// The arguments: op picks the call; id is the table, ticket or invite code ("@" for the live
// table); n is a version, count or duration; typeURL and value make the call's Any (none when
// both are empty); text is an action or request id, a game name, or, prefixed "tok:", the token.
func FuzzEdge(f *testing.F) {
	e := NewEnv(f, EnvOptions{})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	live := privateTable(f, ann, []*Client{bob}, 0, rounds(3), 0).GetTableId()
	f.Fuzz(func(t *testing.T, op uint8, id string, n uint64, typeURL string, value []byte, text string) {
		// Strings that are not UTF-8 cannot be sent at all (the client's marshalling refuses them).
		id, typeURL, text = strings.ToValidUTF8(id, "?"), strings.ToValidUTF8(typeURL, "?"), strings.ToValidUTF8(text, "?")
		if id == "@" {
			id = live
		}
		var payload *anypb.Any
		if typeURL != "" || len(value) > 0 {
			payload = &anypb.Any{TypeUrl: typeURL, Value: value}
		}
		token := ann.Token
		if tok, ok := strings.CutPrefix(text, "tok:"); ok {
			token = tok
		}
		ctx, cancel := context.WithTimeout(WithToken(t.Context(), token), 10*time.Second)
		defer cancel()
		c := ann.C
		var err error
		stream := false
		switch op % 16 {
		case 0:
			g := TestGame
			if text != "" {
				g = text
			}
			_, err = c.CreateTable(ctx, &gatewayv1.CreateTableRequest{Game: g, Seats: uint32(n), Options: payload,
				TimeLimits: &gamev1.TimeLimits{PerAction: durationpb.New(time.Duration(n))}})
		case 1:
			_, err = c.JoinTable(ctx, &gatewayv1.JoinTableRequest{InviteCode: id})
		case 2:
			_, err = c.LeaveTable(ctx, &gatewayv1.LeaveTableRequest{TableId: id})
		case 3:
			_, err = c.AddBots(ctx, &gatewayv1.AddBotsRequest{TableId: id, Count: uint32(n), RequestId: text})
		case 4:
			_, err = c.StartTable(ctx, &gatewayv1.StartTableRequest{TableId: id})
		case 5:
			_, err = c.GetTable(ctx, &gatewayv1.GetTableRequest{TableId: id})
		case 6:
			_, err = c.EnqueueTicket(ctx, &gatewayv1.EnqueueTicketRequest{Game: text, MinSeats: uint32(n), MaxSeats: uint32(n >> 32),
				Options: payload, MaxWait: durationpb.New(time.Duration(n)), PartySize: uint32(n >> 16)})
		case 7:
			_, err = c.JoinTicket(ctx, &gatewayv1.JoinTicketRequest{TicketId: id})
		case 8:
			_, err = c.CancelTicket(ctx, &gatewayv1.CancelTicketRequest{TicketId: id})
		case 9:
			req := &gatewayv1.ActRequest{TableId: id, Action: payload, ActionId: text, IncludeLegalActions: n%3 == 0}
			if n%2 == 1 {
				v := n >> 1
				req.ExpectedVersion = &v
			}
			_, err = c.Act(ctx, req)
		case 10:
			_, err = c.GetView(ctx, &gatewayv1.GetViewRequest{TableId: id})
		case 11:
			_, err = c.ListLegalActions(ctx, &gatewayv1.ListLegalActionsRequest{TableId: id})
		case 12:
			_, err = c.GetReplay(ctx, &gatewayv1.GetReplayRequest{TableId: id})
		case 13:
			_, err = c.RefreshSession(ctx, &gatewayv1.RefreshSessionRequest{})
		case 14:
			stream = true
			err = firstOf(ctx, func(ctx context.Context) (func() error, error) {
				w, err := c.Watch(ctx, &gatewayv1.WatchRequest{TableId: id, AfterSequence: n, IncludeLegalActions: n%2 == 0, Batch: n%3 == 0})
				return func() error { _, err := w.Recv(); return err }, err
			})
		case 15:
			stream = true
			err = firstOf(ctx, func(ctx context.Context) (func() error, error) {
				w, err := c.WatchTicket(ctx, &gatewayv1.WatchTicketRequest{TicketId: id})
				return func() error { _, err := w.Recv(); return err }, err
			})
		}
		checkRefusal(t, err, stream)
	})
}

// firstOf opens a stream and waits for its first message or error, at most a second: a stream
// that delivers or stays open is fine.
func firstOf(ctx context.Context, open func(context.Context) (func() error, error)) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	recv, err := open(ctx)
	if err != nil {
		return err
	}
	err = recv()
	if errors.Is(err, io.EOF) || status.Code(err) == codes.DeadlineExceeded {
		return nil
	}
	return err
}

// checkRefusal fails unless err is nil or a proper refusal.
func checkRefusal(t *testing.T, err error, stream bool) {
	t.Helper()
	if err == nil {
		return
	}
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("not a gRPC status: %v", err)
	}
	if stream && st.Code() == codes.Canceled {
		return
	}
	if !refusalCodes[st.Code()] {
		t.Fatalf("refusal with code %v: %v", st.Code(), err)
	}
	for _, d := range st.Details() {
		if v, ok := d.(*gamev1.RuleViolation); ok && v.GetCode() != "" && v.GetMessage() != "" {
			return
		}
	}
	t.Fatalf("refusal without a RuleViolation code and message: %v (details %v)", err, st.Details())
}

// TestIDsWithSubjectCharacters: an id with a character no table or ticket id has — NATS subject
// syntax among them — is refused INVALID_FIELD before it reaches a subject (found by FuzzEdge: a
// table id " " was answered INTERNAL; "t-1.>" would have listened to other tables' notices).
func TestIDsWithSubjectCharacters(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	for _, id := range []string{" ", "t-1.>", "*", "t-a b", "t-é"} {
		calls := map[string]func() error{
			"StartTable": func() error {
				_, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id})
				return err
			},
			"GetTable": func() error {
				_, err := ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: id})
				return err
			},
			"JoinTicket": func() error {
				_, err := ann.C.JoinTicket(ann.Ctx(), &gatewayv1.JoinTicketRequest{TicketId: id})
				return err
			},
			"WatchTicket": func() error {
				return firstOf(ann.Ctx(), func(ctx context.Context) (func() error, error) {
					w, err := ann.C.WatchTicket(ctx, &gatewayv1.WatchTicketRequest{TicketId: id})
					return func() error { _, err := w.Recv(); return err }, err
				})
			},
		}
		for name, call := range calls {
			err := call()
			st, _ := status.FromError(err)
			var code string
			for _, d := range st.Details() {
				if v, ok := d.(*gamev1.RuleViolation); ok {
					code = v.GetCode()
				}
			}
			if st.Code() != codes.InvalidArgument || code != "INVALID_FIELD" {
				t.Errorf("%s(%q): %v (%s), want INVALID_ARGUMENT, INVALID_FIELD", name, id, err, code)
			}
		}
	}
}
