package stats_test

import (
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/stats"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// created is a TableCreated of a two-seat sapotagem table, on b's public subject of table.
func created(t *testing.T, b *bus.Bus, table string) bus.Message {
	t.Helper()
	payload, err := anypb.New(&eventsv1.TableCreated{Config: &gamev1.TableConfig{Game: "sapotagem", Seats: []*gamev1.Seat{
		{Index: 0, Player: &gamev1.PlayerRef{PlayerId: "p-" + table, Kind: gamev1.PlayerKind_PLAYER_KIND_HUMAN}}, {Index: 1},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := proto.Marshal(&eventsv1.Event{TableId: table, Game: "sapotagem", Sequence: 1, Payload: payload,
		Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}})
	if err != nil {
		t.Fatal(err)
	}
	return bus.Message{Subject: b.Subjects().Public(table), ID: table + ":1", Data: data}
}

// TestConsumerUnderPrefix: a stats consumer on a bus with its own prefix reads that prefix's
// stream and subjects, and nothing another instance publishes on the same NATS.
func TestConsumerUnderPrefix(t *testing.T) {
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	connect := func(prefix string) *bus.Bus {
		b, err := bus.Connect(t.Context(), ns.URL(), "stats-test", bus.Options{Prefix: prefix, Memory: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		return b
	}
	def, blue := connect(""), connect("blue")
	publish(t, def, []bus.Message{created(t, def, "d1"), created(t, def, "d2")})
	publish(t, blue, []bus.Message{created(t, blue, "b1")})
	st := stats.NewMemory()
	p := newProgress()
	stop := runConsumer(t, stats.NewConsumer(blue, st, stats.ConsumerOptions{Aggregator: testAggregator(), Logger: quiet, AfterApply: p.hook}))
	defer stop()
	p.wait(t, 1, 30*time.Second)
	c, err := st.GameCounters(t.Context(), "sapotagem")
	if err != nil || c["tables_created"] != 1 {
		t.Fatalf("tables created %d (%v), want blue's one", c["tables_created"], err)
	}
	in, err := st.Ingest(t.Context())
	if err != nil || in[stats.CounterApplied] != 1 || in[stats.CounterRejected] != 0 {
		t.Fatalf("ingest %v (%v)", in, err)
	}
	if live, err := st.Live(t.Context()); err != nil || live.Tables["sapotagem"] != 1 {
		t.Fatalf("live %+v (%v)", live, err)
	}
}
