package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/redisconn"
	"cardroom.dev/services/kit/store"
	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
)

// Redis returns the process's Redis client for the configured URL (one server, Sentinel or
// Cluster: see package redisconn), opening it (traced, pinged, closed with the app) on first use;
// every store of the process shares it. Call it only when Config.RedisURL is set.
func (a *App) Redis(ctx context.Context) (redis.UniversalClient, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rdb != nil {
		return a.rdb, nil
	}
	rdb, opt, err := redisconn.Open(a.Config.RedisURL)
	if err != nil {
		return nil, err
	}
	// Commands are traced only when traces are exported: otherwise no span would be recorded, and
	// starting one per command still costs. The caller's file and line are left out: finding them
	// walks the stack at every command.
	if a.tel.Exporting {
		if err := redisotel.InstrumentTracing(rdb, redisotel.WithCallerEnabled(false)); err != nil {
			_ = rdb.Close()
			return nil, fmt.Errorf("redis tracing: %w", err)
		}
	}
	addrs := strings.Join(opt.Addrs, ",")
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redis %s %s: %w", opt.Kind, addrs, err)
	}
	a.closers = append(a.closers, func(context.Context) error { return rdb.Close() })
	a.deps = append(a.deps, dependency{name: "redis", check: func(ctx context.Context) error { return rdb.Ping(ctx).Err() }})
	a.rdb = rdb
	a.Log.Info("redis connected", slog.String("kind", string(opt.Kind)), slog.String("addr", addrs))
	return rdb, nil
}

// Store opens game's table store as the configuration names it: Redis when a URL is set, else
// memory. Each game has a store of its own (in Redis, its keys under "<prefix><game>:"), so that the
// deadlines a replica claims are always of its own game's tables: a replica of another game could
// not load them, and holding their claim would delay their timeouts.
func (a *App) Store(ctx context.Context, game string) (store.Store, error) {
	if a.Config.RedisURL == "" {
		a.Log.Info("table store: in memory (set CARDROOM_REDIS_URL for Redis)", slog.String("game", game))
		return store.NewMemory(), nil
	}
	rdb, err := a.Redis(ctx)
	if err != nil {
		return nil, err
	}
	return store.NewRedis(ctx, rdb, a.Config.RedisPrefix+game+":")
}

// Bus connects to the configured NATS, or starts an embedded one with JetStream.
func (a *App) Bus(ctx context.Context) (*bus.Bus, error) {
	url := a.Config.NATSURL
	if url == "" {
		ns, err := natsembed.Start(0, a.Config.NATSDir)
		if err != nil {
			return nil, err
		}
		a.OnClose(func(context.Context) error { ns.Shutdown(); return nil })
		url = ns.URL()
		a.Log.Info("event bus: embedded NATS (set CARDROOM_NATS_URL for an external one)", slog.String("url", url))
	} else {
		a.Log.Info("event bus: NATS", slog.String("url", config.Redact(url)), slog.String("prefix", a.Config.NATSPrefix))
	}
	b, err := bus.Connect(ctx, url, a.Name, bus.Options{Prefix: a.Config.NATSPrefix, Logger: a.Log})
	if err != nil {
		return nil, err
	}
	a.OnClose(func(context.Context) error { b.Close(); return nil })
	a.Depend("nats", func(context.Context) error { return b.Healthy() })
	return b, nil
}
