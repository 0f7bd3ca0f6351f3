package bus_test

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPublication: the process CPU (client and embedded server, as in `cardroom serve`) per
// publication of a 600-byte message, pipelined as a busy rules service publishes: a live update
// (plain NATS, kept nowhere) that a gateway's feed receives, against a stream message (JetStream:
// stored in memory, acknowledged, with a message id) that nobody reads live. cpu-µs/op is the
// figure to compare (ns/op is the wall time on a shared machine). conn=socket connects over
// loopback TCP (an external server's way), conn=in-process through memory, as a process can connect
// to its embedded server.
func BenchmarkPublication(b *testing.B) {
	ns, err := natsembed.Start(0, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer ns.Shutdown()
	// The propagators of package telemetry: a traced caller's context goes in every header.
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	for _, inProcess := range []bool{false, true} {
		name, opt := "conn=socket", bus.Options{Memory: true}
		if inProcess {
			name, opt.InProcess = "conn=in-process", ns.InProcess()
		}
		b.Run(name, func(b *testing.B) {
			bs, err := bus.Connect(context.Background(), ns.URL(), "bench", opt)
			if err != nil {
				b.Fatal(err)
			}
			defer bs.Close()
			benchmarkPublication(b, bs)
		})
	}
}

// BenchmarkStreamSync: stream publications kept on disk (file storage, as the deployments keep
// the event stream) by a server that fsyncs every two minutes (sync=default, JetStream's default),
// every second (sync=1s) and before acknowledging each write (sync=always), pipelined as a busy
// rules service publishes (256 awaiting their acknowledgement: with 4,096, the client stalls on
// the always-syncing server). ns/op is the wall time per message: its inverse is the messages a
// second one stream takes from one publisher on this disk.
func BenchmarkStreamSync(b *testing.B) {
	data := make([]byte, 600)
	measure := func(b *testing.B, fn func()) {
		start := cpuTime(b)
		b.ResetTimer()
		fn()
		b.StopTimer()
		b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
	}
	for _, c := range []struct {
		name string
		opts []natsembed.Option
	}{
		{"sync=default", nil},
		{"sync=1s", []natsembed.Option{natsembed.SyncEvery(time.Second)}},
		{"sync=always", []natsembed.Option{natsembed.SyncAlways()}},
	} {
		opts := c.opts
		b.Run(c.name, func(b *testing.B) {
			ns, err := natsembed.Start(0, b.TempDir(), opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer ns.Shutdown()
			bs, err := bus.Connect(context.Background(), ns.URL(), "bench", bus.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer bs.Close()
			benchStreamWindow(b, bs, data, false, 256, measure)
		})
	}
}

func benchmarkPublication(b *testing.B, bs *bus.Bus) {
	data := make([]byte, 600)
	sj := bs.Subjects()
	measure := func(b *testing.B, fn func()) {
		start := cpuTime(b)
		b.ResetTimer()
		fn()
		b.StopTimer()
		b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
	}
	b.Run("live", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := make(chan struct{}, 1<<16)
		feed := bs.NewFeed(1 << 16)
		go feed.Run(ctx, func(bus.Update) { got <- struct{}{} })
		w, err := feed.Watch("bench")
		if err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		measure(b, func() {
			for range b.N {
				if err := bs.PublishLive(ctx, sj.Live("bench"), data); err != nil {
					b.Fatal(err)
				}
			}
			for range b.N {
				<-got
			}
		})
	})
	for _, traced := range []bool{false, true} {
		name := "stream"
		if traced {
			name = "stream/traced"
		}
		b.Run(name, func(b *testing.B) {
			benchStream(b, bs, data, traced, measure)
		})
	}
}

// benchStream publishes b.N stream messages as a rules service's commits do: each with its message
// id and, when traced, the trace context of the caller's span in its header.
func benchStream(b *testing.B, bs *bus.Bus, data []byte, traced bool, measure func(*testing.B, func())) {
	benchStreamWindow(b, bs, data, traced, 4096, measure)
}

// benchStreamWindow is benchStream with at most window publications awaiting their
// acknowledgement.
func benchStreamWindow(b *testing.B, bs *bus.Bus, data []byte, traced bool, window int, measure func(*testing.B, func())) {
	b.ReportAllocs()
	sj := bs.Subjects()
	ctx := context.Background()
	if traced {
		ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled}))
	}
	measure(b, func() {
		waits := make([]func(context.Context) error, 0, window)
		for i := range b.N {
			wait, err := bs.PublishAsync(ctx, []bus.Message{{Subject: sj.Public("bench"), ID: "bench:" + strconv.Itoa(i), Data: data}})
			if err != nil {
				b.Fatal(err)
			}
			if waits = append(waits, wait); len(waits) == cap(waits) {
				for _, w := range waits {
					if err := w(ctx); err != nil {
						b.Fatal(err)
					}
				}
				waits = waits[:0]
			}
		}
		for _, w := range waits {
			if err := w(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
