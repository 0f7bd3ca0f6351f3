package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"
)

const usage = `usage: cardroom bench [flags]
Plays bot tables through running gateways and reports what they held.
  --addr A[,B...]   gateways; tables take them in turn (default 127.0.0.1:7070)
  --games G[,G...]  games to play, in turn across the tables (default: every game served)
  --tables N        tables in play at once (default 100)
  --seats N         seats per table (default 4, or the nearest the game allows)
  --duration D      length of the measured run (default 30s)
  --rate R          target applied actions per second across all tables (default 0: unpaced)
  --seed S          seed of the random choice of actions (default 1)
  --conns N         gRPC connections per gateway shared by the seats (default 4)
  --json            print the report as JSON on stdout
  --progress        show a progress bar on stderr (default: when stderr is a terminal)
  --cpuprofile F    write a CPU profile of the load generator's measured run to file F
`

// gcPercent is the collector's target when GOGC is not set.
const gcPercent = 400

// Main runs `cardroom bench` and returns the process exit code: 0 when the run had no errors, 1
// when some calls failed (the report says which), 2 for bad flags.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cardroom bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // printed below: on stderr after a bad flag, on stdout for -h
	addrs := fs.String("addr", "127.0.0.1:7070", "")
	games := fs.String("games", "", "")
	o := Options{}
	fs.IntVar(&o.Tables, "tables", 100, "")
	fs.IntVar(&o.Seats, "seats", 0, "")
	fs.DurationVar(&o.Duration, "duration", 30*time.Second, "")
	fs.Float64Var(&o.Rate, "rate", 0, "")
	fs.Uint64Var(&o.Seed, "seed", 1, "")
	fs.IntVar(&o.Conns, "conns", 4, "")
	asJSON := fs.Bool("json", false, "")
	progress := fs.Bool("progress", isTerminal(stderr), "")
	cpuprofile := fs.String("cpuprofile", "", "")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	} else if err != nil {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "cardroom bench: unexpected argument %q\n%s", fs.Arg(0), usage)
		return 2
	}
	if os.Getenv("GOGC") == "" {
		// Thousands of clients in one process allocate fast: like the services, collect at four
		// times the default headroom (GOGC, when set, wins). At the default, the collector's work
		// lengthened the latencies measured here (p99 263 ms against 138 ms at 100 actions/s
		// across 500 tables).
		debug.SetGCPercent(gcPercent)
	}
	o.Addrs = split(*addrs)
	o.Games = split(*games)
	if *progress {
		o.Progress = func(p Progress) { fmt.Fprint(stderr, "\r"+bar(p)) }
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "cardroom bench: %v\n", err)
			return 2
		}
		defer func() {
			if err := f.Close(); err != nil {
				fmt.Fprintf(stderr, "cardroom bench: cpu profile: %v\n", err)
			}
		}()
		o.CPUProfile = f
	}
	rep, err := Run(ctx, o)
	if *progress {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintf(stderr, "cardroom bench: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "cardroom bench: %v\n", err)
			return 1
		}
	} else {
		rep.WriteText(stdout)
	}
	if rep.Errors > 0 {
		return 1
	}
	return 0
}

// bar draws one line of progress: a 30-cell bar, the time, the actions and the current rate.
func bar(p Progress) string {
	const width = 30
	filled := 0
	if p.Duration > 0 {
		filled = min(width, int(float64(width)*p.Elapsed.Seconds()/p.Duration.Seconds()))
	}
	return fmt.Sprintf("[%s%s] %4.0fs/%.0fs  %s actions  %s/s  %d errors\033[K",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		p.Elapsed.Seconds(), p.Duration.Seconds(), commas(float64(p.Actions)), commas(p.Rate), p.Errors)
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
