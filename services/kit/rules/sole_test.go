package rules_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
)

// sweepCounter is a store that counts the outbox sweeps made of it.
type sweepCounter struct {
	store.Store
	sweeps atomic.Int32
}

func (c *sweepCounter) Unpublished(ctx context.Context, before time.Time, limit int) ([]string, error) {
	c.sweeps.Add(1)
	return c.Store.Unpublished(ctx, before, limit)
}

// downPublisher fails while down is set and keeps what it published.
type downPublisher struct {
	down atomic.Bool
	mu   sync.Mutex
	msgs []bus.Message
}

func (p *downPublisher) Publish(_ context.Context, msgs []bus.Message) error {
	if p.down.Load() {
		return errors.New("bus down")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs = append(p.msgs, msgs...)
	return nil
}

func (p *downPublisher) published() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.msgs)
}

// TestSoleReplicaSweeps: a sole replica sweeps its outbox at RepublishAfter/4 only at its start
// and after a publication of its own failed, which still reaches the bus within about
// RepublishAfter; otherwise every 10 s. A shared replica sweeps at RepublishAfter/4 throughout.
// Both apply a timeout when it is due.
func TestSoleReplicaSweeps(t *testing.T) {
	for _, sole := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			st := &sweepCounter{Store: store.NewMemory()}
			pub := &downPublisher{}
			srv := rules.New(highcard.Engine("highcard"), st, pub, rules.Options{SoleReplica: sole, RepublishAfter: time.Second})
			ctx, stop := context.WithCancel(t.Context())
			ran := make(chan error)
			go func() { ran <- srv.Run(ctx) }()
			defer func() {
				stop()
				if err := <-ran; err != nil {
					t.Error(err)
				}
			}()

			time.Sleep(3 * time.Second) // past the start's window of 2 × RepublishAfter
			synctest.Wait()
			start := st.sweeps.Load()
			time.Sleep(30 * time.Second)
			synctest.Wait()
			idle := st.sweeps.Load() - start
			if sole && (start < 4 || idle > 3) {
				t.Fatalf("sole replica: %d sweeps in its first 3 s, %d in the next 30 s idle; want every 250 ms, then every 10 s", start, idle)
			}
			if !sole && idle < 100 {
				t.Fatalf("shared replica: %d sweeps in 30 s; want one every 250 ms", idle)
			}

			// The bus fails the creation's publication: the sweeper publishes its events.
			pub.down.Store(true)
			if _, err := srv.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: "s1", Config: tableConfig(2, 1, 0)}); err != nil {
				t.Fatal(err)
			}
			pub.down.Store(false)
			if pub.published() != 0 {
				t.Fatal("published while the bus was down")
			}
			time.Sleep(1500 * time.Millisecond) // RepublishAfter, and a sweep's interval and more
			synctest.Wait()
			tb, _, err := st.Load(t.Context(), "s1", "")
			if err != nil {
				t.Fatal(err)
			}
			if pub.published() == 0 || tb.Published != tb.Sequence {
				t.Fatalf("1.5 s after a failed publication: %d messages published, table published to %d of %d", pub.published(), tb.Published, tb.Sequence)
			}

			// A turn's deadline committed here is claimed when due, not at the next safety sweep.
			if _, err := srv.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: "d1", Config: tableConfig(2, 1, 3*time.Second)}); err != nil {
				t.Fatal(err)
			}
			created, _, _ := st.Load(t.Context(), "d1", "")
			time.Sleep(3500 * time.Millisecond)
			synctest.Wait()
			if tb, _, _ := st.Load(t.Context(), "d1", ""); tb.Version != created.Version+1 {
				t.Fatalf("0.5 s after a turn's deadline: table at version %d, created at %d; want its timeout applied", tb.Version, created.Version)
			}
		})
	}
}
