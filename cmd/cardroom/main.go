// Command cardroom is the one binary a newcomer runs: `cardroom serve` starts the whole system in
// one process.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"cardroom.dev/cmd/cardroom/internal/play"
	"cardroom.dev/gateway/loadgen"
	"cardroom.dev/services/kit/app"
)

const usage = `cardroom — an online card room

usage:
  cardroom serve [settings]   run every service in one process (embedded NATS, in-memory store
                              unless --redis-url / --nats-url are given)
  cardroom play <game> [...]  play in the terminal against a running cardroom (see cardroom play -h)
  cardroom bench [...]        load a running cardroom with bot tables and report actions/s,
                              latency and CPU per action (see cardroom bench -h)
  cardroom stats rebuild      recompute the stats aggregates from the event stream
  cardroom events export      write the event stream as Parquet tables for analysts, resumable
                              (see cardroom events -h)
  cardroom games              list the games this binary serves
`

func main() {
	ctx, stop := app.SignalContext(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], os.Getenv, stdout, stderr, nil)
	case "play":
		return play.Main(ctx, args[1:], os.Stdin, stdout)
	case "bench":
		return loadgen.Main(ctx, args[1:], stdout, stderr)
	case "stats":
		return statsCommand(ctx, args[1:], os.Getenv, stdout, stderr)
	case "events":
		return eventsCommand(ctx, args[1:], os.Getenv, stdout, stderr)
	case "games":
		for _, e := range engines() {
			i := e.Info()
			fmt.Fprintf(stdout, "%-12s %d-%d players\n", i.Name, i.MinSeats, i.MaxSeats)
		}
		return 0
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
	return 2
}

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h"
}
