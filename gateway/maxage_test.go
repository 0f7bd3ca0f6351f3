package gateway_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// resumingWatch is a Watch that, whenever the server ends the stream with UNAVAILABLE (its
// connection closed at its maximum age), opens it again after the last sequence it received, as
// clients do; resumed counts those times.
func (c *client) resumingWatch(table string, resumed *atomic.Int64) *watcher {
	ctx, cancel := context.WithCancel(c.ctx())
	w := &watcher{cancel: cancel, ch: make(chan *eventsv1.Event, 4096), done: make(chan error, 1)}
	go func() {
		defer close(w.ch)
		var last uint64
		for {
			s, err := c.c.Watch(ctx, &gatewayv1.WatchRequest{TableId: table, AfterSequence: last})
			for err == nil {
				var r *gatewayv1.WatchResponse
				if r, err = s.Recv(); err == nil {
					last = r.GetEvent().GetSequence()
					w.ch <- r.GetEvent()
				}
			}
			if status.Code(err) != codes.Unavailable {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				w.done <- err
				return
			}
			resumed.Add(1)
		}
	}()
	return w
}

// TestWatchResumesAfterMaxConnectionAge: the gateway closes every connection at its maximum age,
// Watch streams included (after the grace); clients that resume after the last sequence they saw
// receive every event they may see exactly once, in order, and play to the end.
func TestWatchResumesAfterMaxConnectionAge(t *testing.T) {
	e := newEnv(t, envOptions{redis: true, gateways: 1, opt: gateway.Options{MaxConnectionAge: 300 * time.Millisecond, MaxConnectionAgeGrace: 100 * time.Millisecond}})
	ann, bob := e.signIn(0, "Ann"), e.signIn(0, "Bob")
	tb := privateTable(t, ann, []*client{bob}, 1, rounds(6), 0)
	id := tb.GetTableId()
	var resumed atomic.Int64
	var wg sync.WaitGroup
	for _, c := range []*client{ann, bob} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := c.resumingWatch(id, &resumed)
			defer w.cancel()
			// Let at least one connection reach its age before the game ends.
			deadline := time.Now().Add(30 * time.Second)
			for resumed.Load() == 0 && time.Now().Before(deadline) {
				select {
				case ev := <-w.ch:
					c.events = append(c.events, ev)
				case <-time.After(50 * time.Millisecond):
				}
			}
			c.play(id, w, first)
		}()
	}
	wg.Wait()
	if resumed.Load() == 0 {
		t.Fatal("no Watch stream was ended by the connection's maximum age")
	}
	for _, c := range []*client{ann, bob} {
		replay, err := c.c.GetReplay(c.ctx(), &gatewayv1.GetReplayRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := c.c.GetView(c.ctx(), &gatewayv1.GetViewRequest{TableId: id})
		checkStream(t, c, replayEvents(replay), []*gatewayv1.GetViewResponse{v})
	}
	t.Logf("Watch streams resumed %d times", resumed.Load())
}
