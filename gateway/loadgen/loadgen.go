// Package loadgen is `cardroom bench`: a load generator that plays many tables at once through
// the public gateway API, the way real clients do, and reports what the system held.
//
// Every seat of every table is a client of its own: it signs in, holds a Watch stream on its
// table that also lists the seat's legal actions, and plays a random one (seeded) at the table
// version listed.
// When a table finishes, its slot starts a new one, so the number of tables in play stays
// constant for the whole run. Actions can be paced to a target rate across all tables (an
// open-loop load, as a population of players thinking between moves makes), or sent as fast as
// the system answers.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/app"
	"golang.org/x/time/rate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/status"
)

// Options shape a run.
type Options struct {
	// Addrs are the gateways; tables take them in turn.
	Addrs []string
	// Games to play, in turn across the table slots (empty: every game the gateway lists).
	Games []string
	// Tables is how many tables are in play at once.
	Tables int
	// Seats per table (0: four), or the nearest count each game allows.
	Seats int
	// Duration of the measured run, after every table slot has its first table set up.
	Duration time.Duration
	// Rate is the target of applied actions per second across all tables (0: as fast as the
	// system answers).
	Rate float64
	// Seed makes the choice of actions repeatable (for a given order of answers).
	Seed uint64
	// Conns is the number of gRPC connections per gateway the seats share (0: 4).
	Conns int
	// Progress, when set, is called about four times a second while the run is measured.
	Progress func(Progress)
	// CPUProfile, when set, receives a CPU profile of this process over the measured run (the
	// set-up of the first tables apart, as in the report's CPU figures).
	CPUProfile io.Writer
}

// Progress is a running figure.
type Progress struct {
	Elapsed, Duration time.Duration
	Actions, Errors   int64
	// Rate is the actions per second over the last second or so.
	Rate float64
}

// Run plays the load and reports it. It returns an error when the run could not start (no
// gateway, unknown game, setting up the first tables failed); errors during the run are counted
// in the report instead.
func Run(ctx context.Context, o Options) (*Report, error) {
	if len(o.Addrs) == 0 {
		return nil, errors.New("no gateway address")
	}
	if o.Tables <= 0 {
		return nil, errors.New("tables must be at least 1")
	}
	if o.Duration <= 0 {
		return nil, errors.New("duration must be positive")
	}
	if o.Conns <= 0 {
		o.Conns = 4
	}
	var conns [][]*grpc.ClientConn // by gateway, then connection
	for _, a := range o.Addrs {
		var cs []*grpc.ClientConn
		for range o.Conns {
			// gRPC's default buffer pool clears every buffer it hands out, to the top of its tier:
			// a message of over 32 KB (a Sponsio seat's list) cleared 1 MiB. The frames and
			// messages read into these buffers are written over their whole length first.
			cc, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec{})), experimental.WithBufferPool(app.Buffers()))
			if err != nil {
				return nil, fmt.Errorf("gateway %s: %w", a, err)
			}
			defer cc.Close()
			cs = append(cs, cc)
		}
		conns = append(conns, cs)
	}
	games, err := pickGames(ctx, gatewayv1.NewGatewayServiceClient(conns[0][0]), o.Games, o.Seats)
	if err != nil {
		return nil, err
	}

	r := &runner{opt: o, rec: newRecorder(), poll: pollFor(o)}
	if o.Rate > 0 {
		// A burst of a tenth of a second: the pace stays even, as many independent players make it.
		r.limit = rate.NewLimiter(rate.Limit(o.Rate), max(1, int(o.Rate/10)))
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()

	// Set every slot up before the clock starts: sign-ins and the first tables (created, joined,
	// streams open, dealt) are not the load. Tables opened later, as others finish, are.
	slots := make([]*slot, o.Tables)
	first := make([]*opened, o.Tables)
	setup := make(chan error, o.Tables)
	sem := make(chan struct{}, 32)
	for i := range slots {
		g := games[i%len(games)]
		gw := i % len(conns)
		cc := conns[gw][(i/len(conns))%o.Conns]
		slots[i] = &slot{
			r:      r,
			game:   g,
			cc:     cc,
			client: gatewayv1.NewGatewayServiceClient(cc),
			rnd:    rand.New(rand.NewPCG(o.Seed, uint64(i))),
			name:   fmt.Sprintf("bench %d", i),
		}
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			err := slots[i].signIn(runCtx)
			if err == nil {
				first[i], err = slots[i].open(runCtx)
			}
			setup <- err
		}()
	}
	for range slots {
		if err := <-setup; err != nil {
			return nil, fmt.Errorf("setting up the tables: %w", err)
		}
	}
	r.rec.reset()

	if o.CPUProfile != nil {
		if err := pprof.StartCPUProfile(o.CPUProfile); err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
	}
	cpu0 := readCPU()
	start := time.Now()
	r.start.Store(start.UnixNano())
	deadline := start.Add(o.Duration)
	// Cancelled (not a deadline) at the end: a call cut short then ends with ctx.Err() set, never
	// with a DEADLINE_EXCEEDED of its own that would look like a slow answer.
	measureCtx, cancel := context.WithCancel(runCtx)
	defer cancel()
	endTimer := time.AfterFunc(o.Duration, cancel)
	defer endTimer.Stop()

	var wg sync.WaitGroup
	for i, s := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run(measureCtx, first[i])
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if o.Progress != nil {
		go r.progress(measureCtx, done, deadline)
	}
	<-done
	elapsed := min(time.Since(start), o.Duration)
	cpu1 := readCPU()
	if o.CPUProfile != nil {
		pprof.StopCPUProfile()
	}
	return r.report(o, games, elapsed, cpu0, cpu1), nil
}

// pickGames resolves the games to play and how many seats each gets.
func pickGames(ctx context.Context, c gatewayv1.GatewayServiceClient, want []string, seats int) ([]gameSeats, error) {
	list, err := c.ListGames(ctx, &gatewayv1.ListGamesRequest{})
	if err != nil {
		return nil, fmt.Errorf("list games: %w", err)
	}
	known := map[string]*gatewayv1.GameInfo{}
	var names []string
	for _, g := range list.GetGames() {
		known[g.GetGame()] = g
		names = append(names, g.GetGame())
	}
	if len(want) == 0 {
		want = names
	}
	var out []gameSeats
	for _, name := range want {
		g, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("unknown game %q (the gateway serves %s)", name, strings.Join(names, ", "))
		}
		n := seats
		if n == 0 {
			n = 4
		}
		// The nearest count the game allows: the report says what each game was played with.
		n = min(max(n, int(g.GetMinSeats()), 2), int(g.GetMaxSeats()))
		out = append(out, gameSeats{name: name, seats: n})
	}
	if len(out) == 0 {
		return nil, errors.New("the gateway serves no game")
	}
	return out, nil
}

type gameSeats struct {
	name  string
	seats int
}

// runner is what the slots share.
type runner struct {
	opt   Options
	limit *rate.Limiter
	rec   *recorder
	start atomic.Int64
	poll  time.Duration // pollFor(opt)
}

// pace waits for the next action's turn under the target rate.
func (r *runner) pace(ctx context.Context) error {
	if r.limit == nil {
		return nil
	}
	return r.limit.Wait(ctx)
}

func (r *runner) progress(ctx context.Context, done <-chan struct{}, deadline time.Time) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	start := time.Unix(0, r.start.Load())
	type mark struct {
		at time.Time
		n  int64
	}
	var marks []mark
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case now := <-t.C:
			n := r.rec.actions.Load()
			marks = append(marks, mark{now, n})
			if len(marks) > 5 {
				marks = marks[1:]
			}
			var rt float64
			if first := marks[0]; len(marks) > 1 && now.Sub(first.at) > 0 {
				rt = float64(n-first.n) / now.Sub(first.at).Seconds()
			}
			r.opt.Progress(Progress{
				Elapsed: min(now.Sub(start), deadline.Sub(start)), Duration: deadline.Sub(start),
				Actions: n, Errors: r.rec.errors.Load(), Rate: rt,
			})
		}
	}
}

// expected reports whether an error is part of play rather than a failure: an action that lost
// the race for its version, or was overtaken by another seat's move, a timeout or the table's end.
func expected(err error) bool {
	switch status.Code(err) {
	case codes.Aborted, codes.FailedPrecondition:
		return true
	}
	return false
}

// throttled reports whether the gateway refused a call under its per-player rate limit: the
// seat slows down, and the report counts it apart from failures.
func throttled(err error) bool { return status.Code(err) == codes.ResourceExhausted }

// percentile of sorted samples, p in [0,1].
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func sortedCopy(d []time.Duration) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s
}
