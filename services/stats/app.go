// Package stats is the stats service: a durable JetStream consumer that turns every game's
// TableCreated and TableFinished events into aggregates (per game, per player, ratings,
// leaderboards, live figures) kept in Redis or in memory, and the cardroom.stats.v1.StatsService
// that serves them. Each event's effect is applied exactly once: the stream position is stored
// with the aggregates and moved with them atomically. Rebuild recomputes everything from the
// stream. It knows no game: its caller names the games whose options it counts (NewAggregator).
package stats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/config"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
)

// RedisPrefix is put after the configured Redis prefix for every stats key.
const RedisPrefix = "stats:"

// OpenStore opens the aggregate store the configuration names: Redis (keys under
// <CARDROOM_REDIS_PREFIX>stats:) when a URL is set, else memory, on the app's Redis client.
func OpenStore(ctx context.Context, a *app.App) (Store, error) {
	if a.Config.RedisURL == "" {
		a.Log.Info("stats store: in memory (set CARDROOM_REDIS_URL for Redis)")
		return NewMemory(), nil
	}
	rdb, err := a.Redis(ctx)
	if err != nil {
		return nil, err
	}
	st, err := NewRedis(ctx, rdb, a.Config.RedisPrefix+RedisPrefix)
	if err != nil {
		return nil, err
	}
	a.Log.Info("stats store: redis", slog.String("prefix", a.Config.RedisPrefix+RedisPrefix))
	return st, nil
}

// AddStats serves the StatsService over st on its own gRPC server at addr (an internal one,
// closed to callers without the service token: app.NewInternalGRPCServer) and runs the durable
// consumer of b's stream into st, aggregated by agg, as a background loop of a.
func AddStats(a *app.App, st Store, b *bus.Bus, addr string, agg Aggregator) (*Server, error) {
	gs, hs, err := a.NewInternalGRPCServer(addr)
	if err != nil {
		return nil, err
	}
	srv := NewServer(st, a.Log)
	statsv1.RegisterStatsServiceServer(gs, srv)
	hs.SetServingStatus(statsv1.StatsService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	c := NewConsumer(b, st, ConsumerOptions{Logger: a.Log, Aggregator: &agg})
	a.Go(c.Run)
	return srv, nil
}

// Main is the whole main of the stats service: configuration from flags and CARDROOM_*
// variables, the store and bus they name, the consumer and the service, and an orderly stop.
// gameOptions are the prototypes of the option messages of the games it counts
// (NewAggregator).
func Main(gameOptions ...proto.Message) {
	const name = "stats"
	cfg, err := config.Parse(name, os.Args[1:], os.Getenv)
	if errors.Is(err, config.ErrHelp) {
		fmt.Print(config.Help(name))
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\nsettings:\n%s", name, err, config.Usage())
		os.Exit(2)
	}
	ctx, stop := app.SignalContext(context.Background())
	defer stop()
	if err := run(ctx, name, cfg, NewAggregator(gameOptions...)); err != nil {
		slog.Error("stats service failed", slog.Any("error", err))
		os.Exit(1)
	}
}

func run(ctx context.Context, name string, cfg config.Config, agg Aggregator) error {
	a, err := app.New(ctx, name, cfg)
	if err != nil {
		return err
	}
	a.Log.Info("starting", slog.Any("config", cfg))
	st, err := OpenStore(ctx, a)
	if err != nil {
		return err
	}
	b, err := a.Bus(ctx)
	if err != nil {
		return err
	}
	if _, err := AddStats(a, st, b, cfg.Listen, agg); err != nil {
		return err
	}
	a.Log.Info("serving", slog.String("addr", a.Addr(0)))
	return a.Run(ctx)
}
