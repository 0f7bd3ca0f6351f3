package app

import (
	"context"
	"fmt"
	"log/slog"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/store"
	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
)

// Redis returns the process's Redis client for the configured URL, opening it (traced, pinged,
// closed with the app) on first use; every store of the process shares it. Call it only when
// Config.RedisURL is set.
func (a *App) Redis(ctx context.Context) (*redis.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rdb != nil {
		return a.rdb, nil
	}
	opt, err := redis.ParseURL(a.Config.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	rdb := redis.NewClient(opt)
	if err := redisotel.InstrumentTracing(rdb); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redis tracing: %w", err)
	}
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redis %s: %w", opt.Addr, err)
	}
	a.closers = append(a.closers, func(context.Context) error { return rdb.Close() })
	a.rdb = rdb
	a.Log.Info("redis connected", slog.String("addr", opt.Addr))
	return rdb, nil
}

// Store opens the table store the configuration names: Redis when a URL is set, else memory.
func (a *App) Store(ctx context.Context) (store.Store, error) {
	if a.Config.RedisURL == "" {
		a.Log.Info("table store: in memory (set CARDROOM_REDIS_URL for Redis)")
		return store.NewMemory(), nil
	}
	rdb, err := a.Redis(ctx)
	if err != nil {
		return nil, err
	}
	return store.NewRedis(ctx, rdb, a.Config.RedisPrefix)
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
		a.Log.Info("event bus: NATS", slog.String("url", config.Redact(url)))
	}
	b, err := bus.Connect(ctx, url, a.Name, bus.Options{Logger: a.Log})
	if err != nil {
		return nil, err
	}
	a.OnClose(func(context.Context) error { b.Close(); return nil })
	return b, nil
}
