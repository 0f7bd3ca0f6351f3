package gateway_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
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
	e := newEnv(b, envOptions{redis: true, opt: gateway.Options{AbsenceGrace: time.Hour, DriveInterval: 250 * time.Millisecond}})
	type tableRun struct {
		id      string
		players [2]*client // by seat
	}
	runs := make([]*tableRun, tables)
	for i := range runs {
		ann, bob := e.signIn(0, "Ann"), e.signIn(0, "Bob")
		cr, err := ann.c.CreateTable(ann.ctx(), &gatewayv1.CreateTableRequest{Game: game, Seats: 2, Options: rounds(1000)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bob.c.JoinTable(bob.ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
			b.Fatal(err)
		}
		sr, err := ann.c.StartTable(ann.ctx(), &gatewayv1.StartTableRequest{TableId: cr.GetTableId()})
		if err != nil {
			b.Fatal(err)
		}
		r := &tableRun{id: cr.GetTableId()}
		r.players[sr.GetTable().GetYourSeat()] = ann
		r.players[1-sr.GetTable().GetYourSeat()] = bob
		runs[i] = r
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	lat := make([][]time.Duration, tables)
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; left.Add(-1) >= 0; n++ {
				if n == 2000 {
					return // the table is over: 1000 rounds of two moves
				}
				c := r.players[n%2]
				t0 := time.Now()
				var err error
				if direct {
					_, err = e.rules.Act(b.Context(), &rulesv1.ActRequest{TableId: r.id, Seat: uint32(n % 2), Action: action("reveal"), ActionId: fmt.Sprint(n)})
				} else {
					_, err = c.c.Act(c.ctx(), &gatewayv1.ActRequest{TableId: r.id, Action: action("reveal"), ActionId: fmt.Sprint(n)})
				}
				lat[i] = append(lat[i], time.Since(t0))
				if err != nil {
					b.Errorf("act: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(len(all))/elapsed.Seconds(), "actions/s")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	}
}
