package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

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
	opt, err := redisconn.Parse(a.Config.RedisURL)
	if err != nil {
		return nil, err
	}
	ride, ok := rideOutFor(opt, a.Config.RedisURL)
	rdb := opt.Client()
	if ok {
		if cc, cluster := rdb.(*redis.ClusterClient); cluster {
			ride.reroute = cc.ReloadState
		}
		rdb.AddHook(ride)
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
	a.rdbWait = opt.Wait
	attrs := []any{slog.String("kind", string(opt.Kind)), slog.String("addr", addrs)}
	if opt.Wait.Replicas > 0 {
		attrs = append(attrs, slog.Int("wait_replicas", opt.Wait.Replicas), slog.Duration("wait_timeout", opt.Wait.Timeout))
	}
	a.Log.Info("redis connected", attrs...)
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
	a.mu.Lock()
	wait := a.rdbWait
	a.mu.Unlock()
	return store.NewRedisWith(ctx, rdb, a.Config.RedisPrefix+game+":", store.RedisOptions{WaitReplicas: wait.Replicas, WaitTimeout: wait.Timeout})
}

// Bus connects to the configured NATS, or starts an embedded one with JetStream.
func (a *App) Bus(ctx context.Context) (*bus.Bus, error) {
	url := a.Config.NATSURL
	// An embedded server on a temporary directory keeps nothing after this process.
	transient := url == "" && a.Config.NATSDir == ""
	if url == "" {
		ns, err := natsembed.Start(0, a.Config.NATSDir)
		if err != nil {
			return nil, err
		}
		a.OnClose(func(context.Context) error { ns.Shutdown(); return nil })
		url = ns.URL()
		a.Log.Info("event bus: embedded NATS (set CARDROOM_NATS_URL for an external one)", slog.String("url", url))
	} else {
		a.Log.Info("event bus: NATS", slog.String("url", config.Redact(url)), slog.String("prefix", a.Config.NATSPrefix), slog.Int("replicas", a.Config.NATSReplicas))
	}
	b, err := bus.Connect(ctx, url, a.Name, bus.Options{Prefix: a.Config.NATSPrefix, Replicas: a.Config.NATSReplicas, Transient: transient, Logger: a.Log})
	if err != nil {
		return nil, err
	}
	a.OnClose(func(context.Context) error { b.Close(); return nil })
	a.Depend("nats", func(context.Context) error { return b.Healthy() })
	return b, nil
}

// rideOutDefault makes the client ride out a Redis restart (a few seconds, during which Redis
// refuses connections, then answers LOADING while it reads its append-only file) instead of
// giving up after three quick tries (about 0.1 s): the rideOut hook sends a command again on a new
// connection for up to 4 s, backing off up to 250 ms (or the URL's max_retry_backoff), and the
// client's own retries are off. A script repeated after its answer was lost applies nothing twice:
// commits compare and set the version and remember action ids (the repeat is answered from the
// log), a repeated create finds its table (ALREADY_EXISTS, which the gateway's deal accepts), the
// drive claim remembers its token; a repeated deadline claim finds nothing and the deadline waits
// for the lease. A URL that sets max_retries keeps the client's own retries instead, and no hook.
func rideOutDefault(opt *redis.Options, rawURL string) (rideOut, bool) {
	q := ""
	if u, err := url.Parse(rawURL); err == nil {
		q = u.RawQuery
	}
	if strings.Contains(q, "max_retries=") {
		return rideOut{}, false
	}
	backoff := 250 * time.Millisecond
	if strings.Contains(q, "max_retry_backoff=") {
		backoff = opt.MaxRetryBackoff
	}
	opt.MaxRetries = -1
	return rideOut{budget: 4 * time.Second, maxBackoff: backoff}, true
}

// rideOutFor is rideOutDefault for a client of any kind the URL selects; on a cluster the hook
// sends a command again through the cluster client, which routes it anew once it has reloaded the
// slot map (Redis sets reroute: a failover moves a primary's slots to its replica).
func rideOutFor(o redisconn.Options, rawURL string) (rideOut, bool) {
	switch o.Kind {
	case redisconn.Sentinel:
		tmp := &redis.Options{MaxRetries: o.Sentinel.MaxRetries, MaxRetryBackoff: o.Sentinel.MaxRetryBackoff}
		h, ok := rideOutDefault(tmp, rawURL)
		o.Sentinel.MaxRetries = tmp.MaxRetries
		return h, ok
	case redisconn.Cluster:
		tmp := &redis.Options{MaxRetries: o.Cluster.MaxRetries, MaxRetryBackoff: o.Cluster.MaxRetryBackoff}
		h, ok := rideOutDefault(tmp, rawURL)
		o.Cluster.MaxRetries = tmp.MaxRetries
		// A dead primary's address is dialed once per try, not five times 100 ms apart: the
		// cluster client tries a command up to four times before the hook reloads the slot map,
		// and each wasted dial delays the move to the promoted replica (1.8 s after the promotion
		// with five dials, in TestRideOutClusterFailover on a loaded machine).
		if ok && !strings.Contains(rawURL, "dialer_retries=") {
			o.Cluster.DialerRetries = 1
		}
		return h, ok
	default:
		return rideOutDefault(o.Single, rawURL)
	}
}
