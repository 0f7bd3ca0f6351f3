package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/stats"
)

const statsUsage = `usage: cardroom stats rebuild [settings]

Recomputes every stats aggregate from the first message of the event stream (--nats-url, required)
into the stats store: the Redis one (--redis-url; stop the stats service first, its aggregates are
cleared) or, without Redis, a fresh in-memory one whose figures are printed.
`

// statsCommand runs `cardroom stats rebuild`.
func statsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stdout, statsUsage)
		return 0
	}
	if len(args) == 0 || args[0] != "rebuild" {
		fmt.Fprint(stderr, statsUsage)
		return 2
	}
	cfg, err := config.Parse("cardroom stats rebuild", args[1:], getenv)
	if errors.Is(err, config.ErrHelp) {
		fmt.Fprint(stdout, statsUsage+"\nsettings:\n"+config.Usage())
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "cardroom stats rebuild: %v\nsettings:\n%s", err, config.Usage())
		return 2
	}
	if cfg.NATSURL == "" {
		fmt.Fprint(stderr, "cardroom stats rebuild: the event stream is needed: set --nats-url (CARDROOM_NATS_URL)\n")
		return 2
	}
	if err := rebuild(ctx, cfg, stdout); err != nil {
		slog.Error("stats rebuild failed", slog.Any("error", err))
		return 1
	}
	return 0
}

// withBus runs fn for a one-off command named name: an app of cfg (no metrics port) and its bus,
// closed when fn returns.
func withBus(ctx context.Context, name string, cfg config.Config, fn func(*app.App, *bus.Bus) error) error {
	cfg.MetricsListen = ""
	a, err := app.New(ctx, name, cfg)
	if err != nil {
		return err
	}
	defer func() {
		for _, err := range a.Close(context.WithoutCancel(ctx)) {
			a.Log.Warn("closing failed", slog.Any("error", err))
		}
	}()
	b, err := a.Bus(ctx)
	if err != nil {
		return err
	}
	return fn(a, b)
}

func rebuild(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	return withBus(ctx, "cardroom-stats-rebuild", cfg, func(a *app.App, b *bus.Bus) error { return rebuildStats(ctx, a, b, stdout) })
}

func rebuildStats(ctx context.Context, a *app.App, b *bus.Bus, stdout io.Writer) error {
	st, err := stats.OpenStore(ctx, a)
	if err != nil {
		return err
	}
	if r, ok := st.(*stats.Redis); ok {
		if err := r.Clear(ctx); err != nil {
			return fmt.Errorf("clear the stats store: %w", err)
		}
	}
	agg := statsAggregator()
	seq, err := stats.Rebuild(ctx, b, st, stats.RebuildOptions{Logger: a.Log, Aggregator: &agg})
	if errors.Is(err, stats.ErrNotEmpty) {
		return fmt.Errorf("the stats store is not empty: %w", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "stats rebuilt from the stream up to sequence %d\n", seq)
	games, err := st.Games(ctx)
	if err != nil {
		return err
	}
	for _, g := range games {
		c, err := st.GameCounters(ctx, g)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  %-12s %d finished, %d aborted\n", g, c["finished"], c["aborted"])
	}
	return nil
}
