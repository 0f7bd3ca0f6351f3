package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"cardroom.dev/gateway/lobby"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// logOnly is a rules client that only answers GetLog, from a list of events.
type logOnly struct {
	rulesv1.RulesServiceClient
	mu     sync.Mutex
	events []*eventsv1.Event
	calls  int
}

func (l *logOnly) GetLog(_ context.Context, req *rulesv1.GetLogRequest, _ ...grpc.CallOption) (*rulesv1.GetLogResponse, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	resp := &rulesv1.GetLogResponse{}
	for _, e := range l.events {
		if e.GetVersion() == 0 {
			resp.CreatedEvents = append(resp.CreatedEvents, e)
		} else if e.GetVersion() >= req.GetFromVersion() {
			resp.Entries = append(resp.Entries, &rulesv1.LogEntry{Version: e.GetVersion(), Events: []*eventsv1.Event{e}})
		}
	}
	return resp, nil
}

func ev(seq uint64) *eventsv1.Event {
	return &eventsv1.Event{Sequence: seq, Version: seq, Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}}
}

// hev is ev(seq) as a hub keeps it.
func hev(t testing.TB, seq uint64) hubEvent {
	he, err := encodeHubEvent(ev(seq))
	if err != nil {
		t.Fatal(err)
	}
	return he
}

// update is u as a hub takes it.
func update(t testing.TB, u *rulesv1.TableUpdate) *liveUpdate {
	lu, err := updateOf(u)
	if err != nil {
		t.Fatal(err)
	}
	return lu
}

func sequences(evs []hubEvent) []uint64 {
	var out []uint64
	for _, e := range evs {
		out = append(out, e.seq)
	}
	return out
}

// TestHubOrdersAndRepairs: events arriving out of order are delivered in order; duplicates are
// dropped; an event the bus never delivers is read from the rules service's log.
func TestHubOrdersAndRepairs(t *testing.T) {
	log := &logOnly{}
	for s := uint64(1); s <= 6; s++ {
		log.events = append(log.events, ev(s))
	}
	// The hub dates its gaps by the server's clock, which stands still until the test moves it.
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(at.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	h := newHub(&Server{metrics: newMetrics(), opt: Options{Now: now}}, "t", log)
	h.add(hev(t, 2))
	h.add(hev(t, 1))
	h.add(hev(t, 1))
	if got, _, _ := h.since(0); !slices.Equal(sequences(got), []uint64{1, 2}) {
		t.Fatalf("after out-of-order arrival: %v", sequences(got))
	}
	// 3 is lost on the way; 4 and 5 arrive: held back until the gap is repaired from the log.
	h.add(hev(t, 4))
	h.add(hev(t, 5))
	got, changed, _ := h.since(0)
	if !slices.Equal(sequences(got), []uint64{1, 2}) {
		t.Fatalf("delivered across a gap: %v", sequences(got))
	}
	h.mu.Lock()
	since := h.gapSince
	h.mu.Unlock()
	if !since.Equal(at) {
		t.Fatalf("the gap opened at %v, want the server clock's %v", since, at)
	}
	// The repair is due once the clock has passed gapRepairAfter (a stopped clock never gets there).
	clock.Add(int64(gapRepairAfter))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go h.repair(ctx)
	deadline := time.After(10 * time.Second)
	for len(got) < 6 {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the gap was not repaired: %v", sequences(got))
		}
		got, changed, _ = h.since(0)
	}
	if !slices.Equal(sequences(got), []uint64{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("after repair: %v", sequences(got))
	}
	if got, _, _ := h.since(4); !slices.Equal(sequences(got), []uint64{5, 6}) {
		t.Fatalf("resume after 4: %v", sequences(got))
	}
}

// A republished update (legal actions omitted) adds its events and leaves the newest known lists
// as they were, so a stream past them asks the rules service.
func TestHubKeepsLegalThroughRepublication(t *testing.T) {
	h := newHub(nil, "t", &logOnly{})
	actions := []*rulesv1.SeatActions{{Seat: 1}}
	h.update(update(t, &rulesv1.TableUpdate{TableId: "t", Version: 1, Events: []*eventsv1.Event{ev(1)}, Legal: actions}))
	h.update(update(t, &rulesv1.TableUpdate{TableId: "t", Version: 2, Events: []*eventsv1.Event{ev(2)}, LegalOmitted: true}))
	if got, _, _ := h.since(0); len(got) != 2 {
		t.Fatalf("the hub holds %d events, want 2", len(got))
	}
	if v, _, known := h.legalOf(1); !known || v != 1 {
		t.Fatalf("legal actions known at %d (%v), want those of version 1", v, known)
	}
	h.update(update(t, &rulesv1.TableUpdate{TableId: "t", Version: 3, Events: []*eventsv1.Event{ev(3)}}))
	if v, list, known := h.legalOf(1); !known || v != 3 || list != nil {
		t.Fatalf("legal actions at %d (%v, %v), want none at version 3", v, known, list)
	}
}

// TestHubSubscribesToItsTableOnly: a replica receives the live updates of the tables it streams and
// no others, and none of a table once its last stream ended.
func TestHubSubscribesToItsTableOnly(t *testing.T) {
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	connect := func(name string) *bus.Bus {
		b, err := bus.Connect(t.Context(), ns.URL(), name, bus.Options{Memory: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		return b
	}
	gw, pub := connect("gateway"), connect("rules")
	s := &Server{bus: gw, metrics: newMetrics(), log: slog.New(slog.DiscardHandler)}
	s.hubs = newHubs(s)
	go s.hubs.deliverAll(t.Context())
	h := newHub(s, "a", &logOnly{})
	s.hubs.m["a"] = h
	if err := s.hubs.subscribe(h); err != nil {
		t.Fatal(err)
	}
	close(h.ready)
	publish := func(table string, seq uint64) {
		u, err := proto.Marshal(&rulesv1.TableUpdate{TableId: table, Version: seq, Events: []*eventsv1.Event{ev(seq)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := pub.PublishLive(t.Context(), pub.Subjects().Live(table), u); err != nil {
			t.Fatal(err)
		}
	}
	// b's updates go first: NATS keeps one publisher's order, so once a's last one is here, any of
	// b's would have been received before it. (The connection's own setup received some replies.)
	base := gw.Received()
	for seq := uint64(1); seq <= 3; seq++ {
		publish("b", seq)
		publish("a", seq)
	}
	got, changed, _ := h.since(0)
	for len(got) < 3 {
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("hub a received %v", sequences(got))
		}
		got, changed, _ = h.since(0)
	}
	if in := gw.Received() - base; in != 3 {
		t.Fatalf("the replica received %d messages, want table a's 3", in)
	}
	s.hubs.release(h)
	// After the release: a's next update is not received. A second feed on the same connection,
	// watching a, tells when it would have been.
	marker := make(chan bus.Update, 1)
	mfeed := gw.NewFeed(1)
	mctx, mstop := context.WithCancel(t.Context())
	mdone := make(chan struct{})
	go func() { defer close(mdone); mfeed.Run(mctx, func(u bus.Update) { marker <- u }) }()
	defer func() { mstop(); <-mdone }()
	mw, err := mfeed.Watch("a")
	if err != nil {
		t.Fatal(err)
	}
	defer mw.Stop()
	publish("a", 4)
	select {
	case <-marker:
	case <-time.After(10 * time.Second):
		t.Fatal("the marker subscription received nothing")
	}
	if in := gw.Received() - base; in != 4 {
		t.Fatalf("the replica received %d messages, want 4 (a's 3 and the marker's)", in)
	}
}

// TestStreamResumedAheadOfItsHub: a stream resumed after an event its hub does not have yet (the
// client comes back from another replica, whose hub was ahead) sends the seat's list once the hub
// reaches it, though the stream passes no event after its cursor: the list is of the version the
// client saw last, and it is the seat's turn, so no later event comes to carry it. The stream runs
// in a synctest bubble, so that the test knows when it waits.
func TestStreamResumedAheadOfItsHub(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &Server{metrics: newMetrics(), opt: Options{Now: time.Now}}
		h := newHub(s, "t", &logOnly{})
		close(h.ready)
		act, err := anypb.New(wrapperspb.String("play"))
		if err != nil {
			t.Fatal(err)
		}
		// Seat 0 may act at every version from 3 on.
		upd := func(v uint64) *liveUpdate {
			u := &rulesv1.TableUpdate{TableId: "t", Version: v, Events: []*eventsv1.Event{ev(v)}}
			if v >= 3 {
				u.Legal = []*rulesv1.SeatActions{{Seat: 0, Actions: []*anypb.Any{act}, Labels: []string{fmt.Sprint("play at ", v)}}}
			}
			return update(t, u)
		}
		for v := uint64(1); v <= 3; v++ {
			h.update(upd(v))
		}
		ctx, cancel := context.WithCancel(t.Context())
		st := newCountingStream(ctx)
		done := make(chan error, 1)
		go func() {
			done <- streamHub(ctx, h, 0, seatNames(&lobby.Table{Seats: []lobby.Player{{ID: "p"}}}, 0),
				&gatewayv1.WatchRequest{TableId: "t", AfterSequence: 5, IncludeLegalActions: true}, st)
		}()
		synctest.Wait() // the stream waits for its hub
		if got := st.messages.Load(); got != 0 {
			t.Fatalf("the stream sent %d messages before its hub reached its cursor", got)
		}
		h.update(upd(4))
		h.update(upd(5))
		synctest.Wait()
		if got := st.list.Load(); got != 5 {
			t.Fatalf("newest list sent: version %d, want 5", got)
		}
		if got := st.seq.Load(); got != 0 {
			t.Fatalf("the stream sent event %d, at or before its cursor", got)
		}
		cancel()
		<-done
	})
}
