package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"context"
	"testing"
	"time"

	"cardroom.dev/gateway"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TestHost hosts the gateway the way `cardroom serve` does: on the app's front gRPC server, the
// rules service in the same process (InProcess), the embedded NATS and the memory stores.
func TestHost(t *testing.T) {
	cfg, err := config.Parse("test", []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "warn",
		"--session-key", "a key of this test, 32 bytes long", "--absence-grace", "1h"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	a, err := app.New(ctx, "test", cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.Bus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv := rules.New(highcard.Engine(TestGame), store.NewMemory(), b, rules.Options{})
	a.Go(srv.Run)
	gs, hs, err := a.NewGRPCServer(cfg.Listen)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.Host(ctx, a, gs, hs, b, map[string]grpc.ClientConnInterface{TestGame: gateway.InProcess(srv)}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("the app did not stop")
		}
	}()
	e := &Env{T: t, Addrs: []string{a.Addr(0)}}
	ann := e.SignIn(0, "Ann")
	h, err := healthpb.NewHealthClient(DialRaw(t, a.Addr(0))).Check(ctx, &healthpb.HealthCheckRequest{Service: gatewayv1.GatewayService_ServiceDesc.ServiceName})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health %v %v", h, err)
	}
	tb := privateTable(t, ann, nil, 2, rounds(2), 0)
	w := ann.Watch(tb.GetTableId(), 0)
	defer w.Cancel()
	if ann.Play(tb.GetTableId(), w, first) == nil {
		t.FailNow()
	}
}
