package loadgen

import (
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/status"
)

// recorder collects the run's figures from every seat.
type recorder struct {
	actions, refusals, errors, events atomic.Int64
	legalsPushed                      atomic.Int64 // legal-action lists the streams brought
	tableActions                      atomic.Int64 // versions the tables reached
	throttled                         atomic.Int64
	started, finished                 atomic.Int64

	mu           sync.Mutex
	acts, legals []time.Duration
	refusedLat   []time.Duration
	setups       []time.Duration
	errorsByCode map[string]int64
	firstByCode  map[string]string
}

func newRecorder() *recorder {
	return &recorder{errorsByCode: map[string]int64{}, firstByCode: map[string]string{}}
}

func (r *recorder) act(d time.Duration) {
	r.actions.Add(1)
	r.mu.Lock()
	r.acts = append(r.acts, d)
	r.mu.Unlock()
}

func (r *recorder) refused(d time.Duration) {
	r.refusals.Add(1)
	r.mu.Lock()
	r.refusedLat = append(r.refusedLat, d)
	r.mu.Unlock()
}

func (r *recorder) legal(d time.Duration) {
	r.mu.Lock()
	r.legals = append(r.legals, d)
	r.mu.Unlock()
}

func (r *recorder) setup(d time.Duration) {
	r.started.Add(1)
	r.mu.Lock()
	r.setups = append(r.setups, d)
	r.mu.Unlock()
}

// reset forgets the events and lists the streams brought before the clock started (the first
// tables' deals), so that both count what the measured run brought.
func (r *recorder) reset() {
	r.events.Store(0)
	r.legalsPushed.Store(0)
}

func (r *recorder) tableFinished() { r.finished.Add(1) }
func (r *recorder) eventsSeen(n int) {
	if n > 0 {
		r.events.Add(int64(n))
	}
}
func (r *recorder) legalPushed() { r.legalsPushed.Add(1) }

func (r *recorder) fail(err error) {
	r.errors.Add(1)
	code := status.Code(err).String()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errorsByCode[code]++
	if _, ok := r.firstByCode[code]; !ok {
		r.firstByCode[code] = err.Error()
	}
}

// Report is what a run measured. Latencies are in milliseconds, as the client saw them (from
// sending the request to its answer, after the pace let it go).
type Report struct {
	Gateways        []string       `json:"gateways"`
	Games           map[string]int `json:"games"` // game → seats per table
	Tables          int            `json:"tables"`
	DurationSeconds float64        `json:"duration_s"`
	// TargetRate is the paced rate asked for (0: unpaced).
	TargetRate       float64 `json:"target_actions_per_s"`
	Actions          int64   `json:"actions"`
	ActionsPerSecond float64 `json:"actions_per_s"`
	// TableActions counts every action the tables applied, as their versions show: the seats'
	// moves and the timeouts the games applied (a paced seat may let its time run out).
	TableActions          int64   `json:"table_actions"`
	TableActionsPerSecond float64 `json:"table_actions_per_s"`
	// Refused counts actions overtaken by another seat's move at the same version (ABORTED or
	// FAILED_PRECONDITION): part of play, not errors.
	Refused int64 `json:"refused"`
	// Throttled counts calls refused by the gateway's per-player rate limit (RESOURCE_EXHAUSTED);
	// the seat paused and tried again.
	Throttled    int64             `json:"throttled"`
	Errors       int64             `json:"errors"`
	ErrorsByCode map[string]int64  `json:"errors_by_code,omitempty"`
	FirstErrors  map[string]string `json:"first_errors,omitempty"`
	Act          Latency           `json:"act_latency_ms"`
	// Legal is the ListLegalActions calls a seat made when its stream listed nothing for long (a
	// safety net: the streams list every seat's legal actions).
	Legal          Latency `json:"legal_latency_ms"`
	Setup          Latency `json:"table_setup_latency_ms"`
	TablesStarted  int64   `json:"tables_started"`
	TablesFinished int64   `json:"tables_finished"`
	Events         int64   `json:"events_received"`
	LegalsPushed   int64   `json:"legal_lists_received"`
	CPU            CPU     `json:"cpu"`
}

// Latency summarises one kind of call.
type Latency struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// CPU is the processor time spent during the measured run. Machine counts every process on this
// machine (the services, Redis, NATS and the load generator itself, when they share it); Bench is
// the load generator's own share.
type CPU struct {
	Cores                   int     `json:"cores"`
	MachineSeconds          float64 `json:"machine_s"`
	BenchSeconds            float64 `json:"bench_s"`
	MachineMicrosPerAction  float64 `json:"machine_us_per_action"`
	BenchMicrosPerAction    float64 `json:"bench_us_per_action"`
	ServiceMicrosPerAction  float64 `json:"machine_minus_bench_us_per_action"`
	MachineBusyPercent      float64 `json:"machine_busy_percent"`
	MachineCounterAvailable bool    `json:"machine_counter_available"`
}

func (r *runner) report(o Options, games []gameSeats, elapsed time.Duration, c0, c1 cpuTimes) *Report {
	rec := r.rec
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rep := &Report{
		Gateways:        o.Addrs,
		Games:           map[string]int{},
		Tables:          o.Tables,
		DurationSeconds: elapsed.Seconds(),
		TargetRate:      o.Rate,
		Actions:         rec.actions.Load(),
		TableActions:    rec.tableActions.Load(),
		Refused:         rec.refusals.Load(),
		Throttled:       rec.throttled.Load(),
		Errors:          rec.errors.Load(),
		ErrorsByCode:    maps.Clone(rec.errorsByCode),
		FirstErrors:     maps.Clone(rec.firstByCode),
		Act:             summarise(rec.acts),
		Legal:           summarise(rec.legals),
		Setup:           summarise(rec.setups),
		TablesStarted:   rec.started.Load(),
		TablesFinished:  rec.finished.Load(),
		Events:          rec.events.Load(),
		LegalsPushed:    rec.legalsPushed.Load(),
	}
	for _, g := range games {
		rep.Games[g.name] = g.seats
	}
	if elapsed > 0 {
		rep.ActionsPerSecond = float64(rep.Actions) / elapsed.Seconds()
		rep.TableActionsPerSecond = float64(rep.TableActions) / elapsed.Seconds()
	}
	cpu := CPU{
		Cores:                   runtime.NumCPU(),
		MachineSeconds:          c1.machine - c0.machine,
		BenchSeconds:            c1.self - c0.self,
		MachineCounterAvailable: c0.machineOK && c1.machineOK,
	}
	if rep.Actions > 0 {
		n := float64(rep.Actions)
		cpu.BenchMicrosPerAction = cpu.BenchSeconds / n * 1e6
		if cpu.MachineCounterAvailable {
			cpu.MachineMicrosPerAction = cpu.MachineSeconds / n * 1e6
			cpu.ServiceMicrosPerAction = (cpu.MachineSeconds - cpu.BenchSeconds) / n * 1e6
		}
	}
	if cpu.MachineCounterAvailable && elapsed > 0 {
		cpu.MachineBusyPercent = 100 * cpu.MachineSeconds / (elapsed.Seconds() * float64(cpu.Cores))
	}
	rep.CPU = cpu
	return rep
}

func summarise(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	s := sortedCopy(d)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	return Latency{
		Count: len(s),
		Mean:  ms(sum / time.Duration(len(s))),
		P50:   ms(percentile(s, 0.50)),
		P95:   ms(percentile(s, 0.95)),
		P99:   ms(percentile(s, 0.99)),
		Max:   ms(s[len(s)-1]),
	}
}

// WriteText writes the report for people.
func (rep *Report) WriteText(w io.Writer) {
	var games []string
	for _, g := range slices.Sorted(maps.Keys(rep.Games)) {
		games = append(games, fmt.Sprintf("%s (%d seats)", g, rep.Games[g]))
	}
	pace := "unpaced (as fast as answered)"
	if rep.TargetRate > 0 {
		pace = fmt.Sprintf("paced at %s actions/s", commas(rep.TargetRate))
	}
	fmt.Fprintf(w, "cardroom bench: %d tables of %s through %s, %.1f s, %s\n",
		rep.Tables, strings.Join(games, ", "), strings.Join(rep.Gateways, ", "), rep.DurationSeconds, pace)
	fmt.Fprintf(w, "  actions      %s applied, %s/s; %s overtaken by another move (refused, part of play)\n",
		commas(float64(rep.Actions)), commas(rep.ActionsPerSecond), commas(float64(rep.Refused)))
	fmt.Fprintf(w, "  table moves  %s, %s/s (the seats' actions and the games' timeouts, from the tables' versions)\n",
		commas(float64(rep.TableActions)), commas(rep.TableActionsPerSecond))
	fmt.Fprintf(w, "  act latency  p50 %.2f ms  p95 %.2f ms  p99 %.2f ms  max %.2f ms\n", rep.Act.P50, rep.Act.P95, rep.Act.P99, rep.Act.Max)
	if rep.Legal.Count > 0 {
		fmt.Fprintf(w, "  legal calls  p50 %.2f ms  p95 %.2f ms  p99 %.2f ms  (%s calls after a stream listed nothing for %s)\n",
			rep.Legal.P50, rep.Legal.P95, rep.Legal.P99, commas(float64(rep.Legal.Count)), poll)
	}
	fmt.Fprintf(w, "  tables       %d started, %d finished; table setup p50 %.1f ms  p99 %.1f ms\n", rep.TablesStarted, rep.TablesFinished, rep.Setup.P50, rep.Setup.P99)
	fmt.Fprintf(w, "  streams      %s events and %s legal-action lists received\n", commas(float64(rep.Events)), commas(float64(rep.LegalsPushed)))
	if rep.Throttled > 0 {
		fmt.Fprintf(w, "  throttled    %s calls over the per-player rate limit (paused and retried)\n", commas(float64(rep.Throttled)))
	}
	fmt.Fprintf(w, "  errors       %d", rep.Errors)
	for _, c := range slices.Sorted(maps.Keys(rep.ErrorsByCode)) {
		fmt.Fprintf(w, "  %s: %d (first: %s)", c, rep.ErrorsByCode[c], rep.FirstErrors[c])
	}
	fmt.Fprintln(w)
	c := rep.CPU
	if c.MachineCounterAvailable {
		fmt.Fprintf(w, "  cpu          %.0f µs per action on the machine (%d cores, %.0f%% busy), of which the load generator %.0f µs\n",
			c.MachineMicrosPerAction, c.Cores, c.MachineBusyPercent, c.BenchMicrosPerAction)
	} else {
		fmt.Fprintf(w, "  cpu          %.0f µs per action in the load generator (machine-wide counter unavailable)\n", c.BenchMicrosPerAction)
	}
}

// commas formats a number with thousands separators, no decimals.
func commas(f float64) string {
	s := strconv.FormatInt(int64(f+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && c != '-' && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
