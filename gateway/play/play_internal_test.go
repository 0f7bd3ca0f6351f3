package play

import (
	"context"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestPaint(t *testing.T) {
	got := paint(`card { colour: COLOUR_RED rank: 7 } other: COLOUR_UNSPECIFIED`)
	want := "card { colour: \x1b[31mred\x1b[0m rank: 7 } other: COLOUR_UNSPECIFIED"
	if got != want {
		t.Fatalf("%q, want %q", got, want)
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
