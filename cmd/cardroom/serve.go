package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"syscall"

	"google.golang.org/grpc"

	"cardroom.dev/gateway"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/stats"
	"cardroom.dev/web"
)

// serve runs every service in one process. The front address (--listen) serves the gateway (the
// public API, also to browsers over gRPC-Web and Connect, and the web client at /), health and
// reflection; each game's RulesService listens on the following ports, in the order of `cardroom
// games`, then the StatsService. The gateway reaches the rules services in process; their ports are
// for operators' tools, and closed to anyone without the service token (--service-token) when
// they listen beyond loopback: with none set there, serve makes a random one, so that nothing
// outside the process reaches them. The metrics port follows --listen when only that is given.
// ready, when set, receives the addresses once everything listens (tests).
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready chan<- map[string]string) int {
	cfg, err := config.Parse("cardroom serve", args, getenv)
	if errors.Is(err, config.ErrHelp) {
		fmt.Fprint(stdout, config.Help("cardroom serve"))
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "cardroom serve: %v\nsettings:\n%s", err, config.Usage())
		return 2
	}
	if err := runServe(ctx, cfg, stdout, ready); err != nil {
		slog.Error("cardroom serve failed", slog.Any("error", err))
		if errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintf(stderr, "cardroom serve: %v\na port is taken (another cardroom?): move them all with --listen HOST:PORT (the gateway there, the rules and stats services on the next %d ports, the metrics port with them), or the metrics alone with --metrics-listen (empty: off)\n", err, len(engines())+1)
		}
		return 1
	}
	return 0
}

func runServe(ctx context.Context, cfg config.Config, stdout io.Writer, ready chan<- map[string]string) error {
	var randomToken bool
	if cfg.ServiceToken == "" && !app.IsLoopback(cfg.Listen) {
		cfg.ServiceToken, randomToken = rand.Text(), true
	}
	if cfg.Explicit("listen") && !cfg.Explicit("metrics-listen") {
		m, err := followListen(cfg.Listen)
		if err != nil {
			return err
		}
		cfg.MetricsListen = m
	}
	a, err := app.New(ctx, "cardroom", cfg)
	if err != nil {
		return err
	}
	a.Log.Info("starting", slog.Any("config", cfg))
	if randomToken {
		a.Log.Info("internal services listen beyond loopback without --service-token: they require a random token of this process, so only the gateway in it reaches them")
	}
	// The listing is printed in one piece once everything listens, not between log lines.
	var listing bytes.Buffer
	b, err := a.Bus(ctx)
	if err != nil {
		return err
	}
	gs, hs, err := a.NewGRPCServer(cfg.Listen, gateway.ServerOptions(gateway.OptionsFrom(cfg))...)
	if err != nil {
		return err
	}
	addrs := map[string]string{"front": a.Addr(0)}
	fmt.Fprintf(&listing, "cardroom listening on %s (cardroom.gateway.v1.GatewayService, health, reflection)\n", a.Addr(0))
	conns := map[string]grpc.ClientConnInterface{}
	for i, eng := range engines() {
		addr, err := nextAddr(cfg.Listen, i+1)
		if err != nil {
			return err
		}
		st, err := a.Store(ctx, eng.Info().Name)
		if err != nil {
			return err
		}
		// serve is the only replica of every service it runs: its background loops wake for
		// their own work, not to look for other replicas' (see rules.Options.SoleReplica).
		srv, err := a.AddRules(eng, st, b, addr, app.SoleRules())
		if err != nil {
			return err
		}
		name := eng.Info().Name
		conns[name] = gateway.InProcess(srv)
		addrs[name] = a.Addr(i + 1)
		fmt.Fprintf(&listing, "  %-12s rules service on %s\n", name, a.Addr(i+1))
	}
	statsStore, err := stats.OpenStore(ctx, a)
	if err != nil {
		return err
	}
	statsAddr, err := nextAddr(cfg.Listen, len(engines())+1)
	if err != nil {
		return err
	}
	statsSrv, err := stats.AddStats(a, statsStore, b, statsAddr, statsAggregator())
	if err != nil {
		return err
	}
	addrs["stats"] = a.Addr(len(engines()) + 1)
	// The gateway answers profiles and leaderboards from the stats service, in process.
	if _, err := gateway.Host(ctx, a, gs, hs, b, conns, gateway.SoleReplica(), gateway.WithStats(gateway.StatsInProcess(statsSrv))); err != nil {
		return err
	}
	if err := gateway.ServeBrowsers(a, gs, web.Handler()); err != nil {
		return err
	}
	fmt.Fprintf(&listing, "  %-12s play in a browser: http://%s/\n", "web", a.Addr(0))
	fmt.Fprintf(&listing, "  %-12s stats service on %s\n", "stats", addrs["stats"])
	if cfg.MetricsListen != "" {
		fmt.Fprintf(&listing, "  %-12s http://%s/metrics (--metrics-listen)\n", "metrics", cfg.MetricsListen)
	}
	if _, err := stdout.Write(listing.Bytes()); err != nil {
		return err
	}
	if ready != nil {
		ready <- addrs
	}
	return a.Run(ctx)
}

// followListen is the metrics address for a front address moved with --listen: the default
// metrics host (loopback), its port moved by as much as the front's (the defaults 7070 and 9464;
// port 0 stays 0), so that two instances on other ports do not both want 9464.
func followListen(listen string) (string, error) {
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return "", fmt.Errorf("listen port %q: %w", port, err)
	}
	_, defFront, _ := net.SplitHostPort(config.Default("listen"))
	mHost, defMetrics, _ := net.SplitHostPort(config.Default("metrics-listen"))
	f, _ := strconv.Atoi(defFront)
	m, _ := strconv.Atoi(defMetrics)
	if p == 0 {
		return net.JoinHostPort(mHost, "0"), nil
	}
	if q := p + m - f; q > 0 && q <= 65535 {
		return net.JoinHostPort(mHost, strconv.Itoa(q)), nil
	}
	return "", fmt.Errorf("listen port %d: the metrics port would be out of range: set --metrics-listen (CARDROOM_METRICS_LISTEN; empty turns metrics off)", p)
}

// nextAddr is listen's host with its port plus offset (port 0 stays 0: any free port).
func nextAddr(listen string, offset int) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return "", fmt.Errorf("listen port %q: %w", port, err)
	}
	if p == 0 {
		return net.JoinHostPort(host, "0"), nil
	}
	return net.JoinHostPort(host, strconv.Itoa(p+offset)), nil
}
