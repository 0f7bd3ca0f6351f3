package app

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// BenchmarkServedAct measures an action through a rules service served as the binaries serve it
// (AddRules: the app's gRPC server with its stats handler and interceptors) over loopback, with
// the memory store and no bus, from 64 tables played at once over 4 connections. cpu-µs/action is
// the whole test process's processor time (clients included) per action.
func BenchmarkServedAct(b *testing.B) { benchServedAct(b, false) }

// BenchmarkServedActSharedPort is BenchmarkServedAct with the port shared with an HTTP handler
// (HandleHTTP, as the gateway serves browsers): native gRPC must cost the same.
func BenchmarkServedActSharedPort(b *testing.B) { benchServedAct(b, true) }

func benchServedAct(b *testing.B, shared bool) {
	a, cfg := newTestApp(b, "bench")
	if _, err := a.AddRules(highcard.Engine("highcard"), store.NewMemory(), nil, cfg.Listen); err != nil {
		b.Fatal(err)
	}
	if shared {
		if err := a.HandleHTTP(a.servers[0].grpc, http.NotFoundHandler()); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(b.Context())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() { cancel(); <-done }()

	const tables, conns = 64, 4
	clients := make([]rulesv1.RulesServiceClient, conns)
	for i := range clients {
		cc, err := grpc.NewClient(a.Addr(0), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		defer cc.Close()
		clients[i] = rulesv1.NewRulesServiceClient(cc)
	}
	opts, _ := anypb.New(wrapperspb.UInt32(1000))
	acts := [2]*anypb.Any{}
	acts[0], _ = anypb.New(wrapperspb.String("reveal"))
	acts[1], _ = anypb.New(wrapperspb.String("pass"))
	create := func(c rulesv1.RulesServiceClient, id string) error {
		tc := &gamev1.TableConfig{Game: "highcard", SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_FIXED, Seed: 42, Options: opts}
		for s := range 2 {
			tc.Seats = append(tc.Seats, &gamev1.Seat{Index: uint32(s), Player: &gamev1.PlayerRef{PlayerId: fmt.Sprint("p", s)}})
		}
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		defer ccancel()
		_, err := c.CreateTable(cctx, &rulesv1.CreateTableRequest{TableId: id, Config: tc}, grpc.WaitForReady(true))
		return err
	}
	for i := range tables {
		if err := create(clients[i%conns], fmt.Sprint("t", i, "-0")); err != nil {
			b.Fatal(err)
		}
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ReportAllocs()
	cpu0 := enginetest.CPUTime()
	b.ResetTimer()
	var wg sync.WaitGroup
	for i := range tables {
		wg.Go(func() {
			c, id, games := clients[i%conns], fmt.Sprint("t", i, "-0"), 0
			for n := 0; left.Add(-1) >= 0; n++ {
				r, err := c.Act(ctx, &rulesv1.ActRequest{TableId: id, Seat: uint32(n % 2), Action: acts[n%2], ActionId: fmt.Sprint(n)})
				if err != nil {
					b.Errorf("act: %v", err)
					return
				}
				if r.GetFinished() { // a new table, set up off the clock's count of actions
					games++
					id, n = fmt.Sprint("t", i, "-", games), -1
					if err := create(c, id); err != nil {
						b.Errorf("create: %v", err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((enginetest.CPUTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/action")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
}
