package app

import (
	"context"
	"testing"
	"time"

	"cardroom.dev/services/kit/config"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TestLifecycle: the server answers health while running; at stop, background loops end and
// closers run in reverse order of registration.
func TestLifecycle(t *testing.T) {
	a, cfg := newTestApp(t, "lifecycle")
	var order []string
	a.OnClose(func(context.Context) error { order = append(order, "first"); return nil })
	a.OnClose(func(context.Context) error { order = append(order, "second"); return nil })
	loopDone := make(chan struct{})
	a.Go(func(ctx context.Context) error { <-ctx.Done(); close(loopDone); return ctx.Err() })
	if _, _, err := a.NewGRPCServer(cfg.Listen); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()

	cc, err := grpc.NewClient(a.Addr(0), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	hctx, hcancel := context.WithTimeout(ctx, 10*time.Second)
	defer hcancel()
	resp, err := healthpb.NewHealthClient(cc).Check(hctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v %v", err, resp)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop")
	}
	select {
	case <-loopDone:
	default:
		t.Fatal("background loop still running after stop")
	}
	if len(order) < 2 || order[0] != "second" || order[1] != "first" {
		t.Fatalf("closers ran in order %v", order)
	}
}

// newTestApp is an app named name listening on free loopback ports, logging errors only.
func newTestApp(tb testing.TB, name string) (*App, config.Config) {
	tb.Helper()
	cfg, err := config.Parse(name, []string{"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--log-level", "error"}, func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	a, err := New(tb.Context(), name, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return a, cfg
}
