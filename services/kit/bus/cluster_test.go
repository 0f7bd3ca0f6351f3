package bus_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/testenv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestStreamSurvivesLeaderLoss runs the stream with three replicas on a three-server cluster and
// kills (SIGKILL) the server leading it, which the publisher is connected to, while tables publish
// as the rules services do: each event with its id, waited for, and published again with the same
// id when its acknowledgement does not come (the outbox's republication). The stream then holds
// every event exactly once, in each table's order, and a durable consumer, replicated as the
// stream is, delivers every one.
func TestStreamSurvivesLeaderLoss(t *testing.T) {
	cl := testenv.StartNATSCluster(t, 3)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	b, err := bus.Connect(ctx, cl.URLs(), "cluster-test", bus.Options{Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	cons, err := b.PublicDurable(ctx, bus.DurableOptions{Name: "cluster-test", MaxAckPending: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ci, err := bus.ConsumerInfo(ctx, cons)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Cluster == nil || len(ci.Cluster.Replicas) != 2 {
		t.Fatalf("durable consumer's cluster %+v, want a leader and two replicas", ci.Cluster)
	}
	// Delivered stream sequences; the consumer is recreated from the last of an unbroken run, as
	// the stats service's sessions do from the position stored with its aggregates.
	var mu sync.Mutex
	delivered := map[uint64]bool{}
	consumed := make(chan struct{}, 1)
	consume := func(cons jetstream.Consumer) jetstream.ConsumeContext {
		cc, err := cons.Consume(func(m jetstream.Msg) {
			if md, err := m.Metadata(); err == nil {
				mu.Lock()
				delivered[md.Sequence.Stream] = true
				mu.Unlock()
			}
			_ = m.Ack()
			select {
			case consumed <- struct{}{}:
			default:
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return cc
	}
	cc := consume(cons)
	defer func() { cc.Stop() }()

	// The stream's leader is the publisher's server: its death cuts both.
	if err := cl.MoveStreamLeader(ctx, b.Stream(), cl.Index(b.Server())); err != nil {
		t.Fatal(err)
	}
	leader := cl.Index(b.Server())

	const tables, events = 6, 60
	var acked atomic.Int64
	var republished atomic.Int64
	halfway := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for tb := range tables {
		wg.Go(func() {
			table := fmt.Sprint("t", tb)
			for seq := 1; seq <= events; seq++ {
				m := bus.Message{Subject: b.Subjects().Public(table), ID: table + ":" + strconv.Itoa(seq), Data: []byte(table + ":" + strconv.Itoa(seq))}
				for {
					if err := publishOnce(ctx, b, m); err == nil {
						break
					} else if ctx.Err() != nil {
						t.Errorf("table %s event %d never acknowledged: %v", table, seq, err)
						return
					}
					republished.Add(1)
				}
				if acked.Add(1) == tables*events/2 {
					once.Do(func() { close(halfway) })
				}
			}
		})
	}
	select {
	case <-halfway:
	case <-ctx.Done():
		t.Fatal("the tables did not get half way")
	}
	cl.Kill(leader)
	t.Logf("killed %s, the stream's leader", cl.Name(leader))
	wg.Wait()
	if t.Failed() {
		return
	}
	next, err := cl.StreamLeader(ctx, b.Stream())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("new leader %s; %d publications repeated after an error or silence", cl.Name(next), republished.Load())

	// The stream: every event once, each table's in order.
	data, err := cl.StreamData(ctx, b.Stream())
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != tables*events {
		t.Errorf("the stream holds %d messages, want %d (one per event)", len(data), tables*events)
	}
	nextSeq := map[string]int{}
	for i, d := range data {
		table, seq, _ := strings.Cut(string(d), ":")
		n, _ := strconv.Atoi(seq)
		if n != nextSeq[table]+1 {
			t.Fatalf("table %s: event %d after %d in the stream (sequence %d)", table, n, nextSeq[table], i+1)
		}
		nextSeq[table] = n
	}
	for tb := range tables {
		if n := nextSeq[fmt.Sprint("t", tb)]; n != events {
			t.Errorf("table t%d: %d events in the stream, want %d", tb, n, events)
		}
	}

	// A process started without the setting leaves the stream its three replicas.
	b1, err := bus.Connect(ctx, cl.URLs(), "cluster-test-r1", bus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b1.Close()
	if n := streamReplicas(ctx, t, cl.URLs(), b.Stream()); n != 3 {
		t.Errorf("after a connection configured with one replica the stream has %d, want 3", n)
	}

	// The durable consumer, replicated as the stream is: recreated after the loss from the
	// last sequence delivered without a gap, it delivers every other event. (Events its dead
	// leader had sent and nobody received would otherwise wait for the acknowledgement window.)
	cc.Stop()
	mu.Lock()
	var after uint64
	for delivered[after+1] {
		after++
	}
	mu.Unlock()
	t.Logf("durable consumer recreated after stream sequence %d", after)
	cons, err = b.PublicDurable(ctx, bus.DurableOptions{Name: "cluster-test", After: after, MaxAckPending: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if ci, err := bus.ConsumerInfo(ctx, cons); err != nil {
		t.Fatal(err)
	} else if ci.Cluster == nil || len(ci.Cluster.Replicas) != 2 {
		t.Errorf("the durable consumer recreated after the loss has cluster %+v, want a leader and two replicas", ci.Cluster)
	}
	cc = consume(cons)
	for {
		mu.Lock()
		n := len(delivered)
		mu.Unlock()
		if n == tables*events {
			break
		}
		select {
		case <-consumed:
		case <-ctx.Done():
			t.Fatalf("the durable consumer delivered %d events, want %d", n, tables*events)
		}
	}
}

// publishOnce publishes m and waits a short while for its acknowledgement, as the rules services
// do before leaving it to the outbox.
func publishOnce(ctx context.Context, b *bus.Bus, m bus.Message) error {
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	err := b.Publish(wctx, []bus.Message{m})
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("no acknowledgement: %w", err)
	}
	return err
}

// streamReplicas is the configured replicas of stream.
func streamReplicas(ctx context.Context, t *testing.T, urls, stream string) int {
	t.Helper()
	nc, err := nats.Connect(urls)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().Config.Replicas
}
