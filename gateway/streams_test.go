package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"cardroom.dev/gateway"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
)

// BenchmarkWatchStreams holds 10,000 Watch streams on one gateway (100 tables, 100 spectators
// each, over 20 client connections), then plays one action at every table and measures how long
// until every stream has its event. It reports the heap per open stream (server and clients share
// the process, so this is an upper bound for the server) and the fan-out time.
func BenchmarkWatchStreams(b *testing.B) {
	const tables, perTable, conns = 100, 100, 20
	e := NewEnv(b, EnvOptions{Opt: gateway.Options{AbsenceGrace: time.Hour}})
	clients := make([]*Client, conns)
	for i := range clients {
		clients[i] = e.SignIn(0, "spectator")
	}
	type tbl struct {
		id    string
		first *Client // the seat on turn
	}
	ts := make([]tbl, tables)
	for i := range ts {
		ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
		t := privateTable(b, ann, []*Client{bob}, 0, rounds(1000), 0)
		ts[i] = tbl{id: t.GetTableId(), first: ann}
		if t.GetYourSeat() != 0 {
			ts[i].first = bob
		}
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	var ready, got sync.WaitGroup
	for i := range tables * perTable {
		c := clients[i%conns]
		ready.Add(1)
		got.Add(1)
		go func() {
			s, err := c.C.Watch(WithToken(ctx, c.Token), &gatewayv1.WatchRequest{TableId: ts[i%tables].id})
			if err != nil {
				b.Error(err)
				ready.Done()
				got.Done()
				return
			}
			// The deal's events come first (sequence 1..), then the action's.
			seen := false
			for {
				r, err := s.Recv()
				if err != nil {
					if !seen {
						got.Done()
					}
					return
				}
				if r.GetEvent().GetVersion() == 0 && r.GetEvent().GetSequence() == 1 {
					ready.Done()
				}
				if r.GetEvent().GetVersion() == 1 && !seen {
					seen = true
					got.Done()
				}
			}
		}()
	}
	ready.Wait()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	perStream := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(tables*perTable) / 1024
	b.ResetTimer()
	b.ReportMetric(perStream, "KiB/stream")
	start := time.Now()
	for _, t := range ts {
		if _, err := t.first.C.Act(t.first.Ctx(), &gatewayv1.ActRequest{TableId: t.id, Action: action("reveal"), ActionId: "x"}); err != nil {
			b.Fatal(err)
		}
	}
	got.Wait()
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "fanout-ms")
	b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
}
