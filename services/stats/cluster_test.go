package stats_test

import (
	"context"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/testenv"
	"cardroom.dev/services/stats"
	"cardroom.dev/services/stats/storetest"
)

// TestConsumerAcrossNATSLeaderLoss runs the stats service's durable consumer on a stream kept by
// a three-server JetStream cluster and kills (SIGKILL) the server leading the stream while the
// consumer is in the middle of it; the rest of the games are published once a new leader is
// elected. The consumer carries on (its sessions recreate the durable from the store's position)
// and the aggregates equal the direct computation: no game counted twice or missed.
func TestConsumerAcrossNATSLeaderLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three NATS servers")
	}
	cl := testenv.StartNATSCluster(t, 3)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	b, err := bus.Connect(ctx, cl.URLs(), "stats-cluster-test", bus.Options{Replicas: 3, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	w := storetest.NewWorkload(11, storetest.WorkloadOptions{Games: 400})
	half := len(w.Msgs) / 2
	publish(t, b, w.Msgs[:half])
	st := stats.NewMemory()
	p := newProgress()
	// Small batches, so that the consumer is still reading the first half when the leader dies.
	stop := runConsumer(t, stats.NewConsumer(b, st, stats.ConsumerOptions{Aggregator: testAggregator(), Logger: quiet, Batch: 20, Linger: -1, AfterApply: p.hook}))
	defer stop()
	p.wait(t, 1, time.Minute)

	leader, err := cl.StreamLeader(ctx, b.Stream())
	if err != nil {
		t.Fatal(err)
	}
	cl.Kill(leader)
	p.mu.Lock()
	at := p.pos
	p.mu.Unlock()
	t.Logf("killed %s, the stream's leader, with the consumer at sequence %d of %d", cl.Name(leader), at, w.LastPublicSeq())
	// Published only once a new leader is elected, so that the stream keeps the workload's order
	// (a publication whose acknowledgement was lost would be published again after later ones).
	if _, err := cl.StreamLeader(ctx, b.Stream()); err != nil {
		t.Fatal(err)
	}
	for err := b.Publish(ctx, w.Msgs[half:]); err != nil; err = b.Publish(ctx, w.Msgs[half:]) {
		if ctx.Err() != nil {
			t.Fatalf("publish after the leader's loss: %v", err)
		}
		t.Logf("publish after the leader's loss: %v; again (message ids keep it once)", err)
	}
	p.wait(t, w.LastPublicSeq(), 2*time.Minute)
	storetest.Check(t, ctx, st, w)
}
