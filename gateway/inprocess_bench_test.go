package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"fmt"
	"testing"

	"cardroom.dev/gateway"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"google.golang.org/protobuf/types/known/anypb"
)

// BenchmarkInProcessAct is one applied action through the in-process connection to a rules
// service (InProcess, as `cardroom serve` calls it), memory store, no bus, one table at a time:
// what the connection adds to the rules service's own cost (services/kit/rules BenchmarkAct).
func BenchmarkInProcessAct(b *testing.B) {
	srv := rules.New(highcard.Engine(TestGame), store.NewMemory(), nil, rules.Options{})
	c := rulesv1.NewRulesServiceClient(gateway.InProcess(srv))
	cfg := &gamev1.TableConfig{Game: TestGame, SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_FIXED, Seed: 42, Options: rounds(1000)}
	for i := range 2 {
		cfg.Seats = append(cfg.Seats, &gamev1.Seat{Index: uint32(i), Player: &gamev1.PlayerRef{PlayerId: fmt.Sprint("p", i)}})
	}
	acts := [2]*anypb.Any{action("reveal"), action("pass")}
	table, tables, seat, n := "", 0, uint32(0), 0
	b.ReportAllocs()
	cpu0 := enginetest.CPUTime()
	for b.Loop() {
		if table == "" {
			tables++
			table, seat = fmt.Sprint("bench-", tables), 0
			if _, err := c.CreateTable(b.Context(), &rulesv1.CreateTableRequest{TableId: table, Config: cfg}); err != nil {
				b.Fatal(err)
			}
		}
		n++
		resp, err := c.Act(b.Context(), &rulesv1.ActRequest{TableId: table, Seat: seat, Action: acts[n%2], ActionId: fmt.Sprint(n)})
		if err != nil {
			b.Fatal(err)
		}
		seat = 1 - seat
		if resp.GetFinished() {
			table = ""
		}
	}
	b.ReportMetric(float64(b.N)/(enginetest.CPUTime()-cpu0).Seconds(), "actions/cpu-s")
}
