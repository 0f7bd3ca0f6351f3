package stats_test

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/stats"
	"cardroom.dev/services/stats/storetest"
)

// TestConsumerAcrossNATSRestart restarts the NATS server (a file-backed stream, kept on disk)
// under a running consumer: the durable consumer, on disk too unless the bus is transient
// (bus.PublicDurable), goes on where it was, and every game is counted once.
func TestConsumerAcrossNATSRestart(t *testing.T) {
	w := storetest.NewWorkload(11, storetest.WorkloadOptions{Games: 400})
	half := len(w.Msgs) / 2
	dir := t.TempDir()
	ns, err := natsembed.Start(0, dir)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(ns.URL())
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	b, err := bus.Connect(t.Context(), ns.URL(), "stats-restart-test", bus.Options{Logger: quiet})
	if err != nil {
		ns.Shutdown()
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	st := stats.NewMemory()
	p := newProgress()
	stop := runConsumer(t, stats.NewConsumer(b, st, stats.ConsumerOptions{Aggregator: testAggregator(), Logger: quiet, AfterApply: p.hook}))
	defer stop()

	publish(t, b, w.Msgs[:half])
	p.wait(t, uint64(half), time.Minute)

	ns.Shutdown()
	if ns, err = natsembed.Start(port, dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	publish(t, b, w.Msgs[half:]) // the bus reconnects, then publishes
	p.wait(t, w.LastPublicSeq(), 2*time.Minute)
	storetest.Check(t, t.Context(), st, w)
}
