package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"cardroom.dev/gateway/accounts"
	"cardroom.dev/gateway/lobby"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/config"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
)

// Host serves a gateway on gs (reporting it in hs) and runs its background work on a, with the
// lobby and accounts stores a's configuration names and conns (game → its rules service). `cardroom serve`
// calls it with in-process connections (InProcess), the gateway's own main with Dial's.
func Host(ctx context.Context, a *app.App, gs *grpc.Server, hs *health.Server, b *bus.Bus, conns map[string]grpc.ClientConnInterface, opts ...HostOption) (*Server, error) {
	st, err := OpenLobby(ctx, a)
	if err != nil {
		return nil, err
	}
	opt := OptionsFrom(a.Config)
	opt.Logger = a.Log
	if opt.Accounts, err = OpenAccounts(ctx, a); err != nil {
		return nil, err
	}
	if opt.SessionKeys, err = ParseSessionKeys(a.Config.SessionKey); err != nil {
		return nil, err
	}
	if opt.TrustedProxies, err = ParseTrustedProxies(a.Config.TrustedProxies); err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(&opt)
	}
	if a.Config.RedisURL != "" {
		// Shared with the other replicas: rate limits and sign-outs (and New refuses to start
		// without a session key, unless this gateway is alone).
		if opt.Redis, err = a.Redis(ctx); err != nil {
			return nil, err
		}
		opt.RedisPrefix = a.Config.RedisPrefix
	}
	if len(opt.SessionKeys) == 0 && (opt.Redis == nil || opt.SoleReplica) {
		a.Log.Warn("no session key set (CARDROOM_SESSION_KEY): sessions are signed with a random key of this process")
	}
	if a.Config.StatsTarget != "" && opt.Stats == nil {
		cc, err := grpc.NewClient(a.Config.StatsTarget, dialOptions(a.Config.ServiceToken)...)
		if err != nil {
			return nil, fmt.Errorf("stats service at %s: %w", a.Config.StatsTarget, err)
		}
		a.OnClose(func(context.Context) error { return cc.Close() })
		opt.Stats = statsv1.NewStatsServiceClient(cc)
	}
	srv, err := New(opt, st, b, conns)
	if err != nil {
		return nil, err
	}
	srv.Register(gs, hs)
	a.Go(srv.Run)
	return srv, nil
}

// OpenLobby opens the lobby store the configuration names: Redis when a URL is set, else memory.
func OpenLobby(ctx context.Context, a *app.App) (lobby.Store, error) {
	if a.Config.RedisURL == "" {
		a.Log.Info("lobby store: in memory (set CARDROOM_REDIS_URL for Redis)")
		return lobby.NewMemory(), nil
	}
	rdb, err := a.Redis(ctx)
	if err != nil {
		return nil, err
	}
	st, err := lobby.NewRedis(ctx, rdb, a.Config.RedisPrefix)
	if err != nil {
		return nil, err
	}
	a.Log.Info("lobby store: redis", slog.String("prefix", a.Config.RedisPrefix))
	return st, nil
}

// OpenAccounts opens the accounts store the configuration names: Redis when a URL is set (keys
// under <CARDROOM_REDIS_PREFIX>gw:acct:), else memory (accounts last as long as the process).
func OpenAccounts(ctx context.Context, a *app.App) (Accounts, error) {
	if a.Config.RedisURL == "" {
		a.Log.Info("accounts store: in memory (set CARDROOM_REDIS_URL for Redis)")
		return accounts.NewMemory(), nil
	}
	rdb, err := a.Redis(ctx)
	if err != nil {
		return nil, err
	}
	st, err := accounts.NewRedis(ctx, rdb, a.Config.RedisPrefix)
	if err != nil {
		return nil, err
	}
	a.Log.Info("accounts store: redis", slog.String("prefix", a.Config.RedisPrefix))
	return st, nil
}

// A HostOption adjusts the Options that Host takes from the configuration.
type HostOption func(*Options)

// WithStats has the gateway ask stats for profiles, leaderboards and game figures (`cardroom serve`
// passes its in-process stats service, StatsInProcess).
func WithStats(stats statsv1.StatsServiceClient) HostOption {
	return func(o *Options) { o.Stats = stats }
}

// SoleReplica marks the gateway as the only one (see Options.SoleReplica): `cardroom serve`.
func SoleReplica() HostOption { return func(o *Options) { o.SoleReplica = true } }

// Main is the whole main of the distributed gateway: configuration from flags and CARDROOM_*
// variables, the bus, the rules services of CARDROOM_RULES_TARGETS, and an orderly stop.
func Main() {
	cfg, err := config.Parse("gateway", os.Args[1:], os.Getenv)
	if errors.Is(err, config.ErrHelp) {
		fmt.Print(config.Help("gateway"))
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gateway: %v\nsettings:\n%s", err, config.Usage())
		os.Exit(2)
	}
	ctx, stop := app.SignalContext(context.Background())
	defer stop()
	if err := run(ctx, cfg); err != nil {
		slog.Error("gateway failed", slog.Any("error", err))
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config.Config) error {
	a, err := app.New(ctx, "gateway", cfg)
	if err != nil {
		return err
	}
	a.Log.Info("starting", slog.Any("config", cfg))
	targets, err := ParseTargets(cfg.RulesTargets)
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		return fmt.Errorf("no rules service: set CARDROOM_RULES_TARGETS (game=target,...)")
	}
	b, err := a.Bus(ctx)
	if err != nil {
		return err
	}
	conns, closeConns, err := Dial(targets, cfg.ServiceToken)
	if err != nil {
		return err
	}
	a.OnClose(func(context.Context) error { return closeConns() })
	gs, hs, err := a.NewGRPCServer(cfg.Listen, ServerOptions(OptionsFrom(cfg))...)
	if err != nil {
		return err
	}
	if _, err := Host(ctx, a, gs, hs, b, conns); err != nil {
		return err
	}
	if err := ServeBrowsers(a, gs, nil); err != nil {
		return err
	}
	a.Log.Info("serving", slog.String("addr", a.Addr(0)))
	return a.Run(ctx)
}
