package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// TestOneTracePerAction: every action a client makes is one trace, from the client's Act through
// the gateway, the rules service, the store and the bus to the delivery of its live update to the
// table's Watch streams; the action that ends the table reaches the stats service in the same
// trace. Spans go to an in-memory exporter.
func TestOneTracePerAction(t *testing.T) {
	ctx := t.Context()
	// After app.New, which installs the process's providers; before anything takes a tracer.
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	o := startOneApp(t, ctx, "trace-test", func() {
		otel.SetTracerProvider(tp)
		otel.SetTextMapPropagator(propagation.TraceContext{})
	})
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	a, applied, game := o.a, o.applied, testGame
	cc, err := grpc.NewClient(a.Addr(0), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tp))))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	gw := gatewayv1.NewGatewayServiceClient(cc)
	signIn := func(name string) context.Context {
		in, err := gw.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: name, Credential: &gatewayv1.SignInRequest_Device{Device: &gatewayv1.DeviceCredential{
			DeviceId: "trace-device-" + name, Secret: fmt.Sprintf("%x", sha256.Sum256([]byte(name)))}}})
		if err != nil {
			t.Fatal(err)
		}
		return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+in.GetSessionToken())
	}
	players := []context.Context{signIn("Ada"), signIn("Bob")}
	cr, err := gw.CreateTable(players[0], &gatewayv1.CreateTableRequest{Game: game, Seats: 2})
	if err != nil {
		t.Fatal(err)
	}
	table := cr.GetTableId()
	if _, err := gw.JoinTable(players[1], &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
		t.Fatal(err)
	}
	watches := make([]grpc.ServerStreamingClient[gatewayv1.WatchResponse], len(players))
	for i, p := range players {
		wctx, stop := context.WithTimeout(p, 30*time.Second)
		defer stop()
		if watches[i], err = gw.Watch(wctx, &gatewayv1.WatchRequest{TableId: table, IncludeLegalActions: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := gw.StartTable(players[0], &gatewayv1.StartTableRequest{TableId: table}); err != nil {
		t.Fatal(err)
	}
	// Each player acts whenever it may, each action in a client span of its own.
	client := tp.Tracer("client")
	var mu sync.Mutex
	var acts []trace.TraceID
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				r, err := watches[i].Recv()
				if err != nil {
					t.Errorf("player %d watch: %v", i, err)
					return
				}
				if r.GetEvent().GetPayload().MessageIs(&eventsv1.TableFinished{}) {
					return
				}
				legal := r.GetLegalActions().GetActions()
				if len(legal) == 0 {
					continue
				}
				actx, span := client.Start(p, "client.Act")
				_, err = gw.Act(actx, &gatewayv1.ActRequest{TableId: table, Action: legal[0], ActionId: fmt.Sprint(i, "-", n)})
				span.End()
				if err != nil {
					t.Errorf("player %d act: %v", i, err)
					return
				}
				mu.Lock()
				acts = append(acts, span.SpanContext().TraceID())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// The stats consumer counted the table: its span is recorded before the batch's hook runs.
	applied.waitFor(t, 30*time.Second, func() bool {
		return slices.ContainsFunc(exp.GetSpans(), func(s tracetest.SpanStub) bool { return s.Name == "stats.finished" })
	}, func() string {
		return fmt.Sprint(len(exp.GetSpans()), " spans, none stats.finished")
	})

	byTrace := map[trace.TraceID][]string{}
	var finished []trace.TraceID
	for _, s := range exp.GetSpans() {
		id := s.SpanContext.TraceID()
		byTrace[id] = append(byTrace[id], s.Name)
		if s.Name == "stats.finished" {
			finished = append(finished, id)
		}
	}
	if len(acts) == 0 {
		t.Fatal("nobody acted")
	}
	// Every action's trace runs from the client to the Watch streams' delivery.
	want := []string{"client.Act", "cardroom.gateway.v1.GatewayService/Act", "store.commit", "bus.publish", "watch.deliver"}
	for _, id := range acts {
		for _, name := range want {
			if !slices.Contains(byTrace[id], name) {
				t.Errorf("trace %s of an action has no %s span: %v", id, name, byTrace[id])
			}
		}
	}
	// The table's end reached the stats service in the trace of the action that ended it.
	if len(finished) != 1 {
		t.Fatalf("%d stats.finished spans, want 1 (the table's end)", len(finished))
	}
	if !slices.Contains(acts, finished[0]) {
		t.Fatalf("the stats.finished span is in trace %s, which no client action began: %v", finished[0], byTrace[finished[0]])
	}
}
