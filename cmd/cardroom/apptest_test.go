package main

import (
	"context"
	"testing"

	"cardroom.dev/gateway"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/stats"
	"google.golang.org/grpc"
)

// testGame is the kit's test game, which the one-app tests play.
const testGame = "highcard"

// oneApp is a whole cardroom in one app, as `cardroom serve` runs it but with the test game only:
// its rules, the gateway on the app's first listener (a.Addr(0)), and the stats consumer over a
// memory store, which calls applied after each batch.
type oneApp struct {
	a       *app.App
	stats   *stats.Memory
	applied *progress
}

// startOneApp starts a oneApp named name, running until ctx ends and the test waits for it.
// afterNew, when set, runs right after app.New, which installs the process's telemetry providers,
// and before anything takes a tracer.
func startOneApp(t *testing.T, ctx context.Context, name string, afterNew func()) *oneApp {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	cfg, err := config.Parse("test", []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "error"},
		func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(ctx, name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if afterNew != nil {
		afterNew()
	}
	tables, err := a.Store(ctx, testGame)
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.Bus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gs, hs, err := a.NewGRPCServer(cfg.Listen)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := a.AddRules(highcard.Engine(testGame), tables, b, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.Host(ctx, a, gs, hs, b, map[string]grpc.ClientConnInterface{testGame: gateway.InProcess(rs)}); err != nil {
		t.Fatal(err)
	}
	o := &oneApp{a: a, stats: stats.NewMemory(), applied: newProgress()}
	agg := statsAggregator()
	a.Go(stats.NewConsumer(b, o.stats, stats.ConsumerOptions{AfterApply: o.applied.hook, Logger: a.Log, Aggregator: &agg}).Run)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return o
}
