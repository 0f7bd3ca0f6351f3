package play

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func TestPaint(t *testing.T) {
	got := paint(`card { colour: COLOUR_RED rank: 7 } other: COLOUR_UNSPECIFIED`)
	want := "card { colour: \x1b[31mred\x1b[0m rank: 7 } other: COLOUR_UNSPECIFIED"
	if got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

func list(version uint64, actions ...string) *gatewayv1.LegalActions {
	l := &gatewayv1.LegalActions{Version: version}
	for _, a := range actions {
		m, _ := anypb.New(wrapperspb.String(a))
		l.Actions = append(l.Actions, m)
	}
	return l
}

// TestMovesKeepTheNewestList: the client keeps the newest list, drops one the table has moved past
// (before or after it came), shows a list once, and forgets its list when the seat no longer may act.
func TestMovesKeepTheNewestList(t *testing.T) {
	var m moves
	if !m.offer(list(0, "reveal", "pass")) {
		t.Fatal("the first list is not shown")
	}
	if m.offer(list(0, "reveal", "pass")) {
		t.Fatal("the same list is shown twice")
	}
	m.saw(0)
	if m.list == nil {
		t.Fatal("an event of the list's own version dropped it")
	}
	m.saw(2)
	if m.list != nil {
		t.Fatal("an event of a later version left the list in place")
	}
	if m.offer(list(1, "reveal")) || m.list != nil {
		t.Fatal("a list older than the table's version was kept")
	}
	if !m.offer(list(3, "pass")) || m.list.GetVersion() != 3 || m.seen != 3 {
		t.Fatalf("a list newer than the events seen was not kept: %v, seen %d", m.list, m.seen)
	}
	if m.offer(list(3)) || m.list != nil {
		t.Fatal("the empty list (the seat no longer may act) left the list in place")
	}
	if !m.offer(list(4, "reveal")) {
		t.Fatal("a new list after an empty one is not shown")
	}
	if m.offer(list(3, "pass")) || m.list.GetVersion() != 4 {
		t.Fatal("an older list replaced a newer one")
	}
}

// actor is a gateway that answers Act only.
type actor struct {
	gatewayv1.GatewayServiceClient
	acts []*gatewayv1.ActRequest
	err  error
}

func (a *actor) Act(_ context.Context, r *gatewayv1.ActRequest, _ ...grpc.CallOption) (*gatewayv1.ActResponse, error) {
	a.acts = append(a.acts, r)
	if a.err != nil {
		return nil, a.err
	}
	return &gatewayv1.ActResponse{Version: r.GetExpectedVersion() + 1}, nil
}

// TestTypedMove: a number plays that move of the list shown at the list's version; a number while
// no list is known plays nothing (the client asks no gateway for one); a stale refusal drops the
// list only once the table is seen past it.
func TestTypedMove(t *testing.T) {
	ctx := t.Context()
	var out bytes.Buffer
	a := &actor{}
	p := &player{c: a, out: &out}
	var m moves

	p.typed(ctx, "t-1", "1", &m)
	if len(a.acts) != 0 || !strings.Contains(out.String(), "waiting for your turn") {
		t.Fatalf("a number without a list: %d acts, output %q", len(a.acts), out.String())
	}

	m.offer(list(5, "reveal", "pass"))
	out.Reset()
	p.typed(ctx, "t-1", "3", &m)
	if len(a.acts) != 0 || !strings.Contains(out.String(), "type 1 to 2") {
		t.Fatalf("a number out of range: %d acts, output %q", len(a.acts), out.String())
	}
	p.typed(ctx, "t-1", "2", &m)
	if len(a.acts) != 1 {
		t.Fatalf("%d acts, want 1", len(a.acts))
	}
	r := a.acts[0]
	var s wrapperspb.StringValue
	_ = r.GetAction().UnmarshalTo(&s)
	if r.GetTableId() != "t-1" || s.GetValue() != "pass" || r.ExpectedVersion == nil || r.GetExpectedVersion() != 5 || r.GetActionId() == "" {
		t.Fatalf("act %v", r)
	}
	if m.list != nil || m.seen != 6 {
		t.Fatalf("after the move: list %v, seen %d", m.list, m.seen)
	}
	if m.offer(list(5, "reveal", "pass")) {
		t.Fatal("the list just played from came back")
	}

	// A refusal keeps the list until the stream shows the table past it.
	a.err = status.Error(codes.Aborted, "stale version")
	m.offer(list(7, "reveal"))
	out.Reset()
	p.typed(ctx, "t-1", "1", &m)
	if m.list == nil || !strings.Contains(out.String(), "refused") {
		t.Fatalf("after a refusal: list %v, output %q", m.list, out.String())
	}
	m.saw(8)
	if m.list != nil {
		t.Fatal("the refused list outlived the table's move")
	}
	out.Reset()
	p.typed(ctx, "t-1", "1", &m)
	if len(a.acts) != 2 || !strings.Contains(out.String(), "waiting for your turn") {
		t.Fatalf("a number after the list went stale: %d acts, output %q", len(a.acts), out.String())
	}
}

// lostAnswers is a gateway that applies AddBots and then loses the answer, `lost` times.
type lostAnswers struct {
	gatewayv1.GatewayServiceClient
	lost int
	reqs []*gatewayv1.AddBotsRequest
}

func (f *lostAnswers) AddBots(_ context.Context, req *gatewayv1.AddBotsRequest, _ ...grpc.CallOption) (*gatewayv1.AddBotsResponse, error) {
	f.reqs = append(f.reqs, req)
	if len(f.reqs) <= f.lost {
		return nil, status.Error(codes.Unavailable, "gone")
	}
	return &gatewayv1.AddBotsResponse{Table: &gatewayv1.Table{TableId: req.GetTableId()}}, nil
}

// TestAddBotsRetriesWithOneRequestID: "bots N" retries an UNAVAILABLE answer with the request id of
// the first attempt, and gives up after maxAttempts; each command has its own id.
func TestAddBotsRetriesWithOneRequestID(t *testing.T) {
	defer func(w time.Duration) { retryWait = w }(retryWait)
	retryWait = time.Millisecond
	f := &lostAnswers{lost: 2}
	p := &player{c: f}
	if _, err := p.addBots(t.Context(), "t-1", 2); err != nil {
		t.Fatal(err)
	}
	if len(f.reqs) != 3 {
		t.Fatalf("%d attempts, want 3", len(f.reqs))
	}
	id := f.reqs[0].GetRequestId()
	for i, r := range f.reqs {
		if r.GetRequestId() != id || id == "" || r.GetCount() != 2 {
			t.Fatalf("attempt %d: %v, want the first attempt's request id %q", i, r, id)
		}
	}
	f.reqs = nil
	if _, err := p.addBots(t.Context(), "t-1", 1); err != nil {
		t.Fatal(err)
	}
	if f.reqs[0].GetRequestId() == id {
		t.Fatal("a second command reused the first one's request id")
	}
	f = &lostAnswers{lost: 1 << 30}
	p = &player{c: f}
	if _, err := p.addBots(t.Context(), "t-1", 1); status.Code(err) != codes.Unavailable || len(f.reqs) != maxAttempts {
		t.Fatalf("always unavailable: %v after %d attempts, want UNAVAILABLE after %d", err, len(f.reqs), maxAttempts)
	}
}
