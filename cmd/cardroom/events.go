package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"cardroom.dev/cmd/cardroom/internal/export"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/config"
)

const eventsUsage = `usage: cardroom events export --dir DIR [--from-seq N | --since TIME] [--batch N] [--skip-lost] [settings]
       cardroom events schema

export writes the public event stream (--nats-url, required) as Parquet tables into DIR, one table
per event kind, partitioned by game and day: DIR/game=<game>/day=<YYYY-MM-DD>/part-<kind>-<n>.parquet
(docs/events.md, "Tables for analysts"). It reads up to the last message the stream holds when it
starts, records where it stopped in DIR/_export.json, and the next run continues from there with no
gap and no duplicate. A new DIR starts at the stream's first message, or at --from-seq (a stream
sequence) or --since (RFC 3339 time, or a duration back from now such as 24h).

schema prints the columns of every table, in Markdown (docs/events-tables.md).

export flags:
  --dir DIR          the export directory (required)
  --from-seq N       a new export's first stream sequence
  --since TIME       a new export's first message time (2026-12-01T00:00:00Z, or 24h)
  --batch N          messages per commit (default 500000): a commit's files appear together
  --skip-lost        go on when the stream no longer holds the messages after DIR's position
`

// eventsCommand runs `cardroom events export`.
func eventsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stdout, eventsUsage)
		return 0
	}
	if len(args) == 1 && args[0] == "schema" {
		if err := export.WriteSchemaDoc(stdout); err != nil {
			fmt.Fprintf(stderr, "cardroom events schema: %v\n", err)
			return 1
		}
		return 0
	}
	if len(args) == 0 || args[0] != "export" {
		fmt.Fprint(stderr, eventsUsage)
		return 2
	}
	own, rest := splitExportFlags(args[1:])
	fs := flag.NewFlagSet("cardroom events export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "")
	from := fs.Uint64("from-seq", 0, "")
	since := fs.String("since", "", "")
	batch := fs.Int("batch", 0, "")
	skipLost := fs.Bool("skip-lost", false, "")
	if err := fs.Parse(own); err != nil {
		fmt.Fprintf(stderr, "cardroom events export: %v\n\n%s", err, eventsUsage)
		return 2
	}
	cfg, err := config.Parse("cardroom events export", rest, getenv)
	if errors.Is(err, config.ErrHelp) {
		fmt.Fprint(stdout, eventsUsage+"\nsettings:\n"+config.Usage())
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "cardroom events export: %v\nsettings:\n%s", err, config.Usage())
		return 2
	}
	opt := export.Options{Dir: *dir, From: *from, Batch: *batch, SkipLost: *skipLost}
	switch {
	case *dir == "":
		fmt.Fprint(stderr, "cardroom events export: --dir is required\n")
		return 2
	case cfg.NATSURL == "":
		fmt.Fprint(stderr, "cardroom events export: the event stream is needed: set --nats-url (CARDROOM_NATS_URL)\n")
		return 2
	case *since != "" && *from > 0:
		fmt.Fprint(stderr, "cardroom events export: give --from-seq or --since, not both\n")
		return 2
	case *since != "":
		if opt.Since, err = parseSince(*since, time.Now()); err != nil {
			fmt.Fprintf(stderr, "cardroom events export: --since: %v\n", err)
			return 2
		}
	}
	if err := exportEvents(ctx, cfg, opt, stdout); err != nil {
		slog.Error("events export failed", slog.Any("error", err))
		return 1
	}
	return 0
}

// exportFlags are the flags of the export itself (the others are settings); the booleans take no
// value.
var exportFlags = map[string]bool{"dir": false, "from-seq": false, "since": false, "batch": false, "skip-lost": true}

// splitExportFlags separates the export's flags (with their values) from the settings.
func splitExportFlags(args []string) (own, rest []string) {
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		boolean, ok := exportFlags[name]
		if !ok || !strings.HasPrefix(args[i], "-") {
			rest = append(rest, args[i])
			continue
		}
		own = append(own, args[i])
		if !hasValue && !boolean && i+1 < len(args) {
			i++
			own = append(own, args[i])
		}
	}
	return own, rest
}

// parseSince reads an RFC 3339 time, or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time nor a positive duration", s)
	}
	return now.Add(-d), nil
}

func exportEvents(ctx context.Context, cfg config.Config, opt export.Options, stdout io.Writer) error {
	return withBus(ctx, "cardroom-events-export", cfg, func(a *app.App, b *bus.Bus) error { return exportFrom(ctx, a, b, opt, stdout) })
}

func exportFrom(ctx context.Context, a *app.App, b *bus.Bus, opt export.Options, stdout io.Writer) error {
	opt.Logger = a.Log
	sum, err := export.Run(ctx, b, opt)
	if err != nil {
		return err
	}
	if sum.Messages == 0 {
		fmt.Fprintf(stdout, "nothing new on stream %s from sequence %d (%d lost)\n", b.Stream(), sum.From, sum.Lost)
		return nil
	}
	rate := ""
	if s := sum.Elapsed.Seconds(); s > 0 && sum.Messages > 0 {
		rate = ", " + strconv.FormatFloat(float64(sum.Messages)/s, 'f', 0, 64) + " messages/s"
	}
	fmt.Fprintf(stdout, "exported stream %s sequences %d to %d: %d messages, %d rows, %d skipped, %d lost (%v%s); next run starts at %d\n",
		b.Stream(), sum.From, sum.Next-1, sum.Messages, sum.Rows, sum.Skipped, sum.Lost, sum.Elapsed.Round(time.Millisecond), rate, sum.Next)
	return nil
}
