package stats_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/testenv"
	"cardroom.dev/services/stats"
	"cardroom.dev/services/stats/storetest"
)

var quiet = slog.New(slog.DiscardHandler)

// newBus starts an embedded NATS server and connects a bus with an in-memory stream.
func newBus(t testing.TB) *bus.Bus {
	t.Helper()
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	b, err := bus.Connect(t.Context(), ns.URL(), "stats-test", bus.Options{Memory: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func publish(t testing.TB, b *bus.Bus, msgs []bus.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i += 1000 {
		if err := b.Publish(t.Context(), msgs[i:min(i+1000, len(msgs))]); err != nil {
			t.Fatal(err)
		}
	}
}

// progress follows a consumer's position through its AfterApply hook.
type progress struct {
	mu      sync.Mutex
	pos     uint64
	changed chan struct{}
}

func newProgress() *progress { return &progress{changed: make(chan struct{})} }

func (p *progress) hook(_ context.Context, pos uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pos = pos
	close(p.changed)
	p.changed = make(chan struct{})
	return nil
}

// wait blocks until the position reaches target, failing after a deadline.
func (p *progress) wait(t testing.TB, target uint64, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		p.mu.Lock()
		pos, ch := p.pos, p.changed
		p.mu.Unlock()
		if pos >= target {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("consumer at %d after %v, want %d", pos, d, target)
		}
	}
}

// testAggregator is the aggregation of storetest's workloads.
func testAggregator() *stats.Aggregator {
	a := storetest.Aggregator()
	return &a
}

func runConsumer(t testing.TB, c *stats.Consumer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("consumer: %v", err)
		}
	}
}

type storeCase struct {
	name string
	new  func(t *testing.T) stats.Store
}

func stores(t *testing.T) []storeCase {
	return []storeCase{
		{"memory", func(*testing.T) stats.Store { return stats.NewMemory() }},
		{"redis", func(t *testing.T) stats.Store {
			rdb := testenv.Redis(t)
			st, err := stats.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
			if err != nil {
				t.Fatal(err)
			}
			return st
		}},
	}
}

// TestConsumer10000Games feeds 10,000 finished games (and malformed, unknown, duplicated and
// out-of-order events) through the real bus into both stores at once; the aggregates match the
// direct computation, and a rebuild from the stream gives exactly the same aggregates. Every game is
// a real one: played by its engine's random playout, dealt and finished by the kit's rules service
// (storetest.NewWorkload). The games are published as they are played.
func TestConsumer10000Games(t *testing.T) {
	games, reuse := 10000, 1
	if raceEnabled {
		reuse = 2 // 5,000 distinct games, each played at two tables
	}
	b := newBus(t)
	type run struct {
		sc   storeCase
		st   stats.Store
		p    *progress
		stop func()
	}
	var runs []*run
	for _, sc := range stores(t) {
		if sc.name == "redis" && !redisAvailable(t) {
			continue
		}
		r := &run{sc: sc, st: sc.new(t), p: newProgress()}
		r.stop = runConsumer(t, stats.NewConsumer(b, r.st, stats.ConsumerOptions{Aggregator: testAggregator(), Durable: "stats-" + sc.name, Logger: quiet, AfterApply: r.p.hook}))
		runs = append(runs, r)
	}
	t0 := time.Now()
	chunks := make(chan []bus.Message, 16)
	var w *storetest.Workload
	go func() {
		defer close(chunks)
		w = storetest.StreamWorkload(42, storetest.WorkloadOptions{Games: games, Faults: true, Reuse: reuse}, func(m []bus.Message) {
			select {
			case chunks <- m:
			case <-t.Context().Done(): // the test failed: let the generation end
			}
		})
	}()
	for c := range chunks {
		publish(t, b, c)
	}
	t.Logf("played and published %d games (%d distinct), %d messages in %v; moves per game %v", games, games/reuse, len(w.Msgs), time.Since(t0), movesPerGame(w))
	for _, r := range runs {
		r.p.wait(t, w.LastPublicSeq(), 2*time.Minute)
		r.stop()
		t.Logf("%s: consumed in %v", r.sc.name, time.Since(t0))
	}
	for _, r := range runs {
		t.Run(r.sc.name, func(t *testing.T) {
			storetest.Check(t, t.Context(), r.st, w)
			fresh := r.sc.new(t)
			t0 := time.Now()
			pos, err := stats.Rebuild(t.Context(), b, fresh, stats.RebuildOptions{Aggregator: testAggregator(), Logger: quiet})
			if err != nil || pos != w.LastPublicSeq() {
				t.Fatalf("rebuild to %d (%v), want %d", pos, err, w.LastPublicSeq())
			}
			t.Logf("rebuilt in %v", time.Since(t0))
			live, err := r.st.Snapshot(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			rebuilt, err := fresh.Snapshot(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			storetest.CompareSnapshots(t, live, rebuilt)
			if _, err := stats.Rebuild(t.Context(), b, fresh, stats.RebuildOptions{Aggregator: testAggregator(), Logger: quiet}); !errors.Is(err, stats.ErrNotEmpty) {
				t.Fatalf("rebuild into a used store: %v, want ErrNotEmpty", err)
			}
		})
	}
}

// movesPerGame is the mean number of moves of a workload's complete games, per game.
func movesPerGame(w *storetest.Workload) map[string]int {
	n := map[string]int{}
	for _, t := range w.Tables {
		if t.Finished != nil && !t.Finished.GetOutcome().GetAborted() {
			n[t.Game]++
		}
	}
	out := map[string]int{}
	for g, m := range w.Moves {
		out[g] = m / max(n[g], 1)
	}
	return out
}

// redisAvailable reports whether the test Redis answers (skipping a subtest is not possible
// before it starts, so the shared-bus test asks first; CARDROOM_REQUIRE_SERVICES=1 fails instead).
func redisAvailable(t *testing.T) bool {
	ok := false
	t.Run("redis-available", func(t *testing.T) {
		testenv.Redis(t)
		ok = true
	})
	return ok
}

// countRejections counts the "event rejected" log records.
type countRejections struct {
	slog.Handler
	n *atomic.Int64
}

func (h countRejections) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "event rejected" {
		h.n.Add(1)
	}
	return nil
}

func (h countRejections) Enabled(context.Context, slog.Level) bool { return true }

// TestConsumerKillAndRestart crashes the consumer after applying a batch but before acknowledging
// it, then kills it mid-stream, publishes more and starts a new one: no game is counted twice or
// missed, and each rejected event is logged once.
func TestConsumerKillAndRestart(t *testing.T) {
	games := 3000
	if raceEnabled {
		games = 1000
	}
	w := storetest.NewWorkload(9, storetest.WorkloadOptions{Games: games, Faults: true})
	half := len(w.Msgs) / 2
	for _, sc := range stores(t) {
		t.Run(sc.name, func(t *testing.T) {
			b := newBus(t)
			st := sc.new(t)
			var logged atomic.Int64
			log := slog.New(countRejections{Handler: slog.DiscardHandler, n: &logged})
			publish(t, b, w.Msgs[:half])

			p := newProgress()
			var calls atomic.Int64
			ctx, kill := context.WithCancel(context.Background())
			c1 := stats.NewConsumer(b, st, stats.ConsumerOptions{Aggregator: testAggregator(), Logger: log, Batch: 50, CacheLimit: 300, AfterApply: func(ctx context.Context, pos uint64) error {
				_ = p.hook(ctx, pos)
				switch calls.Add(1) {
				case 3, 7:
					return errors.New("crash between apply and ack")
				case 20:
					kill()
				}
				return nil
			}})
			done := make(chan error, 1)
			go func() { done <- c1.Run(ctx) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the consumer did not stop")
			}
			kill()
			mid, err := st.Position(t.Context())
			if err != nil || mid == 0 || mid >= w.LastPublicSeq() {
				t.Fatalf("killed at %d (%v), want mid-stream", mid, err)
			}

			publish(t, b, w.Msgs[half:])
			p2 := newProgress()
			stop := runConsumer(t, stats.NewConsumer(b, st, stats.ConsumerOptions{Aggregator: testAggregator(), Logger: log, CacheLimit: 1000, AfterApply: p2.hook}))
			p2.wait(t, w.LastPublicSeq(), time.Minute)
			stop()
			storetest.Check(t, t.Context(), st, w)
			var want int64
			for _, n := range w.Rejected {
				want += int64(n)
			}
			if logged.Load() != want {
				t.Errorf("%d rejections logged, want %d", logged.Load(), want)
			}
		})
	}
}
