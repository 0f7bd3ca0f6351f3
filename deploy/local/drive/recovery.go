package main

// `drive recovery` measures, from the records of a run (-record) and the times faults were
// injected, how long the service took to serve again after each fault.
//
// Definitions (docs/operations.md, "Faults"), for a fault injected at K whose target was gone (its
// port closed) at D >= K:
//
//   - A table was in play at the fault when its first call was sent before K and its TableFinished
//     had not arrived by K.
//   - Such a table is served again at the first moment the whole path has carried one of its
//     actions after the fault: an Act sent at or after D, answered OK with version v, and an event
//     of version >= v received on the table's Watch stream (the later of the answer and the event);
//     or, if earlier, the moment its TableFinished arrives. Its recovery is that moment minus K. It
//     includes whatever the game makes the player wait for (bots' moves, the deal), which the
//     "none (control)" fault, injected with nothing done, measures.
//   - A Watch stream broke at the fault when it ended with an error between K and the next fault;
//     its recovery is from K to the first event received on the stream that replaced it.
//   - Calls retried and streams resumed are counted between K and the next fault.
//   - A fault that lasts a set time (a network cut healed after 10 s) is written with "@heal" after
//     its times: its recoveries are measured from its end (up, the heal) instead of K, and a table
//     served again before the heal counts 0; and also from its start, K, which is how long its
//     tables waited (a table the cut held until the heal waited the whole cut, which the figure
//     from the heal does not show). Tables served again only after the heal are counted as
//     waiting through the cut.
//   - Acts in flight at the fault are the Act calls whose first attempt was sent before K and whose
//     final answer came after it, whatever it was: the writes the fault caught half done.

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A fault, as scripts/chaos writes it: one line "kill down up [@heal] name...", times in seconds
// since the Unix epoch with a fraction (bash's $EPOCHREALTIME); up is "-" for a process left dead.
type fault struct {
	name           string
	kill, down, up time.Time
	// heal: recoveries are measured from up, the end of a fault that lasts a set time.
	heal bool
}

// from is when the fault's recoveries start.
func (f fault) from() time.Time {
	if f.heal && !f.up.IsZero() {
		return f.up
	}
	return f.kill
}

func parseFaults(r io.Reader) ([]fault, error) {
	var out []fault
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("faults line %d: want \"kill down up name\"", n)
		}
		var ts [3]time.Time
		for i := range ts {
			if f[i] == "-" {
				continue
			}
			t, err := parseEpoch(f[i])
			if err != nil {
				return nil, fmt.Errorf("faults line %d: %w", n, err)
			}
			ts[i] = t
		}
		if ts[0].IsZero() {
			return nil, fmt.Errorf("faults line %d: no injection time", n)
		}
		if ts[1].Before(ts[0]) {
			ts[1] = ts[0]
		}
		heal := f[3] == "@heal"
		if heal {
			if len(f) < 5 || ts[2].IsZero() {
				return nil, fmt.Errorf("faults line %d: @heal wants an end time (up) and a name", n)
			}
			f = slices.Delete(f, 3, 4)
		}
		out = append(out, fault{name: strings.Join(f[3:], " "), kill: ts[0], down: ts[1], up: ts[2], heal: heal})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b fault) int { return a.kill.Compare(b.kill) })
	return out, nil
}

// parseEpoch reads "seconds[.fraction]" since the Unix epoch (no float rounding).
func parseEpoch(s string) (time.Time, error) {
	sec, frac, _ := strings.Cut(s, ".")
	si, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: %w", s, err)
	}
	var ns int64
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		ns, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("time %q: %w", s, err)
		}
	}
	return time.Unix(si, ns), nil
}

type act struct {
	sent, answered time.Time
	version        uint64
}

// span is one call's first attempt and final answer.
type span struct{ sent, answered time.Time }

type stamped struct {
	t       time.Time
	version uint64
}

// tableLog is one table's records, in time order.
type tableLog struct {
	num                int
	game, id, failed   string
	begin, finished    time.Time
	end                time.Time // the end record: done, or failed
	acts               []act     // Acts answered OK
	calls              []span    // every Act, whatever its answer
	events             []stamped // events received
	broken, resumed    []time.Time
	retries, throttled []time.Time // attempts answered UNAVAILABLE; RESOURCE_EXHAUSTED (rate limit)
}

func readRecords(r io.Reader) (map[int]*tableLog, error) {
	tables := map[int]*tableLog{}
	get := func(n int) *tableLog {
		t, ok := tables[n]
		if !ok {
			t = &tableLog{num: n}
			tables[n] = t
		}
		return t
	}
	dec := json.NewDecoder(r)
	for {
		var rec record
		if err := dec.Decode(&rec); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("records: %w", err)
		}
		t := get(rec.Table)
		at := time.Unix(0, rec.T)
		switch rec.Kind {
		case kindBegin:
			t.begin, t.game = at, rec.Game
		case kindCall:
			if rec.Call == "Act" {
				t.calls = append(t.calls, span{sent: time.Unix(0, rec.Sent), answered: at})
			}
			if rec.Call == "Act" && rec.Code == "OK" {
				t.acts = append(t.acts, act{sent: time.Unix(0, rec.Sent), answered: at, version: rec.Version})
			}
		case kindRetry:
			if rec.Code == "ResourceExhausted" {
				t.throttled = append(t.throttled, at)
			} else {
				t.retries = append(t.retries, at)
			}
		case kindEvent:
			t.events = append(t.events, stamped{at, rec.Version})
		case kindBroken:
			t.broken = append(t.broken, at)
		case kindResumed:
			t.resumed = append(t.resumed, at)
		case kindFinished:
			// With a player at every seat, each stream records it: the first counts.
			if t.finished.IsZero() || at.Before(t.finished) {
				t.finished = at
			}
			t.id = rec.ID
		case kindEnd:
			if rec.ID != "" {
				t.id = rec.ID
			}
			t.failed, t.end = rec.Err, at
		}
	}
	for _, t := range tables {
		slices.SortStableFunc(t.acts, func(a, b act) int { return a.sent.Compare(b.sent) })
		slices.SortStableFunc(t.events, func(a, b stamped) int { return a.t.Compare(b.t) })
	}
	return tables, nil
}

// never stands for a recovery that did not happen.
const never = time.Duration(math.MaxInt64)

// recovery is the table's recovery after f (from f.from()), and whether it was in play at f at
// all.
func (t *tableLog) recovery(f fault) (time.Duration, bool) {
	at, ok := t.servedAgain(f)
	if !ok {
		return 0, false
	}
	return since(at, f.from()), true
}

// since is the time from start until at, 0 when at came first, never for a zero at.
func since(at, start time.Time) time.Duration {
	if at.IsZero() {
		return never
	}
	return max(0, at.Sub(start))
}

// servedAgain is when the table was first served again after f (zero: never), and whether it was
// in play at f.
func (t *tableLog) servedAgain(f fault) (time.Time, bool) {
	if t.begin.IsZero() || !t.begin.Before(f.kill) || !t.finished.IsZero() && !t.finished.After(f.kill) ||
		!t.end.IsZero() && !t.end.After(f.kill) {
		return time.Time{}, false
	}
	var best time.Time
	if !t.finished.IsZero() {
		best = t.finished
	}
	i, _ := slices.BinarySearchFunc(t.acts, f.down, func(a act, d time.Time) int { return a.sent.Compare(d) })
	if i < len(t.acts) {
		a := t.acts[i]
		j := slices.IndexFunc(t.events, func(e stamped) bool { return e.version >= a.version && !e.t.Before(a.sent) })
		if j >= 0 {
			at := a.answered
			if t.events[j].t.After(at) {
				at = t.events[j].t
			}
			if best.IsZero() || at.Before(best) {
				best = at
			}
		}
	}
	return best, true
}

// inFlight counts the table's Act calls sent before at and answered after it.
func (t *tableLog) inFlight(at time.Time) (n int) {
	for _, c := range t.calls {
		if c.sent.Before(at) && c.answered.After(at) {
			n++
		}
	}
	return n
}

// faultReport is what one fault did.
type faultReport struct {
	Fault     string  `json:"fault"`
	Injected  string  `json:"injected"`            // RFC 3339, UTC
	FromHeal  bool    `json:"from_heal,omitempty"` // recoveries measured from the fault's end
	OutFor    float64 `json:"out_for_s,omitempty"` // restarted: from injection until it answered again
	Tables    int     `json:"tables"`              // in play at the injection
	Median    float64 `json:"median_s"`
	Worst     float64 `json:"worst_s"` // -1: a table never recovered
	Slowest   string  `json:"slowest,omitempty"`
	Failed    int     `json:"tables_failed"`
	Retried   int     `json:"calls_retried"`   // attempts answered UNAVAILABLE, repeated
	Throttled int     `json:"calls_throttled"` // attempts answered RESOURCE_EXHAUSTED (the rate limit), repeated
	Broken    int     `json:"streams_broken"`
	Resumed   int     `json:"streams_resumed"`
	SMedian   float64 `json:"stream_median_s,omitempty"`
	SWorst    float64 `json:"stream_worst_s,omitempty"` // -1: a stream never delivered again
	// For a fault that lasts (FromHeal): the same recoveries from its start, how long its tables
	// waited, and how many were served again only after the heal.
	StartMedian float64 `json:"start_median_s,omitempty"`
	StartWorst  float64 `json:"start_worst_s,omitempty"`
	Waited      int     `json:"waited_through,omitempty"`
	InFlight    int     `json:"acts_in_flight"` // Act calls sent before the injection, answered after it
}

func analyze(faults []fault, tables map[int]*tableLog) []faultReport {
	nums := make([]int, 0, len(tables))
	for n := range tables {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	var out []faultReport
	for k, f := range faults {
		end := time.Unix(1<<40, 0)
		if k+1 < len(faults) {
			end = faults[k+1].kill
		}
		in := func(ts []time.Time) (n int) {
			for _, t := range ts {
				if !t.Before(f.kill) && t.Before(end) {
					n++
				}
			}
			return n
		}
		r := faultReport{Fault: f.name, Injected: f.kill.UTC().Format(time.RFC3339Nano), FromHeal: f.heal}
		if !f.up.IsZero() {
			r.OutFor = f.up.Sub(f.kill).Seconds()
		}
		var rec, srec, start []time.Duration
		worst := time.Duration(-1)
		for _, n := range nums {
			t := tables[n]
			r.Retried += in(t.retries)
			r.Throttled += in(t.throttled)
			if t.failed != "" {
				r.Failed += in([]time.Time{t.end})
			}
			r.Resumed += in(t.resumed)
			for _, b := range t.broken {
				if b.Before(f.kill) || !b.Before(end) {
					continue
				}
				r.Broken++
				d := never
				if j := slices.IndexFunc(t.events, func(e stamped) bool { return e.t.After(b) }); j >= 0 {
					d = max(0, t.events[j].t.Sub(f.from()))
				}
				srec = append(srec, d)
			}
			at, ok := t.servedAgain(f)
			if !ok {
				continue
			}
			r.InFlight += t.inFlight(f.kill)
			d := since(at, f.from())
			rec = append(rec, d)
			if f.heal {
				start = append(start, since(at, f.kill))
				if at.IsZero() || at.After(f.up) {
					r.Waited++
				}
			}
			if d > worst {
				worst = d
				r.Slowest = fmt.Sprintf("#%d %s %s", t.num, t.game, t.id)
			}
		}
		r.Tables = len(rec)
		r.Median, r.Worst = stats(rec)
		if len(srec) > 0 {
			r.SMedian, r.SWorst = stats(srec)
		}
		if len(start) > 0 {
			r.StartMedian, r.StartWorst = stats(start)
		}
		out = append(out, r)
	}
	return out
}

// stats is the median and the maximum in seconds (-1 for never).
func stats(ds []time.Duration) (median, worst float64) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	sec := func(d time.Duration) float64 {
		if d == never {
			return -1
		}
		return d.Seconds()
	}
	n := len(s)
	if n%2 == 1 {
		median = sec(s[n/2])
	} else if s[n/2] == never {
		median = -1
	} else {
		median = (s[n/2-1].Seconds() + s[n/2].Seconds()) / 2
	}
	return median, sec(s[n-1])
}

func secs(v float64) string {
	if v < 0 {
		return "never"
	}
	return fmt.Sprintf("%.2f s", v)
}

// printReports writes the table of faults and returns the breaches of limit.
func printReports(w io.Writer, reports []faultReport, limit time.Duration) []string {
	const row = "%-58s %-12s %-7s %6s %9s %8s %8s %9s %9s %6s %6s %7s %9s %7s %8s %8s  %s\n"
	fmt.Fprintf(w, row, "fault", "injected", "out for", "tables", "in flight", "median", "worst", "start.med", "start.wst", "waited", "failed",
		"retried", "throttled", "resumed", "s.median", "s.worst", "slowest table")
	var bad []string
	over := func(v float64) bool { return v < 0 || v > limit.Seconds() }
	for _, r := range reports {
		injected := r.Injected
		if t, err := time.Parse(time.RFC3339Nano, r.Injected); err == nil {
			injected = t.Format("15:04:05.000")
		}
		out := "-"
		if r.OutFor > 0 {
			out = fmt.Sprintf("%.2f s", r.OutFor)
		}
		sm, sw := "-", "-"
		if r.Broken > 0 {
			sm, sw = secs(r.SMedian), secs(r.SWorst)
		}
		med, worst := "-", "-"
		if r.Tables > 0 {
			med, worst = secs(r.Median), secs(r.Worst)
		}
		stm, stw, waited := "-", "-", "-"
		if r.FromHeal && r.Tables > 0 {
			stm, stw, waited = secs(r.StartMedian), secs(r.StartWorst), strconv.Itoa(r.Waited)
		}
		name := r.Fault
		if r.FromHeal {
			name += " [from heal]"
		}
		fmt.Fprintf(w, row, name, injected, out, strconv.Itoa(r.Tables), strconv.Itoa(r.InFlight), med, worst, stm, stw, waited,
			strconv.Itoa(r.Failed), strconv.Itoa(r.Retried), strconv.Itoa(r.Throttled), strconv.Itoa(r.Resumed), sm, sw, r.Slowest)
		if r.Failed > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d tables failed", r.Fault, r.Failed))
		}
		switch {
		case r.Tables == 0:
			bad = append(bad, fmt.Sprintf("%s: no table was in play (it proves nothing)", r.Fault))
		case over(r.Worst):
			bad = append(bad, fmt.Sprintf("%s: table %s served again after %s (limit %s)", r.Fault, r.Slowest, secs(r.Worst), limit))
		}
		if r.Broken > 0 && over(r.SWorst) {
			bad = append(bad, fmt.Sprintf("%s: a broken Watch stream delivered again after %s (limit %s)", r.Fault, secs(r.SWorst), limit))
		}
	}
	return bad
}

// recoveryMain is `drive recovery -record FILE -faults FILE [-max 5s] [-json FILE]`.
func recoveryMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("drive recovery", flag.ContinueOnError)
	fs.SetOutput(stderr)
	recordFile := fs.String("record", "", "records written by drive -record")
	faultsFile := fs.String("faults", "", `faults, one a line: "kill down up name" (Unix seconds with a fraction; "-" for none)`)
	limit := fs.Duration("max", 5*time.Second, "longest recovery allowed (table or stream) after any fault")
	jsonOut := fs.String("json", "", "also write one JSON line per fault to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int { fmt.Fprintln(stderr, "drive recovery:", err); return 2 }
	ff, err := os.Open(*faultsFile)
	if err != nil {
		return fail(err)
	}
	defer ff.Close()
	faults, err := parseFaults(ff)
	if err != nil {
		return fail(err)
	}
	rf, err := os.Open(*recordFile)
	if err != nil {
		return fail(err)
	}
	defer rf.Close()
	tables, err := readRecords(rf)
	if err != nil {
		return fail(err)
	}
	reports := analyze(faults, tables)
	if *jsonOut != "" {
		jf, err := os.Create(*jsonOut)
		if err != nil {
			return fail(err)
		}
		enc := json.NewEncoder(jf)
		for _, r := range reports {
			_ = enc.Encode(r)
		}
		if err := jf.Close(); err != nil {
			return fail(err)
		}
	}
	bad := printReports(stdout, reports, *limit)
	for _, b := range bad {
		fmt.Fprintln(stdout, "over the limit:", b)
	}
	if len(bad) > 0 {
		return 1
	}
	return 0
}
