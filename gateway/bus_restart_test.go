package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"sync"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
)

// TestWatchAcrossBusRestart: NATS stops and starts again in the middle of a game. The events
// published meanwhile never reach the gateway's subscription; its hubs read them from the rules
// service's log once the connection is back, so both players' streams still carry every event
// they may see, once and in order, and the game finishes.
func TestWatchAcrossBusRestart(t *testing.T) {
	e := NewEnv(t, EnvOptions{FileBus: true})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 0, rounds(40), 0)
	id := tb.GetTableId()
	wa, wb := ann.Watch(id, 0), bob.Watch(id, 0)
	defer wa.Cancel()
	defer wb.Cancel()
	var wg sync.WaitGroup
	for _, p := range []struct {
		c *Client
		w *Watcher
	}{{ann, wa}, {bob, wb}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.c.Play(id, p.w, first)
		}()
	}
	// Restart NATS once the game is under way, while both keep playing.
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := ann.C.GetView(ann.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		if v.GetVersion() >= 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the game did not get under way")
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.RestartNATS()
	wg.Wait()
	if t.Failed() {
		return
	}
	replay, err := ann.C.GetReplay(ann.Ctx(), &gatewayv1.GetReplayRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Client{ann, bob} {
		v, err := c.C.GetView(c.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		checkStream(t, c, ReplayEvents(replay), []*gatewayv1.GetViewResponse{v})
	}
}
