package client_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"cardroom.dev/client"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// answers is a connection that answers unary calls from a list of codes (OK: an empty answer) and
// records the requests.
type answers struct {
	codes []codes.Code
	reqs  []proto.Message
	auth  []string
}

func (a *answers) Invoke(ctx context.Context, _ string, args, reply any, _ ...grpc.CallOption) error {
	if r, ok := reply.(*gatewayv1.SignInResponse); ok {
		r.SessionToken, r.PlayerId = "token", "p-1"
	}
	a.reqs = append(a.reqs, proto.Clone(args.(proto.Message)))
	md, _ := metadata.FromOutgoingContext(ctx)
	a.auth = append(a.auth, md.Get("authorization")...)
	c := a.codes[0]
	a.codes = a.codes[1:]
	if c == codes.OK {
		return nil
	}
	return status.Error(c, "answer")
}

func (a *answers) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, errors.New("no streams")
}

// TestRetriesOnlyLostAnswers: a call that is safe to repeat is sent again, with the same request
// id, after UNAVAILABLE or DEADLINE_EXCEEDED, and not after any other answer; it gives up after
// eight tries.
func TestRetriesOnlyLostAnswers(t *testing.T) {
	for _, tc := range []struct {
		answers []codes.Code
		calls   int
		want    codes.Code
	}{
		{[]codes.Code{codes.Unavailable, codes.DeadlineExceeded, codes.OK}, 3, codes.OK},
		{[]codes.Code{codes.Unavailable, codes.Unavailable, codes.Unavailable, codes.Unavailable, codes.Unavailable,
			codes.Unavailable, codes.Unavailable, codes.Unavailable, codes.OK}, 8, codes.Unavailable},
		{[]codes.Code{codes.InvalidArgument, codes.OK}, 1, codes.InvalidArgument},
		{[]codes.Code{codes.Aborted, codes.OK}, 1, codes.Aborted},
	} {
		// The sign-in is the first answer.
		conn := &answers{codes: append([]codes.Code{codes.OK}, tc.answers...)}
		c := client.New(conn, client.WithBackoff(client.Backoff{First: time.Millisecond, Max: time.Millisecond, Factor: 2}))
		if _, err := c.SignInDevice(t.Context(), client.FileCredentials(filepath.Join(t.TempDir(), "c.json")), "Ann"); err != nil {
			t.Fatal(err)
		}
		_, err := c.Table("t-1").AddBots(t.Context(), 1, 0)
		calls := len(conn.reqs) - 1
		if calls != tc.calls || status.Code(err) != tc.want {
			t.Errorf("answers %v: %d calls ending %v, want %d ending %v", tc.answers, calls, err, tc.calls, tc.want)
		}
		first := conn.reqs[1].(*gatewayv1.AddBotsRequest)
		for _, r := range conn.reqs[2:] {
			if !proto.Equal(r, first) || first.GetRequestId() == "" {
				t.Errorf("a retry sent %v after %v: want the same request, request id included", r, first)
			}
		}
		if len(conn.auth) != tc.calls || conn.auth[0] != "Bearer token" {
			t.Errorf("calls carried %q: want the session's token on each", conn.auth)
		}
	}
}
