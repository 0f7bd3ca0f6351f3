package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestServe starts `cardroom serve` with no external service (embedded NATS, memory store) and
// checks that it answers health and reflection, serves every game, and stops cleanly.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := make(chan map[string]string, 1)
	done := make(chan int, 1)
	var out bytes.Buffer
	go func() {
		done <- serve(ctx, []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "warn"},
			func(string) string { return "" }, &out, &bytes.Buffer{}, ready)
	}()
	var addrs map[string]string
	select {
	case addrs = <-ready:
	case code := <-done:
		t.Fatalf("serve exited with %d", code)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	for name, addr := range addrs {
		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		h, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("%s health: %v %v", name, err, h)
		}
		services := listServices(t, ctx, cc)
		if !slices.Contains(services, "grpc.health.v1.Health") {
			t.Fatalf("%s reflection lists %v", name, services)
		}
		if name == "stats" {
			if !slices.Contains(services, "cardroom.stats.v1.StatsService") {
				t.Fatalf("the stats address serves %v", services)
			}
			continue
		}
		if name == "front" {
			if !slices.Contains(services, "cardroom.gateway.v1.GatewayService") {
				t.Fatalf("the front does not serve the gateway: %v", services)
			}
			gw := gatewayv1.NewGatewayServiceClient(cc)
			in, err := gw.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: "Ada"})
			if err != nil || in.GetSessionToken() == "" {
				t.Fatalf("sign in: %v %v", err, in)
			}
			authed := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+in.GetSessionToken())
			games, err := gw.ListGames(authed, &gatewayv1.ListGamesRequest{})
			if err != nil || len(games.GetGames()) != len(engines()) {
				t.Fatalf("the gateway lists %v (%v) for %d games", games, err, len(engines()))
			}
			// A request over every limit is the gateway's refusal, not gRPC's RESOURCE_EXHAUSTED.
			huge, _ := anypb.New(wrapperspb.String(strings.Repeat("x", 2<<20)))
			_, err = gw.Act(authed, &gatewayv1.ActRequest{TableId: "t-any", Action: huge, ActionId: "a1"})
			st := status.Convert(err)
			if v, _ := firstDetail(st).(*gamev1.RuleViolation); st.Code() != codes.InvalidArgument || v.GetCode() != refusal.TooLarge {
				t.Fatalf("an oversized Act: %v %v", err, st.Details())
			}
			continue
		}
		d, err := rulesv1.NewRulesServiceClient(cc).DescribeGame(ctx, &rulesv1.DescribeGameRequest{})
		if err != nil || d.GetGame() != name {
			t.Fatalf("%s describes itself as %v (%v)", name, d, err)
		}
	}
	if len(addrs) != len(engines())+2 {
		t.Fatalf("serving %d addresses for %d games", len(addrs), len(engines()))
	}
	if !strings.Contains(out.String(), "cardroom listening on") {
		t.Fatalf("serve printed %q", out.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve stopped with %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func listServices(t *testing.T, ctx context.Context, cc *grpc.ClientConn) []string {
	t.Helper()
	stream, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.CloseSend()
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	return names
}

func firstDetail(st *status.Status) any {
	if d := st.Details(); len(d) > 0 {
		return d[0]
	}
	return nil
}
