package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7070": true, "127.0.2.11:7070": true, "[::1]:7070": true, "localhost:7070": true,
		"0.0.0.0:7070": false, ":7070": false, "[::]:7070": false, "10.0.0.5:7070": false, "rules:7070": false, "nonsense": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}

// TestInternalServiceBeyondLoopbackNeedsToken: a rules service (as the distributed mode's
// binaries run it) does not start on every interface without a service token; with one it
// refuses calls without it, answers calls with it (ServiceCredentials, as the gateway dials), and
// answers health checks either way.
func TestInternalServiceBeyondLoopbackNeedsToken(t *testing.T) {
	newApp := func(args ...string) *App {
		cfg, err := config.Parse("rules", append([]string{"--metrics-listen", "", "--log-level", "error"}, args...), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		a, err := New(t.Context(), "rules", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := newApp("--listen", "0.0.0.0:0")
	if _, err := a.AddRules(highcard.Engine("highcard"), store.NewMemory(), nil, a.Config.Listen); err == nil || !strings.Contains(err.Error(), "CARDROOM_SERVICE_TOKEN") {
		t.Fatalf("a rules service on 0.0.0.0 without a token: %v, want a refusal naming the setting", err)
	}

	const token = "s3cret-token"
	a = newApp("--listen", "0.0.0.0:0", "--service-token", token)
	if _, err := a.AddRules(highcard.Engine("highcard"), store.NewMemory(), nil, a.Config.Listen); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() { cancel(); <-done }()
	port := a.Addr(0)[strings.LastIndex(a.Addr(0), ":"):]
	call := func(opts ...grpc.DialOption) error {
		cc, err := grpc.NewClient("127.0.0.1"+port, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		if h, err := healthpb.NewHealthClient(cc).Check(cctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health: %v %v", h, err)
		}
		_, err = rulesv1.NewRulesServiceClient(cc).DescribeGame(cctx, &rulesv1.DescribeGameRequest{})
		return err
	}
	if err := call(); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("without the token: %v", err)
	}
	if err := call(grpc.WithPerRPCCredentials(ServiceCredentials("wrong"))); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("with a wrong token: %v", err)
	}
	if err := call(grpc.WithPerRPCCredentials(ServiceCredentials(token))); err != nil {
		t.Fatalf("with the token: %v", err)
	}
}

func TestProfilesOnlyToLoopback(t *testing.T) {
	h := loopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	for remote, want := range map[string]int{"127.0.0.1:5000": 200, "[::1]:5000": 200, "10.1.2.3:5000": 403, "[fd00::1]:5000": 403} {
		r := httptest.NewRequest(http.MethodGet, "/debug/pprof/", nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("from %s: %d, want %d", remote, w.Code, want)
		}
	}
}
