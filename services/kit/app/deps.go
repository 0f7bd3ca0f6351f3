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

// Store opens the table store the configuration names: Redis when a URL is set, else memory.
func (a *App) Store(ctx context.Context) (store.Store, error) {
	if a.Config.RedisURL == "" {
		a.Log.Info("table store: in memory (set CARDROOM_REDIS_URL for Redis)")
		return store.NewMemory(), nil
	}
	opt, err := redis.ParseURL(a.Config.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	rdb := redis.NewClient(opt)
	if err := redisotel.InstrumentTracing(rdb); err != nil {
		return nil, fmt.Errorf("redis tracing: %w", err)
	}
	a.OnClose(func(context.Context) error { return rdb.Close() })
	if err := rdb.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("redis %s: %w", opt.Addr, err)
	}
	st, err := store.NewRedis(ctx, rdb, a.Config.RedisPrefix)
	if err != nil {
		return nil, err
	}
	a.Log.Info("table store: redis", slog.String("addr", opt.Addr))
	return st, nil
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
