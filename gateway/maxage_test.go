package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
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
func resumingWatch(c *Client, table string, resumed *atomic.Int64) *Watcher {
	ctx, cancel := context.WithCancel(c.Ctx())
	w := &Watcher{Cancel: cancel, C: make(chan *eventsv1.Event, 4096), Done: make(chan error, 1)}
	go func() {
		defer close(w.C)
		var last uint64
		for {
			s, err := c.C.Watch(ctx, &gatewayv1.WatchRequest{TableId: table, AfterSequence: last})
			for err == nil {
				var r *gatewayv1.WatchResponse
				if r, err = s.Recv(); err == nil {
					last = r.GetEvent().GetSequence()
					w.C <- r.GetEvent()
				}
			}
			if status.Code(err) != codes.Unavailable {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				w.Done <- err
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
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 1, Opt: gateway.Options{MaxConnectionAge: 300 * time.Millisecond, MaxConnectionAgeGrace: 100 * time.Millisecond}})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 1, rounds(6), 0)
	id := tb.GetTableId()
	var resumed atomic.Int64
	var wg sync.WaitGroup
	for _, c := range []*Client{ann, bob} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := resumingWatch(c, id, &resumed)
			defer w.Cancel()
			// Let at least one connection reach its age before the game ends.
			deadline := time.Now().Add(30 * time.Second)
			for resumed.Load() == 0 && time.Now().Before(deadline) {
				select {
				case ev := <-w.C:
					c.Events = append(c.Events, ev)
				case <-time.After(50 * time.Millisecond):
				}
			}
			c.Play(id, w, first)
		}()
	}
	wg.Wait()
	if resumed.Load() == 0 {
		t.Fatal("no Watch stream was ended by the connection's maximum age")
	}
	for _, c := range []*Client{ann, bob} {
		replay, err := c.C.GetReplay(c.Ctx(), &gatewayv1.GetReplayRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := c.C.GetView(c.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
		checkStream(t, c, ReplayEvents(replay), []*gatewayv1.GetViewResponse{v})
	}
	t.Logf("Watch streams resumed %d times", resumed.Load())
}
