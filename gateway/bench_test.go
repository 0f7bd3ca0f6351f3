package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine/enginetest"
)

// BenchmarkGatewayAct plays actions through the gateway (gRPC over loopback) into one rules
// replica, with the Redis stores and the embedded NATS, on 64 tables at once. It reports
// actions/s and the 99th percentile of an action's latency as the client sees it.
func BenchmarkGatewayAct(b *testing.B) { benchActs(b, false) }

// BenchmarkRulesAct is the same load sent straight to the rules service (no gateway): the
// difference is the gateway's cost.
func BenchmarkRulesAct(b *testing.B) { benchActs(b, true) }

func benchActs(b *testing.B, direct bool) {
	const tables = 64
	e := NewEnv(b, EnvOptions{Redis: true, Opt: gateway.Options{AbsenceGrace: time.Hour, DriveInterval: 250 * time.Millisecond}})
	type tableRun struct {
		id      string
		players [2]*Client // by seat
	}
	runs := make([]*tableRun, tables)
	for i := range runs {
		ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
		tb := privateTable(b, ann, []*Client{bob}, 0, rounds(1000), 0)
		r := &tableRun{id: tb.GetTableId()}
		r.players[tb.GetYourSeat()] = ann
		r.players[1-tb.GetYourSeat()] = bob
		runs[i] = r
	}
	lat := make([][]time.Duration, tables)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	eachTable(b, tables, func(i, n int) error {
		r := runs[i]
		c := r.players[n%2]
		t0 := time.Now()
		var err error
		if direct {
			_, err = e.RulesClient.Act(b.Context(), &rulesv1.ActRequest{TableId: r.id, Seat: uint32(n % 2), Action: action("reveal"), ActionId: fmt.Sprint(n)})
		} else {
			_, err = c.C.Act(c.Ctx(), &gatewayv1.ActRequest{TableId: r.id, Action: action("reveal"), ActionId: fmt.Sprint(n)})
		}
		lat[i] = append(lat[i], time.Since(t0))
		return err
	})
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(len(all))/elapsed.Seconds(), "actions/s")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkWatch measures what the gateway spends delivering tables' events and legal actions to
// Watch streams: 64 two-seat tables, both seats watching with include_legal_actions, actions sent
// straight to the rules replica; each action waits until both streams have shown its version, as a
// client reacting to its stream would. batch=true watches with WatchRequest.batch (one message per
// table change instead of one per event and one per list). cpu-µs/action is the whole test
// process's CPU (gateway, rules replica, embedded NATS, clients) per action; Redis is apart.
func BenchmarkWatch(b *testing.B) {
	for _, batch := range []bool{false, true} {
		b.Run(fmt.Sprint("batch=", batch), func(b *testing.B) { benchWatch(b, batch) })
	}
}

func benchWatch(b *testing.B, batch bool) {
	const tables = 64
	e := NewEnv(b, EnvOptions{Redis: true, Opt: gateway.Options{AbsenceGrace: time.Hour, DriveInterval: 250 * time.Millisecond}})
	type seatStream struct {
		version atomic.Uint64
		wake    chan struct{}
	}
	type tableRun struct {
		id      string
		streams [2]*seatStream
	}
	var messages atomic.Int64
	runs := make([]*tableRun, tables)
	for i := range runs {
		ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
		r := &tableRun{id: privateTable(b, ann, []*Client{bob}, 0, rounds(1000), 0).GetTableId()}
		// From the start of the log: the deal's events come first.
		for k, c := range []*Client{ann, bob} {
			s, err := c.C.Watch(c.Ctx(), &gatewayv1.WatchRequest{TableId: r.id, IncludeLegalActions: true, Batch: batch})
			if err != nil {
				b.Fatal(err)
			}
			ss := &seatStream{wake: make(chan struct{}, 1)}
			r.streams[k] = ss
			go func() {
				for {
					m, err := s.Recv()
					if err != nil {
						return
					}
					messages.Add(1)
					v := m.GetEvent().GetVersion()
					for _, ev := range m.GetEvents() {
						v = max(v, ev.GetVersion())
					}
					if v > ss.version.Load() {
						ss.version.Store(v)
						select {
						case ss.wake <- struct{}{}:
						default:
						}
					}
				}
			}()
		}
		runs[i] = r
	}
	b.ReportAllocs()
	b.ResetTimer()
	messages.Store(0)
	cpu0 := enginetest.CPUTime()
	start := time.Now()
	eachTable(b, tables, func(i, n int) error {
		r := runs[i]
		resp, err := e.RulesClient.Act(b.Context(), &rulesv1.ActRequest{TableId: r.id, Seat: uint32(n % 2), Action: action("reveal"), ActionId: fmt.Sprint(n)})
		if err != nil {
			return err
		}
		for _, ss := range r.streams {
			for ss.version.Load() < resp.GetVersion() {
				select {
				case <-ss.wake:
				case <-time.After(10 * time.Second):
					return fmt.Errorf("a stream did not show version %d", resp.GetVersion())
				}
			}
		}
		return nil
	})
	elapsed := time.Since(start)
	cpu := enginetest.CPUTime() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "actions/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/action")
	b.ReportMetric(float64(messages.Load())/float64(b.N), "messages/action")
}

// eachTable spends b.N actions across tables, one goroutine per table, at most 2,000 at a table (a
// game of 1,000 rounds of two moves): act plays table i's move n. A failed move ends its table.
func eachTable(b *testing.B, tables int, act func(i, n int) error) {
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	for i := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 2000 && left.Add(-1) >= 0; n++ {
				if err := act(i, n); err != nil {
					b.Errorf("act: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
