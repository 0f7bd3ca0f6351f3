package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"

	"google.golang.org/grpc"

	"cardroom.dev/gateway"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/stats"
	"cardroom.dev/web"
)

// serve runs every service in one process. The front address (--listen) serves the gateway (the
// public API, also to browsers over gRPC-Web and Connect, and the web client at /), health and reflection; each game's RulesService listens on the following ports, in
// the order of `cardroom games`, and the gateway reaches it in process. ready, when set, receives the addresses once everything listens (tests).
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
		return 1
	}
	return 0
}

func runServe(ctx context.Context, cfg config.Config, stdout io.Writer, ready chan<- map[string]string) error {
	a, err := app.New(ctx, "cardroom", cfg)
	if err != nil {
		return err
	}
	a.Log.Info("starting", slog.Any("config", cfg))
	b, err := a.Bus(ctx)
	if err != nil {
		return err
	}
	gs, hs, err := a.NewGRPCServer(cfg.Listen, gateway.ServerOptions(gateway.OptionsFrom(cfg))...)
	if err != nil {
		return err
	}
	addrs := map[string]string{"front": a.Addr(0)}
	fmt.Fprintf(stdout, "cardroom listening on %s (cardroom.gateway.v1.GatewayService, health, reflection)\n", a.Addr(0))
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
		fmt.Fprintf(stdout, "  %-12s rules service on %s\n", name, a.Addr(i+1))
	}
	statsStore, err := stats.OpenStore(ctx, a)
	if err != nil {
		return err
	}
	statsAddr, err := nextAddr(cfg.Listen, len(engines())+1)
	if err != nil {
		return err
	}
	statsSrv, err := stats.AddStats(a, statsStore, b, statsAddr)
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
	fmt.Fprintf(stdout, "  %-12s play in a browser: http://%s/\n", "web", a.Addr(0))
	fmt.Fprintf(stdout, "  %-12s stats service on %s\n", "stats", addrs["stats"])
	if ready != nil {
		ready <- addrs
	}
	return a.Run(ctx)
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
