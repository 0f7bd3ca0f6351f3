package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"cardroom.dev/gateway"
	. "cardroom.dev/gateway/gatewaytest"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"connectrpc.com/connect"
	"google.golang.org/grpc"
)

// TestHTTPWatchEndsAtMaxAge: HTTP/1.1 has no GOAWAY, so a Watch stream over Connect ends itself at
// the gateway's maximum connection age (±10 %) with UNAVAILABLE; the client resumes after the last
// sequence it saw and receives what follows, nothing twice.
func TestHTTPWatchEndsAtMaxAge(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	gs := grpc.NewServer(gateway.ServerOptions(gateway.Options{})...)
	e.GWs[0].Register(gs, nil)
	const age = 400 * time.Millisecond
	h, err := gateway.BrowserHandler(gs, "", nil, gateway.Options{MaxConnectionAge: age})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // HTTP/1.1
	t.Cleanup(srv.Close)

	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 1, rounds(1), 0)
	watch := connect.NewClient[gatewayv1.WatchRequest, gatewayv1.WatchResponse](http.DefaultClient, srv.URL+svcPath+"Watch")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	open := func(after uint64) *connect.ServerStreamForClient[gatewayv1.WatchResponse] {
		req := connect.NewRequest(&gatewayv1.WatchRequest{TableId: tb.GetTableId(), AfterSequence: after})
		req.Header().Set("Authorization", bearer(ann.Token))
		s, err := watch.CallServerStream(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	start := time.Now()
	s := open(0)
	var last uint64
	for s.Receive() {
		last = s.Msg().GetEvent().GetSequence()
	}
	took := time.Since(start)
	if connect.CodeOf(s.Err()) != connect.CodeUnavailable {
		t.Fatalf("the stream ended with %v, want unavailable at its maximum age", s.Err())
	}
	if took < age*9/10 {
		t.Fatalf("the stream ended after %v, before its age %v", took, age)
	}
	if last == 0 {
		t.Fatal("no event before the stream's age")
	}
	_ = s.Close()
	// Resumed: the events after the cursor only.
	s = open(last)
	defer s.Close()
	if s.Receive() {
		if seq := s.Msg().GetEvent().GetSequence(); seq != 0 && seq <= last {
			t.Fatalf("resumed after %d, received %d again", last, seq)
		}
	}
}
