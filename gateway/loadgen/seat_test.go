package loadgen

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/anypb"
)

// lister is a gateway that only lists a seat's legal actions: one, at version.
type lister struct {
	gatewayv1.GatewayServiceClient
	version uint64
	calls   atomic.Int32
}

func (l *lister) ListLegalActions(context.Context, *gatewayv1.ListLegalActionsRequest, ...grpc.CallOption) (*gatewayv1.ListLegalActionsResponse, error) {
	l.calls.Add(1)
	a, err := anypb.New(&sapotagemv1.Action{Kind: &sapotagemv1.Action_Play{Play: &sapotagemv1.PlayCard{}}})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ListLegalActionsResponse{Version: l.version, Actions: []*anypb.Any{a}}, nil
}

// testSeat is a slot of one seat, at a table, polling every poll; its timer as playSeat makes it.
func testSeat(poll time.Duration, client gatewayv1.GatewayServiceClient) (*slot, *table, *seatWatch, *time.Timer) {
	s := &slot{
		r:      &runner{poll: poll, rec: newRecorder()},
		game:   gameSeats{name: "sapotagem", seats: 1},
		client: client,
		rnd:    rand.New(rand.NewPCG(1, 1)),
	}
	sw := &seatWatch{wake: make(chan struct{}, 1)}
	t := &table{id: "t", finished: make(chan struct{}), watches: []*seatWatch{sw}}
	timer := time.AfterFunc(poll, sw.signal)
	timer.Stop()
	return s, t, sw, timer
}

func woken(sw *seatWatch) bool {
	select {
	case <-sw.wake:
		return true
	default:
		return false
	}
}

// TestOffer: the seat holds the newest list it will play, and is woken only for such a list.
func TestOffer(t *testing.T) {
	sw := &seatWatch{wake: make(chan struct{}, 1)}
	sw.saw(5)
	l5 := &legalList{version: 5, n: 2}
	sw.offer(l5, true)
	if !woken(sw) || sw.legal != l5 {
		t.Fatalf("a list to play: not woken, or held %v", sw.legal)
	}
	sw.offer(&legalList{version: 4, n: 1}, true)
	if woken(sw) || sw.legal != l5 {
		t.Errorf("an older list: woken or held %v", sw.legal)
	}
	sw.offer(&legalList{version: 6}, false) // the seat's turn has passed
	if woken(sw) || sw.legal != nil {
		t.Errorf("an empty list: woken or held %v", sw.legal)
	}
	sw.saw(8)
	sw.offer(&legalList{version: 7, n: 1}, true) // overtaken by an event already seen
	if woken(sw) || sw.legal != nil {
		t.Errorf("a stale list: woken or held %v", sw.legal)
	}
	l8 := &legalList{version: 8, n: 1}
	sw.offer(l8, true)
	if !woken(sw) || sw.take() != l8 || sw.take() != nil {
		t.Errorf("a list to play is not woken for and taken once")
	}
}

// TestWorth: a seat plays every list with actions, and one list of optional moves only in
// optionalOdds.
func TestWorth(t *testing.T) {
	s, _, _, _ := testSeat(time.Minute, nil)
	if s.worth(&legalList{}) || !s.worth(&legalList{n: 3}) {
		t.Error("an empty list is worth playing, or one with actions is not")
	}
	played := 0
	for range 8000 {
		if s.worth(&legalList{n: 2, optional: true}) {
			played++
		}
	}
	if played < 800 || played > 1200 {
		t.Errorf("played %d of 8000 lists of optional moves, want about %d", played, 8000/optionalOdds)
	}
}

// TestAwait: a waiting seat wakes for a list to play, the table's end and the run's; it lists its
// actions itself once its stream has brought no news for poll.
func TestAwait(t *testing.T) {
	const poll = time.Minute
	type result struct {
		l  *legalList
		ok bool
	}
	start := func(ctx context.Context, s *slot, tb *table, sw *seatWatch, timer *time.Timer) <-chan result {
		c := make(chan result, 1)
		go func() {
			l, ok := s.await(ctx, ctx, tb, sw, timer)
			c <- result{l, ok}
		}()
		return c
	}
	t.Run("list", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			gw := &lister{}
			s, tb, sw, timer := testSeat(poll, gw)
			c := start(t.Context(), s, tb, sw, timer)
			synctest.Wait()
			l := &legalList{version: 1, n: 1}
			sw.offer(l, true)
			if r := <-c; r.l != l || !r.ok {
				t.Errorf("await = %v, %v; want the list offered", r.l, r.ok)
			}
			if gw.calls.Load() != 0 {
				t.Error("polled")
			}
		})
	})
	t.Run("poll after quiet", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			gw := &lister{version: 9}
			s, tb, sw, timer := testSeat(poll, gw)
			c := start(t.Context(), s, tb, sw, timer)
			time.Sleep(40 * time.Second)
			sw.sawNews(time.Now()) // a new version: the poll waits a full minute from here
			time.Sleep(poll - time.Second)
			synctest.Wait()
			if n := gw.calls.Load(); n != 0 {
				t.Fatalf("polled %d times before the stream was quiet for %v", n, poll)
			}
			time.Sleep(time.Second)
			r := <-c
			if gw.calls.Load() != 1 || !r.ok || r.l == nil || r.l.version != 9 || r.l.n != 1 {
				t.Errorf("after %v of quiet: %d polls, await = %+v", poll, gw.calls.Load(), r)
			}
		})
	})
	t.Run("table finished", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, tb, sw, timer := testSeat(poll, &lister{})
			c := start(t.Context(), s, tb, sw, timer)
			synctest.Wait()
			tb.finish()
			if r := <-c; r.ok {
				t.Errorf("await = %+v after the table's end", r)
			}
		})
	})
	t.Run("run over", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, tb, sw, timer := testSeat(poll, &lister{})
			ctx, cancel := context.WithCancel(t.Context())
			defer context.AfterFunc(ctx, sw.signal)() // as playSeat
			c := start(ctx, s, tb, sw, timer)
			synctest.Wait()
			cancel()
			if r := <-c; r.ok {
				t.Errorf("await = %+v after the run's end", r)
			}
		})
	})
}
