package gateway_test

import (
	"bufio"
	"bytes"
	. "cardroom.dev/gateway/gatewaytest"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"cardroom.dev/gateway"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/config"
	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

const (
	svcPath       = "/cardroom.gateway.v1.GatewayService/"
	allowedOrigin = "https://cards.example.org"
)

// serveBrowsers serves e's gateway the way the binaries do: an app's gRPC server whose port also
// answers HTTP (ServeBrowsers), with allowedOrigin allowed and a static page at every other path.
// It returns the port's address.
func serveBrowsers(t *testing.T, e *Env) string {
	t.Helper()
	cfg, err := config.Parse("browser", []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "error", "--cors-origins", allowedOrigin + ", https://other.example.org"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(t.Context(), "browser", cfg)
	if err != nil {
		t.Fatal(err)
	}
	gs, hs, err := a.NewGRPCServer(cfg.Listen, gateway.ServerOptions(gateway.OptionsFrom(cfg))...)
	if err != nil {
		t.Fatal(err)
	}
	e.GWs[0].Register(gs, hs)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "the page") })
	if err := gateway.ServeBrowsers(a, gs, page); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("app: %v", err)
		}
	})
	return a.Addr(0)
}

func bearer(token string) string { return "Bearer " + token }

// TestConnectProtocol: a connect-go client (Connect protocol over HTTP/1.1, JSON and binary)
// signs in, follows a table's Watch stream and acts; a refused move carries the same code and
// RuleViolation as over native gRPC, which the same port still serves.
func TestConnectProtocol(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	addr := serveBrowsers(t, e)
	base := "http://" + addr + svcPath
	hc := &http.Client{}

	for _, opts := range [][]connect.ClientOption{{connect.WithProtoJSON()}, nil} {
		signIn := connect.NewClient[gatewayv1.SignInRequest, gatewayv1.SignInResponse](hc, base+"SignIn", opts...)
		r, err := signIn.CallUnary(t.Context(), connect.NewRequest(&gatewayv1.SignInRequest{DisplayName: "Web"}))
		if err != nil || r.Msg.GetSessionToken() == "" {
			t.Fatalf("connect sign in (%d options): %v %v", len(opts), err, r)
		}
	}
	// Native gRPC on the same port.
	native := gatewayv1.NewGatewayServiceClient(DialRaw(t, addr))
	if _, err := native.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: "Native"}); err != nil {
		t.Fatalf("native gRPC on the shared port: %v", err)
	}

	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 0, rounds(1), 0)
	first, second := ann, bob
	if tb.GetYourSeat() != 0 {
		first, second = bob, ann
	}

	watch := connect.NewClient[gatewayv1.WatchRequest, gatewayv1.WatchResponse](hc, base+"Watch", connect.WithProtoJSON())
	wreq := connect.NewRequest(&gatewayv1.WatchRequest{TableId: tb.GetTableId(), IncludeLegalActions: true})
	wreq.Header().Set("Authorization", bearer(second.Token))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	stream, err := watch.CallServerStream(ctx, wreq)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	next := func() *gatewayv1.WatchResponse {
		t.Helper()
		if !stream.Receive() {
			t.Fatalf("watch ended: %v", stream.Err())
		}
		return stream.Msg()
	}
	if ev := next().GetEvent(); ev.GetSequence() != 1 || !ev.GetPayload().MessageIs(&eventsv1.TableCreated{}) {
		t.Fatalf("first event over Connect: %v", ev)
	}

	// Without a token: UNAUTHENTICATED.
	act := connect.NewClient[gatewayv1.ActRequest, gatewayv1.ActResponse](hc, base+"Act")
	areq := &gatewayv1.ActRequest{TableId: tb.GetTableId(), Action: action("reveal"), ActionId: "web-1"}
	_, err = act.CallUnary(t.Context(), connect.NewRequest(areq))
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("act without a token: %v", err)
	}
	// The seat not on turn: the same refusal as native gRPC, detail included.
	_, nerr := second.C.Act(second.Ctx(), areq)
	want := violationOf(t, status.Convert(nerr).Details())
	req := connect.NewRequest(areq)
	req.Header().Set("Authorization", bearer(second.Token))
	_, err = act.CallUnary(t.Context(), req)
	var ce *connect.Error
	if !errors.As(err, &ce) || int(ce.Code()) != int(status.Code(nerr)) {
		t.Fatalf("refused move over Connect: %v, over gRPC: %v", err, nerr)
	}
	var details []any
	for _, d := range ce.Details() {
		m, err := d.Value()
		if err != nil {
			t.Fatal(err)
		}
		details = append(details, m)
	}
	if got := violationOf(t, details); got.GetCode() != want.GetCode() || got.GetMessage() != want.GetMessage() {
		t.Fatalf("violation over Connect %v, over gRPC %v", got, want)
	}
	// The seat on turn acts over Connect; the watcher sees the action's events.
	req = connect.NewRequest(&gatewayv1.ActRequest{TableId: tb.GetTableId(), Action: action("reveal"), ActionId: "web-2"})
	req.Header().Set("Authorization", bearer(first.Token))
	ar, err := act.CallUnary(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for {
		m := next()
		if m.GetEvent().GetVersion() >= ar.Msg.GetVersion() {
			break
		}
	}
}

func violationOf(t *testing.T, details []any) *gamev1.RuleViolation {
	t.Helper()
	for _, d := range details {
		if v, ok := d.(*gamev1.RuleViolation); ok {
			return v
		}
	}
	t.Fatalf("no RuleViolation among %v", details)
	return nil
}

// grpcWeb posts one gRPC-Web (binary) request and returns the response's message frames and its
// trailers.
func grpcWeb(t *testing.T, ctx context.Context, url, token string, msg proto.Message) ([][]byte, http.Header) {
	t.Helper()
	body, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	frame := make([]byte, 5, 5+len(body))
	binary.BigEndian.PutUint32(frame[1:], uint32(len(body)))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(append(frame, body...)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/grpc-web+proto")
	req.Header.Set("X-Grpc-Web", "1")
	req.Header.Set("Authorization", bearer(token))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("gRPC-Web %s: HTTP %d", url, resp.StatusCode)
	}
	var msgs [][]byte
	for {
		var hdr [5]byte
		if _, err := io.ReadFull(resp.Body, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) && len(msgs) == 0 && resp.Header.Get("Grpc-Status") != "" {
				return nil, resp.Header // trailers-only: the status is in the headers
			}
			t.Fatalf("gRPC-Web %s: no trailers (%v)", url, err)
		}
		data := make([]byte, binary.BigEndian.Uint32(hdr[1:]))
		if _, err := io.ReadFull(resp.Body, data); err != nil {
			t.Fatal(err)
		}
		if hdr[0]&0x80 == 0 {
			msgs = append(msgs, data)
			if _, ok := msg.(*gatewayv1.WatchRequest); ok && len(msgs) == 2 {
				return msgs, nil // a Watch stream does not end by itself
			}
			continue
		}
		tr, err := textproto.NewReader(bufioReader(append(data, "\r\n"...))).ReadMIMEHeader()
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		return msgs, http.Header(tr)
	}
}

// TestGRPCWebProtocol: raw gRPC-Web requests (as a browser's grpc-web client sends them) reach Act,
// with the refusal's status and RuleViolation in the trailers, and Watch, whose messages stream.
func TestGRPCWebProtocol(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	addr := serveBrowsers(t, e)
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 0, rounds(1), 0)
	second := bob
	if tb.GetYourSeat() != 0 {
		second = ann
	}
	areq := &gatewayv1.ActRequest{TableId: tb.GetTableId(), Action: action("reveal"), ActionId: "web-1"}
	_, nerr := second.C.Act(second.Ctx(), areq)
	want := violationOf(t, status.Convert(nerr).Details())

	msgs, tr := grpcWeb(t, t.Context(), "http://"+addr+svcPath+"Act", second.Token, areq)
	if len(msgs) != 0 {
		t.Fatalf("a refused act answered %d messages", len(msgs))
	}
	if code, _ := strconv.Atoi(tr.Get("Grpc-Status")); codes.Code(code) != status.Code(nerr) {
		t.Fatalf("gRPC-Web status %q, native %v", tr.Get("Grpc-Status"), status.Code(nerr))
	}
	bin, err := decodeBin(tr.Get("Grpc-Status-Details-Bin"))
	if err != nil {
		t.Fatal(err)
	}
	st := status.FromProto(bin)
	if got := violationOf(t, st.Details()); got.GetCode() != want.GetCode() {
		t.Fatalf("gRPC-Web violation %v, want %v", got, want)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	msgs, _ = grpcWeb(t, ctx, "http://"+addr+svcPath+"Watch", second.Token, &gatewayv1.WatchRequest{TableId: tb.GetTableId()})
	for i, m := range msgs {
		var r gatewayv1.WatchResponse
		if err := proto.Unmarshal(m, &r); err != nil {
			t.Fatal(err)
		}
		if r.GetEvent().GetSequence() != uint64(i+1) {
			t.Fatalf("gRPC-Web watch message %d: %v", i, &r)
		}
	}
}

// TestCORS: a preflight from an allowed origin is answered with its CORS headers (the
// authorization header allowed); one from any other origin is not, so a browser refuses it.
// Other paths serve the static handler.
func TestCORS(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	addr := serveBrowsers(t, e)
	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodOptions, "http://"+addr+svcPath+"Act", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,connect-protocol-version,content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	ok := preflight(allowedOrigin)
	if ok.Header.Get("Access-Control-Allow-Origin") != allowedOrigin ||
		!strings.Contains(strings.ToLower(ok.Header.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Fatalf("allowed origin's preflight answered %d %v", ok.StatusCode, ok.Header)
	}
	if no := preflight("https://evil.example.com"); no.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("refused origin's preflight answered %v", no.Header)
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "the page" {
		t.Fatalf("GET / answered %q", b)
	}
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

func decodeBin(s string) (*spb.Status, error) {
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, err
	}
	var st spb.Status
	return &st, proto.Unmarshal(raw, &st)
}
