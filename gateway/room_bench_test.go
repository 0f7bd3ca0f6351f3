package gateway_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	. "cardroom.dev/gateway/gatewaytest"

	"cardroom.dev/gateway/lobby"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
)

// BenchmarkListLiveTables reads pages of the live list through the gateway (gRPC over loopback)
// with 10,000 public tables being played, written to the lobby store as the gateway writes them.
// Each op is one page of 20 (the default), from the first page on to the last and again; it
// reports the 99th percentile of a page's latency as the client sees it.
func BenchmarkListLiveTables(b *testing.B) {
	for _, redis := range []bool{false, true} {
		name := "store=memory"
		if redis {
			name = "store=redis"
		}
		b.Run(name, func(b *testing.B) { benchListLive(b, redis) })
	}
}

func benchListLive(b *testing.B, redis bool) {
	const tables = 10_000
	e := NewEnv(b, EnvOptions{Redis: redis})
	now := time.Now()
	for i := range tables {
		t := lobby.Table{ID: fmt.Sprintf("t-bench%05d", i), Game: TestGame, State: lobby.TableDealt, Public: true, Capacity: 4,
			Players: []lobby.Player{{ID: fmt.Sprint("p-a", i), Name: "Ann"}, {ID: fmt.Sprint("p-b", i), Name: "Bob"},
				{ID: "b-1", Name: "Bot 1", Bot: true, Level: 2}, {ID: "b-2", Name: "Bot 2", Bot: true, Level: 3}},
			Options: []byte{10, 3, 1, 2, 3}, CreatedAt: now.Add(time.Duration(i) * time.Millisecond), StartedAt: now.Add(time.Duration(i) * time.Millisecond)}
		t.Seats = t.Players
		if err := e.Lobby.CreateTable(b.Context(), t, time.Hour); err != nil {
			b.Fatal(err)
		}
		// Nobody plays these: out of the owned set, so that no replica drives them.
		if err := e.Lobby.DropDrive(b.Context(), t.ID); err != nil {
			b.Fatal(err)
		}
	}
	c := e.SignIn(0, "Reader")
	lat := make([]time.Duration, 0, b.N)
	token := ""
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		r, err := c.C.ListTables(c.Ctx(), &gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_PLAYING, PageToken: token})
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		if len(r.GetTables()) != 20 {
			b.Fatalf("a page of %d tables", len(r.GetTables()))
		}
		token = r.GetNextPageToken()
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}
