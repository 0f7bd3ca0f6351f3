package rules_test

import (
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/redisconn"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/testenv"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/protobuf/types/known/anypb"
)

// player plays highcard tables on one server, creating a new table when one ends.
type player struct {
	srv   *rules.Server
	id    string
	n     int
	table string
	seat  uint32
	act   int
	// ctx is the callers' context (nil: context.Background()).
	ctx context.Context
}

func (p *player) next(b *testing.B) {
	ctx := p.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if p.table == "" {
		p.n++
		p.table = fmt.Sprintf("%s-%d", p.id, p.n)
		if _, err := p.srv.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: p.table, Config: tableConfig(2, 1000, 0)}); err != nil {
			b.Fatal(err)
		}
		p.seat = 0
	}
	p.act++
	resp, err := p.srv.Act(ctx, &rulesv1.ActRequest{TableId: p.table, Seat: p.seat, Action: revealOrPassTyped[p.act%2], ActionId: fmt.Sprint(p.act)})
	if err != nil {
		b.Fatal(err)
	}
	p.seat = 1 - p.seat
	if resp.GetFinished() {
		p.table = ""
	}
}

var revealOrPassTyped [2]*anypb.Any

func init() {
	// Typed once: the benchmark measures the harness, not the building of requests.
	revealOrPassTyped[0], revealOrPassTyped[1] = act("reveal"), act("pass")
}

// roundTrips counts the commands and pipelines a Redis client sends.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { r.n.Add(1); return next(ctx, cmd) }
}
func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { r.n.Add(1); return next(ctx, cmds) }
}

func benchActions(b *testing.B, srv *rules.Server, tables int) {
	benchActionsIn(b, nil, srv, tables)
}

// benchActionsIn is benchActions with the callers' context ctx (nil: context.Background()).
func benchActionsIn(b *testing.B, ctx context.Context, srv *rules.Server, tables int) {
	b.ReportAllocs()
	cpu0 := enginetest.CPUTime()
	defer func() {
		b.ReportMetric(float64(b.N)/(enginetest.CPUTime()-cpu0).Seconds(), "actions/cpu-s")
	}()
	var ids atomic.Int64
	if tables == 1 {
		p := &player{srv: srv, id: "bench", ctx: ctx}
		b.ResetTimer()
		for b.Loop() {
			p.next(b)
		}
	} else {
		b.SetParallelism((tables + 1) / 2) // GOMAXPROCS × parallelism goroutines, one table each
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			p := &player{srv: srv, id: fmt.Sprint("bench", ids.Add(1)), ctx: ctx}
			for pb.Next() {
				p.next(b)
			}
		})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
}

func newServer(st store.Store, pub rules.Publisher) *rules.Server {
	return rules.New(highcard.Engine("highcard"), st, pub, rules.Options{})
}

// BenchmarkAct measures one applied action through the harness (load, decode, validate, apply,
// encode, compare-and-set, log, publish), without gRPC.
func BenchmarkAct(b *testing.B) {
	b.Run("store=memory/bus=none", func(b *testing.B) {
		benchActions(b, newServer(store.NewMemory(), nil), 1)
	})
	b.Run("store=memory/bus=in-process", func(b *testing.B) {
		benchActions(b, newServer(store.NewMemory(), &sink{}), 1)
	})
	b.Run("store=memory/bus=in-process+live", func(b *testing.B) {
		benchActions(b, newServer(store.NewMemory(), &liveSink{}), 1)
	})
	b.Run("store=memory/bus=in-process+live/caller=unsampled", func(b *testing.B) {
		// As in cardroom serve without a trace exporter: the SDK's tracer, sampling nothing, and
		// each action under the unsampled span of its gRPC call.
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
		b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		otel.SetTracerProvider(tp)
		ctx, span := tp.Tracer("bench").Start(context.Background(), "Act")
		defer span.End()
		benchActionsIn(b, ctx, newServer(store.NewMemory(), &liveSink{}), 1)
	})
	b.Run("store=memory/bus=embedded-nats", func(b *testing.B) {
		benchActions(b, newServer(store.NewMemory(), embeddedBus(b)), 1)
	})
	for _, tables := range []int{1, 64} {
		b.Run(fmt.Sprintf("store=redis/bus=none/tables=%d", tables), func(b *testing.B) {
			rdb := testenv.Redis(b)
			redisconn.SkipConnCheck(rdb) // as the services' clients (redisconn.Options.Client)
			rt := &roundTrips{}
			rdb.AddHook(rt)
			st, err := store.NewRedis(b.Context(), rdb, testenv.Prefix(b, rdb))
			if err != nil {
				b.Fatal(err)
			}
			srv := newServer(st, nil)
			rt.n.Store(0)
			benchActions(b, srv, tables)
			// Table creation is one more round trip per 2000 actions: negligible, and counted.
			b.ReportMetric(float64(rt.n.Load())/float64(b.N), "roundtrips/action")
		})
	}
}

// sink is an in-process bus that keeps the last messages published: the harness builds and hands
// over every message as it would to NATS, without the broker's own cost.
type sink struct {
	n    int
	last []bus.Message
}

func (s *sink) Publish(_ context.Context, msgs []bus.Message) error {
	s.n += len(msgs)
	s.last = msgs
	return nil
}

// liveSink is a sink that also takes live updates, as *bus.Bus does: it copies each (the bus
// copies it into its connection's buffer) and keeps the last.
type liveSink struct {
	sink
	live []byte
}

func (s *liveSink) PublishLive(_ context.Context, _ string, data []byte) error {
	s.live = append(s.live[:0], data...)
	return nil
}

func embeddedBus(b *testing.B) *bus.Bus {
	ns, err := natsembed.Start(0, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ns.Shutdown)
	bb, err := bus.Connect(context.Background(), ns.URL(), "bench", bus.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(bb.Close)
	return bb
}
