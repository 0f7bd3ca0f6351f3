package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/store"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// AddRules serves eng's RulesService on its own gRPC server at addr, with its background work.
func (a *App) AddRules(eng engine.Engine, st store.Store, pub rules.Publisher, addr string) (*rules.Server, error) {
	gs, hs, err := a.NewGRPCServer(addr)
	if err != nil {
		return nil, err
	}
	srv := rules.New(eng, st, pub, rules.Options{Retain: a.Config.Retention, Logger: a.Log})
	rulesv1.RegisterRulesServiceServer(gs, srv)
	hs.SetServingStatus(rulesv1.RulesService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	a.Go(srv.Run)
	return srv, nil
}

// RulesMain is the whole main of a game's rules service: configuration from flags and CARDROOM_*
// variables, the store and bus they name, the service, and an orderly stop on SIGINT/SIGTERM.
func RulesMain(eng engine.Engine) {
	name := eng.Info().Name
	cfg, err := config.Parse(name, os.Args[1:], os.Getenv)
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
	st, err := a.Store(ctx)
	if err != nil {
		return err
	}
	b, err := a.Bus(ctx)
	if err != nil {
		return err
	}
	if _, err := a.AddRules(eng, st, b, cfg.Listen); err != nil {
		return err
	}
	a.Log.Info("serving", slog.String("game", name), slog.String("addr", a.Addr(0)))
	return a.Run(ctx)
}
