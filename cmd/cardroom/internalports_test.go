package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/kit/app"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// startServe runs `cardroom serve` with env as its whole environment and returns its addresses and
// its printed listing; the server stops with the test.
func serveWith(t *testing.T, env map[string]string, args ...string) (map[string]string, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan map[string]string, 1)
	done := make(chan int, 1)
	out := &bytes.Buffer{}
	go func() {
		done <- serve(ctx, append([]string{"--log-level", "error"}, args...), func(k string) string { return env[k] }, out, &bytes.Buffer{}, ready)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	select {
	case addrs := <-ready:
		return addrs, out
	case code := <-done:
		t.Fatalf("serve exited with %d", code)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	return nil, nil
}

// dialLocal connects to addr, which may name every interface (0.0.0.0), through loopback.
func dialLocal(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := grpc.NewClient(net.JoinHostPort("127.0.0.1", port), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// internalCall calls the internal service at cc (a rules service, or the stats service when
// name is "stats") with ctx's metadata.
func internalCall(ctx context.Context, cc *grpc.ClientConn, name string) error {
	if name == "stats" {
		_, err := statsv1.NewStatsServiceClient(cc).ListGames(ctx, &statsv1.ListGamesRequest{})
		return err
	}
	_, err := rulesv1.NewRulesServiceClient(cc).GetView(ctx, &rulesv1.GetViewRequest{TableId: "t-1"})
	return err
}

// TestServeInternalPortsClosed: with the container image's environment (every interface), each
// internal service of `cardroom serve` (every game's RulesService, the StatsService) refuses a
// call without the service token, and one with a wrong token, UNAUTHENTICATED; health checks
// (probes) still answer, and the public gateway on the front port is unaffected.
func TestServeInternalPortsClosed(t *testing.T) {
	image := map[string]string{"CARDROOM_LISTEN": "0.0.0.0:0", "CARDROOM_METRICS_LISTEN": "127.0.0.1:0", "CARDROOM_LOG_FORMAT": "json"}
	addrs, _ := serveWith(t, image)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	internal := 0
	for name, addr := range addrs {
		if !strings.HasPrefix(addr, "0.0.0.0:") && !strings.HasPrefix(addr, "[::]:") {
			t.Fatalf("%s listens on %s, not every interface as the image asks", name, addr)
		}
		cc := dialLocal(t, addr)
		if h, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("%s health without a token: %v %v", name, h, err)
		}
		if name == "front" {
			if _, err := gatewayv1.NewGatewayServiceClient(cc).SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: "Ada"}); err != nil {
				t.Fatalf("the public gateway: %v", err)
			}
			continue
		}
		internal++
		for what, c := range map[string]context.Context{
			"no token":    ctx,
			"wrong token": metadata.AppendToOutgoingContext(ctx, app.ServiceTokenHeader, "guess"),
			"empty token": metadata.AppendToOutgoingContext(ctx, app.ServiceTokenHeader, ""),
		} {
			if err := internalCall(c, cc, name); status.Code(err) != codes.Unauthenticated {
				t.Errorf("%s with %s: %v, want UNAUTHENTICATED", name, what, err)
			}
		}
	}
	if internal != len(engines())+1 {
		t.Fatalf("checked %d internal services, want %d", internal, len(engines())+1)
	}
}

// TestServeInternalPortsWithToken: an operator who sets the service token reaches the internal
// services with it (beyond loopback), and still not without it.
func TestServeInternalPortsWithToken(t *testing.T) {
	const token = "a-service-token-for-the-test"
	addrs, _ := serveWith(t, map[string]string{"CARDROOM_LISTEN": "0.0.0.0:0", "CARDROOM_METRICS_LISTEN": "", "CARDROOM_SERVICE_TOKEN": token})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, name := range []string{"sapotagem", "stats"} {
		cc := dialLocal(t, addrs[name])
		if err := internalCall(ctx, cc, name); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("%s without the token: %v", name, err)
		}
		err := internalCall(metadata.AppendToOutgoingContext(ctx, app.ServiceTokenHeader, token), cc, name)
		if c := status.Code(err); c == codes.Unauthenticated || c == codes.Unknown || c == codes.Unavailable {
			t.Fatalf("%s with the token: %v", name, err)
		}
	}
}

// TestServeOnLoopbackNeedsNoToken: the default `make run` (loopback) keeps its internal ports open
// to local tools, as the README's grpcurl examples use them.
func TestServeOnLoopbackNeedsNoToken(t *testing.T) {
	addrs, _ := serveWith(t, nil, "--listen", "127.0.0.1:0", "--metrics-listen", "")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := statsv1.NewStatsServiceClient(dialLocal(t, addrs["stats"])).ListGames(ctx, &statsv1.ListGamesRequest{}); err != nil {
		t.Fatalf("stats on loopback: %v", err)
	}
}

// TestServeListing: the listing comes in one piece, in the README's order, and names the metrics
// address, which follows --listen (port 0: any free port) when only --listen is given.
func TestServeListing(t *testing.T) {
	_, out := serveWith(t, nil, "--listen", "127.0.0.1:0")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{"cardroom listening on", "sabaisabai", "saboteur", "sapotagem", "sponsio", "web", "stats", "metrics"}
	if len(lines) != len(want) {
		t.Fatalf("listing:\n%s", out)
	}
	for i, w := range want {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), w) {
			t.Fatalf("line %d is %q, want %q first:\n%s", i, lines[i], w, out)
		}
	}
	if !strings.Contains(lines[len(lines)-1], "http://127.0.0.1:0/metrics") {
		t.Fatalf("the metrics port did not follow --listen 127.0.0.1:0: %q", lines[len(lines)-1])
	}
}

func TestFollowListen(t *testing.T) {
	for listen, want := range map[string]string{
		"127.0.0.1:7070": "127.0.0.1:9464",
		"0.0.0.0:8080":   "127.0.0.1:10474",
		"127.0.0.1:0":    "127.0.0.1:0",
	} {
		if got, err := followListen(listen); err != nil || got != want {
			t.Errorf("followListen(%q) = %q, %v; want %q", listen, got, err, want)
		}
	}
	if _, err := followListen("127.0.0.1:65000"); err == nil || !strings.Contains(err.Error(), "--metrics-listen") {
		t.Fatalf("a metrics port out of range: %v, want the flag named", err)
	}
}

// TestServePortTakenNamesTheFlags: when a port serve needs is taken, the error says which flags
// move it.
func TestServePortTakenNamesTheFlags(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var stderr bytes.Buffer
	code := serve(t.Context(), []string{"--listen", "127.0.0.1:0", "--metrics-listen", taken.Addr().String(), "--log-level", "error"},
		func(string) string { return "" }, &bytes.Buffer{}, &stderr, nil)
	if code != 1 || !strings.Contains(stderr.String(), "--listen") || !strings.Contains(stderr.String(), "--metrics-listen") {
		t.Fatalf("serve with its metrics port taken: exit %d, %q", code, stderr.String())
	}
}
