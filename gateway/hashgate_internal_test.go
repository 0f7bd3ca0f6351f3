package gateway

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestHashGate: ordinary hashes go first come, first served, two at once; a suspect's waits while
// an ordinary one waits, while another suspect's runs, and (with two hashers) while anything runs;
// among suspects the mild go first; a suspect waits for a gap after the last ordinary hash; a
// waiter whose context ends leaves the queue.
func TestHashGate(t *testing.T) {
	g := newHashGate(2)
	clock := time.Unix(0, 0)
	g.now = func() time.Time { return clock } // g.mu is held
	g.idleGap = 0
	ctx := t.Context()
	type turn struct {
		release func()
		done    chan struct{}
	}
	start := func(sus suspicion) *turn {
		tn := &turn{done: make(chan struct{})}
		go func() {
			r, err := g.acquire(ctx, sus)
			if err == nil {
				tn.release = r
			}
			close(tn.done)
		}()
		return tn
	}
	started := func(tn *turn) bool {
		select {
		case <-tn.done:
			return true
		default:
			return false
		}
	}
	// queued waits until the gate holds n waiters, so that the order of arrival is known.
	queued := func(n int) {
		for {
			g.mu.Lock()
			l := len(g.queue)
			g.mu.Unlock()
			if l == n {
				return
			}
			runtime.Gosched()
		}
	}
	a, b := start(ordinary), start(ordinary)
	<-a.done
	<-b.done
	s := start(suspect)
	queued(1)
	c := start(ordinary)
	queued(2)
	a.release()
	<-c.done // the ordinary one, though the suspect came first
	if started(s) {
		t.Fatal("a suspect started with both hashers busy")
	}
	b.release()
	if started(s) {
		t.Fatal("a suspect started beside a running hash, with two hashers")
	}
	c.release()
	<-s.done
	d := start(ordinary)
	<-d.done // an ordinary one beside the suspect
	s2 := start(suspect)
	queued(1)
	d.release()
	if started(s2) {
		t.Fatal("two suspects at once")
	}
	s.release()
	<-s2.done
	s2.release()

	// Among suspects, the mild go first.
	h := start(ordinary)
	<-h.done
	s3 := start(suspect)
	queued(1)
	m := start(mild)
	queued(2)
	h.release()
	<-m.done
	if started(s3) {
		t.Fatal("a suspect beside a mild one")
	}
	m.release()
	<-s3.done
	s3.release()

	// A suspect waits for the gap after the last ordinary hash, and then starts.
	g.mu.Lock()
	g.idleGap = time.Hour
	g.mu.Unlock()
	o := start(ordinary)
	<-o.done
	s4 := start(suspect)
	queued(1)
	o.release()
	if started(s4) {
		t.Fatal("a suspect started within the gap after an ordinary hash")
	}
	g.mu.Lock()
	clock = clock.Add(time.Hour)
	g.wake.Stop()
	g.wake = nil
	g.grant()
	g.mu.Unlock()
	<-s4.done
	s4.release()

	// A waiter whose context ends leaves the queue.
	e, f := start(ordinary), start(ordinary)
	<-e.done
	<-f.done
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error)
	go func() { _, err := g.acquire(cctx, ordinary); errc <- err }()
	queued(1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	if len(g.queue) != 0 || g.running != 2 {
		t.Fatalf("after a cancelled wait: %d waiting, %d running", len(g.queue), g.running)
	}
	e.release()
	f.release()
	if g.running != 0 || g.suspect {
		t.Fatalf("at rest: %d running, suspect %v", g.running, g.suspect)
	}
}
