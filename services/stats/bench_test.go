package stats_test

import (
	"context"
	"testing"
	"time"

	"cardroom.dev/services/kit/testenv"
	"cardroom.dev/services/stats"
	"cardroom.dev/services/stats/storetest"
)

var benchBatch = 1000

// consumeBatch is the consumer's default.
var consumeBatch = 0

// benchWorkload is a stream of finished games (real ones, see storetest.NewWorkload); b.N games
// are fed per run.
func benchWorkload(b *testing.B) *storetest.Workload {
	return storetest.NewWorkload(1, storetest.WorkloadOptions{Games: max(b.N, 100)})
}

func redisStore(b *testing.B) stats.Store {
	rdb := testenv.Redis(b)
	st, err := stats.NewRedis(b.Context(), rdb, testenv.Prefix(b, rdb))
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkApply measures aggregation alone: batches of 1000 stream messages into a store.
func BenchmarkApply(b *testing.B) {
	for _, sc := range []struct {
		name string
		new  func(b *testing.B) stats.Store
	}{{"memory", func(*testing.B) stats.Store { return stats.NewMemory() }}, {"redis", redisStore}} {
		b.Run(sc.name, func(b *testing.B) {
			w := benchWorkload(b)
			msgs := w.Public()
			st := sc.new(b)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < len(msgs); i += benchBatch {
				if _, err := stats.ApplyBatch(b.Context(), st, w.Aggregator(), msgs[i:min(i+benchBatch, len(msgs))], quiet); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(msgs))/time.Since(start).Seconds(), "events/s")
		})
	}
}

// BenchmarkConsume measures the whole path against the local Redis: the durable consumer reading
// an embedded NATS stream already holding the events, aggregating into Redis. "lifecycle" is the
// worst case (about 60% of the events are TableCreated/TableFinished); "mixed" adds up to 30 public
// events of each table's moves, which are read and skipped, closer to a real stream.
func BenchmarkConsume(b *testing.B) {
	for _, bc := range []struct {
		name       string
		gameEvents int
	}{{"lifecycle", 0}, {"mixed", 30}} {
		b.Run(bc.name, func(b *testing.B) {
			w := storetest.NewWorkload(1, storetest.WorkloadOptions{Games: max(b.N, 100), GameEvents: bc.gameEvents})
			bs := newBus(b)
			publish(b, bs, w.Msgs)
			msgs := w.Public()
			st := redisStore(b)
			p := newProgress()
			c := stats.NewConsumer(bs, st, stats.ConsumerOptions{Aggregator: testAggregator(), Logger: quiet, Batch: consumeBatch, AfterApply: p.hook})
			b.ResetTimer()
			start := time.Now()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- c.Run(ctx) }()
			p.wait(b, w.LastPublicSeq(), 5*time.Minute)
			el := time.Since(start)
			cancel()
			<-done
			b.ReportMetric(float64(len(msgs))/el.Seconds(), "events/s")
		})
	}
}
