package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
)

// streamWorkers is the size of a rules server's pool of call goroutines.
const streamWorkers = 32

// AddRules serves eng's RulesService on its own gRPC server at addr, with its background work:
// an internal server (NewInternalGRPCServer), closed to callers without the service token.
//
// Its calls run on a pool of long-lived goroutines (grpc.NumStreamWorkers) instead of one new
// goroutine each. A new goroutine grows its stack on every call: 8 % of the CPU in
// BenchmarkServedAct, whose CPU per action the pool cut by 6 %. Every rules call is unary and
// short, so no call holds a worker for long; when all are busy, gRPC starts a goroutine as it
// would without them.
//
// Its connections are closed after a minute (gracefully): gRPC clients re-resolve DNS only when a
// connection ends, so this is what lets callers balancing over a headless Service see replicas that
// were added since they connected. Rules calls are short and idempotent, so nothing is lost.
func (a *App) AddRules(eng engine.Engine, st store.Store, pub rules.Publisher, addr string, opts ...RulesOption) (*rules.Server, error) {
	gs, hs, err := a.NewInternalGRPCServer(addr, grpc.KeepaliveParams(keepalive.ServerParameters{
		MaxConnectionAge: time.Minute, MaxConnectionAgeGrace: 30 * time.Second,
	}), grpc.NumStreamWorkers(streamWorkers))
	if err != nil {
		return nil, err
	}
	ro := rules.Options{Retain: a.Config.Retention, Logger: a.Log}
	for _, o := range opts {
		o(&ro)
	}
	srv := rules.New(eng, st, pub, ro)
	rulesv1.RegisterRulesServiceServer(gs, srv)
	hs.SetServingStatus(rulesv1.RulesService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	a.Go(srv.Run)
	return srv, nil
}

// RulesOption tunes a rules service that AddRules serves.
type RulesOption func(*rules.Options)

// SoleRules marks the rules service as its game's only replica (rules.Options.SoleReplica): the
// all-in-one `cardroom serve`.
func SoleRules() RulesOption { return func(o *rules.Options) { o.SoleReplica = true } }

// RulesMain is the whole main of a game's rules service: configuration from flags and CARDROOM_*
// variables, the store and bus they name, the service, and an orderly stop on SIGINT/SIGTERM.
func RulesMain(eng engine.Engine) {
	name := eng.Info().Name
	cfg, err := config.Parse(name, os.Args[1:], os.Getenv)
	if errors.Is(err, config.ErrHelp) {
		fmt.Print(config.Help(name))
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\nsettings:\n%s", name, err, config.Usage())
		os.Exit(2)
	}
	ctx, stop := SignalContext(context.Background())
	defer stop()
	if err := runRules(ctx, name, cfg, eng); err != nil {
		slog.Error("rules service failed", slog.Any("error", err))
		os.Exit(1)
	}
}

func runRules(ctx context.Context, name string, cfg config.Config, eng engine.Engine) error {
	a, err := New(ctx, name, cfg)
	if err != nil {
		return err
	}
	a.Log.Info("starting", slog.Any("config", cfg))
	st, err := a.Store(ctx, eng.Info().Name)
	if err != nil {
		return err
	}
	b, err := a.Bus(ctx)
	if err != nil {
		return err
	}
	a.Tolerate("nats", "actions commit to Redis; their events wait in the outbox")
	if _, err := a.AddRules(eng, st, b, cfg.Listen); err != nil {
		return err
	}
	a.Log.Info("serving", slog.String("game", name), slog.String("addr", a.Addr(0)))
	return a.Run(ctx)
}
