package rules_test

import (
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/testenv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type env struct {
	client rulesv1.RulesServiceClient
	srv    *rules.Server
	store  store.Store
	bus    *bus.Bus
	clock  *clock
}

func startNATS(t testing.TB) *bus.Bus {
	t.Helper()
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	b, err := bus.Connect(context.Background(), ns.URL(), "test", bus.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	natsURLs.Store(b, ns.URL())
	t.Cleanup(func() { natsURLs.Delete(b) })
	return b
}

// natsURLs is the server of each bus startNATS made, for collect to read its stream as an outside
// consumer would.
var natsURLs sync.Map // *bus.Bus → string

func serve(t testing.TB, srv *rules.Server) rulesv1.RulesServiceClient {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer()
	rulesv1.RegisterRulesServiceServer(gs, srv)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	cc, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return rulesv1.NewRulesServiceClient(cc)
}

func newEnv(t testing.TB, st store.Store, b *bus.Bus) *env {
	t.Helper()
	c := &clock{t: time.UnixMilli(1_800_000_000_000)}
	var pub rules.Publisher
	if b != nil {
		pub = b
	}
	srv := rules.New(highcard.Engine("highcard"), st, pub, rules.Options{Now: c.Now, Retain: time.Hour})
	return &env{client: serve(t, srv), srv: srv, store: st, bus: b, clock: c}
}

func tableConfig(seats int, rounds uint32, turn time.Duration) *gamev1.TableConfig {
	cfg := &gamev1.TableConfig{Game: "highcard", SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_FIXED, Seed: 42}
	for i := range seats {
		cfg.Seats = append(cfg.Seats, &gamev1.Seat{Index: uint32(i), Player: &gamev1.PlayerRef{PlayerId: fmt.Sprint("p", i)}})
	}
	if rounds > 0 {
		cfg.Options, _ = anypb.New(wrapperspb.UInt32(rounds))
	}
	if turn > 0 {
		cfg.TimeLimits = &gamev1.TimeLimits{PerAction: durationpb.New(turn)}
	}
	return cfg
}

func act(a string) *anypb.Any {
	m, _ := anypb.New(wrapperspb.String(a))
	return m
}

func (e *env) create(t testing.TB, id string, cfg *gamev1.TableConfig) {
	t.Helper()
	if _, err := e.client.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: id, Config: cfg}); err != nil {
		t.Fatalf("create: %v", err)
	}
}

func violation(err error) (codes.Code, string) {
	return status.Code(err), refusal.Code(err)
}

// collect subscribes to a table's events and returns a function that waits for n of them.
func collect(t *testing.T, b *bus.Bus, filter string) func(n int) []*eventsv1.Event {
	t.Helper()
	ch := make(chan *eventsv1.Event, 1024)
	url, ok := natsURLs.Load(b)
	if !ok {
		t.Fatal("collect: a bus startNATS did not make")
	}
	stop, err := testenv.Subscribe(t.Context(), url.(string), b.Stream(), []string{filter}, 0, func(d testenv.Delivery) {
		e := &eventsv1.Event{}
		if err := proto.Unmarshal(d.Data, e); err != nil {
			t.Errorf("bad event: %v", err)
		}
		ch <- e
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return func(n int) []*eventsv1.Event {
		var out []*eventsv1.Event
		timeout := time.After(10 * time.Second)
		for len(out) < n {
			select {
			case e := <-ch:
				out = append(out, e)
			case <-timeout:
				t.Fatalf("received %d events, want %d", len(out), n)
			}
		}
		return out
	}
}

// publicEvents are the public ones of evs, in order: what the stream holds of them.
func publicEvents(evs []*eventsv1.Event) []*eventsv1.Event {
	var out []*eventsv1.Event
	for _, e := range evs {
		if e.GetVisibility().GetPublic() {
			out = append(out, e)
		}
	}
	return out
}

// logEvents is every event of table's log, in order.
func logEvents(t *testing.T, c rulesv1.RulesServiceClient, table string) []*eventsv1.Event {
	t.Helper()
	l, err := c.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: table})
	if err != nil {
		t.Fatal(err)
	}
	all := l.GetCreatedEvents()
	for _, en := range l.GetEntries() {
		all = append(all, en.GetEvents()...)
	}
	return all
}

// sameEvents fails unless got are exactly want, in order.
func sameEvents(t *testing.T, got, want []*eventsv1.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Fatalf("event %d is %v, want %v", i, got[i], want[i])
		}
	}
}

// liveUpdates returns table's live updates as they arrive.
func liveUpdates(t *testing.T, b *bus.Bus, table string) <-chan *rulesv1.TableUpdate {
	t.Helper()
	ch := make(chan *rulesv1.TableUpdate, 64)
	feed := b.NewFeed(64)
	w, err := feed.Watch(table)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		feed.Run(ctx, func(m bus.Update) {
			u := &rulesv1.TableUpdate{}
			if err := proto.Unmarshal(m.Data, u); err != nil {
				t.Errorf("live update does not decode: %v", err)
				return
			}
			ch <- u
		})
	}()
	t.Cleanup(func() { w.Stop(); stop(); <-done })
	return ch
}

func TestFullGame(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, startNATS(t))
		events := collect(t, e.bus, e.bus.Subjects().Public("g1"))
		e.create(t, "g1", tableConfig(3, 2, 0))
		var last *rulesv1.ActResponse
		for i := range 6 {
			seat := uint32(i % 3)
			legal, err := e.client.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: "g1", Seat: seat})
			if err != nil || len(legal.GetActions()) != 2 {
				t.Fatalf("legal for seat %d: %v %v", seat, err, legal)
			}
			// Seat 2's moves and seat 1's second are played by a stand-in for an absent player.
			standIn := seat == 2 || i == 4
			last, err = e.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "g1", Seat: seat, Action: legal.GetActions()[0], ActionId: fmt.Sprint("a", i), StandIn: standIn})
			if err != nil {
				t.Fatalf("act %d: %v", i, err)
			}
			if last.GetVersion() != uint64(i+1) {
				t.Fatalf("version %d after action %d", last.GetVersion(), i)
			}
		}
		if !last.GetFinished() {
			t.Fatal("game not finished after every seat acted twice")
		}
		view, err := e.client.GetView(t.Context(), &rulesv1.GetViewRequest{TableId: "g1", Viewer: &rulesv1.Viewer{Who: &rulesv1.Viewer_Spectator{Spectator: true}}})
		if err != nil || !view.GetTable().GetFinished() || view.GetTable().GetOutcome() == nil || view.GetTable().GetConfig().GetSeed() != 42 {
			t.Fatalf("final view: %v %v", err, view)
		}
		logResp, err := e.client.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: "g1"})
		if err != nil || len(logResp.GetEntries()) != 6 {
			t.Fatalf("log: %v, %d entries", err, len(logResp.GetEntries()))
		}
		for i, en := range logResp.GetEntries() {
			if want := i%3 == 2 || i == 4; en.GetStandIn() != want {
				t.Errorf("log entry %d: stand_in %v", i, en.GetStandIn())
			}
		}
		// Every committed public event reached the stream once, in sequence order; no private one.
		all := logEvents(t, e.client, "g1")
		if uint64(len(all)) != view.GetLastSequence() {
			t.Fatalf("the log holds %d events, the view says %d", len(all), view.GetLastSequence())
		}
		want := publicEvents(all)
		if len(want) == len(all) {
			t.Fatal("the test game made no private event")
		}
		got := events(len(want))
		sameEvents(t, got, want)
		if !got[0].GetPayload().MessageIs(&eventsv1.TableCreated{}) {
			t.Fatal("the stream does not open with TableCreated")
		}
		tc := &eventsv1.TableCreated{}
		_ = got[0].GetPayload().UnmarshalTo(tc)
		if tc.GetConfig().GetSeed() != 0 {
			t.Fatal("TableCreated leaks the seed")
		}
		fin := &eventsv1.TableFinished{}
		if err := got[len(got)-1].GetPayload().UnmarshalTo(fin); err != nil || fin.GetActions() != 6 || len(fin.GetOutcome().GetResults()) != 3 {
			t.Fatalf("finished event: %v %v", err, fin)
		}
		wantSeats := []*eventsv1.SeatActions{{Seat: 0, Actions: 2}, {Seat: 1, Actions: 2, StandIn: 1}, {Seat: 2, Actions: 2, StandIn: 2}}
		if len(fin.GetSeatActions()) != len(wantSeats) {
			t.Fatalf("seat actions %v, want %v", fin.GetSeatActions(), wantSeats)
		}
		for i, w := range wantSeats {
			if !proto.Equal(fin.GetSeatActions()[i], w) {
				t.Errorf("seat actions %v, want %v", fin.GetSeatActions(), wantSeats)
			}
		}
	})
}

func TestBadInputChangesNothing(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, startNATS(t))
		e.create(t, "b1", tableConfig(2, 1, 0))
		ctx := t.Context()
		seq0, _ := e.bus.LastSequence(ctx)
		v0 := uint64(0)
		wrong, _ := anypb.New(wrapperspb.Int32(3))
		cases := []struct {
			name string
			req  *rulesv1.ActRequest
			code codes.Code
			rule string
		}{
			{"missing table", &rulesv1.ActRequest{Seat: 0, Action: act("pass"), ActionId: "x"}, codes.InvalidArgument, refusal.MissingField},
			{"bad table id", &rulesv1.ActRequest{TableId: "a.b", Action: act("pass"), ActionId: "x"}, codes.InvalidArgument, refusal.InvalidField},
			{"unknown table", &rulesv1.ActRequest{TableId: "nope", Action: act("pass"), ActionId: "x"}, codes.NotFound, refusal.TableNotFound},
			{"missing action id", &rulesv1.ActRequest{TableId: "b1", Action: act("pass")}, codes.InvalidArgument, refusal.InvalidField},
			{"action id too long", &rulesv1.ActRequest{TableId: "b1", Seat: 0, Action: act("pass"), ActionId: strings.Repeat("x", rules.MaxActionIDBytes+1)}, codes.InvalidArgument, refusal.InvalidField},
			{"missing action", &rulesv1.ActRequest{TableId: "b1", ActionId: "x"}, codes.InvalidArgument, refusal.MissingField},
			{"wrong game's action", &rulesv1.ActRequest{TableId: "b1", Action: wrong, ActionId: "x"}, codes.InvalidArgument, refusal.WrongGame},
			{"unknown action", &rulesv1.ActRequest{TableId: "b1", Action: act("fold"), ActionId: "x"}, codes.InvalidArgument, engine.CodeUnknownAction},
			{"no such seat", &rulesv1.ActRequest{TableId: "b1", Seat: 7, Action: act("pass"), ActionId: "x"}, codes.InvalidArgument, engine.CodeBadSeat},
			{"not your turn", &rulesv1.ActRequest{TableId: "b1", Seat: 1, Action: act("pass"), ActionId: "x"}, codes.FailedPrecondition, engine.CodeNotYourTurn},
			{"stale version", &rulesv1.ActRequest{TableId: "b1", Seat: 0, Action: act("pass"), ActionId: "x", ExpectedVersion: proto.Uint64(3)}, codes.Aborted, refusal.StaleVersion},
		}
		for _, tc := range cases {
			_, err := e.client.Act(ctx, tc.req)
			if c, rule := violation(err); c != tc.code || rule != tc.rule {
				t.Errorf("%s: got %v %q (%v), want %v %q", tc.name, c, rule, err, tc.code, tc.rule)
			}
		}
		tb, _, err := st.Load(ctx, "b1", "")
		if err != nil || tb.Version != v0 {
			t.Fatalf("refused actions changed the table: %v version %d", err, tb.Version)
		}
		if log, _ := st.Log(ctx, "b1", 0); len(log) != 1 {
			t.Fatalf("refused actions wrote %d log entries", len(log)-1)
		}
		if seq, _ := e.bus.LastSequence(ctx); seq != seq0 {
			t.Fatalf("refused actions published %d events", seq-seq0)
		}
		// Table creation refusals.
		bad := []struct {
			name string
			cfg  *gamev1.TableConfig
			rule string
		}{
			{"too few seats", tableConfig(1, 1, 0), engine.CodeBadSeatCount},
			{"too many rounds", tableConfig(2, 5000, 0), engine.CodeBadOptions},
			{"other game", &gamev1.TableConfig{Game: "chess"}, refusal.WrongGame},
		}
		for _, tc := range bad {
			_, err := e.client.CreateTable(ctx, &rulesv1.CreateTableRequest{Config: tc.cfg})
			if c, rule := violation(err); c != codes.InvalidArgument || rule != tc.rule {
				t.Errorf("%s: got %v %q, want InvalidArgument %q", tc.name, c, rule, tc.rule)
			}
		}
		if _, err := e.client.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: "b1", Config: tableConfig(2, 1, 0)}); status.Code(err) != codes.AlreadyExists {
			t.Errorf("existing id: %v", err)
		}
	})
}

// TestLongestActionID: an action id of MaxActionIDBytes is taken (one byte more is refused:
// TestBadInputChangesNothing), and its retry is answered from the log.
func TestLongestActionID(t *testing.T) {
	e := newEnv(t, store.NewMemory(), nil)
	e.create(t, "l1", tableConfig(2, 1, 0))
	req := &rulesv1.ActRequest{TableId: "l1", Seat: 0, Action: act("reveal"), ActionId: strings.Repeat("x", rules.MaxActionIDBytes)}
	if _, err := e.client.Act(t.Context(), req); err != nil {
		t.Fatalf("longest action id: %v", err)
	}
	if again, err := e.client.Act(t.Context(), req); err != nil || !again.GetReplayed() {
		t.Fatalf("retry: %v %v", err, again)
	}
}

func TestIdempotentRetry(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, startNATS(t))
		e.create(t, "r1", tableConfig(2, 1, 0))
		req := &rulesv1.ActRequest{TableId: "r1", Seat: 0, Action: act("reveal"), ActionId: "same"}
		first, err := e.client.Act(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := e.client.Act(t.Context(), req)
		if err != nil || !again.GetReplayed() || again.GetVersion() != first.GetVersion() || len(again.GetEvents()) != len(first.GetEvents()) {
			t.Fatalf("retry: %v %v", err, again)
		}
		// The same action in other bytes (another encoder: the field twice, the last one counting;
		// a type URL without its host) is the same retry.
		var value []byte
		value = protowire.AppendTag(value, 1, protowire.BytesType)
		value = protowire.AppendString(value, "pass")
		value = protowire.AppendTag(value, 1, protowire.BytesType)
		value = protowire.AppendString(value, "reveal")
		reencoded := &anypb.Any{TypeUrl: "google.protobuf.StringValue", Value: value}
		again, err = e.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "r1", Seat: 0, Action: reencoded, ActionId: "same"})
		if err != nil || !again.GetReplayed() || again.GetVersion() != first.GetVersion() {
			t.Fatalf("retry in other bytes: %v %v", err, again)
		}
		// Seat 1 cannot reuse seat 0's action id, nor seat 0 for another action: neither is
		// answered as if it had been played.
		for _, reuse := range []*rulesv1.ActRequest{
			{TableId: "r1", Seat: 1, Action: act("pass"), ActionId: "same"},
			{TableId: "r1", Seat: 0, Action: act("pass"), ActionId: "same"},
			{TableId: "r1", Seat: 0, Action: act("pass"), ActionId: "same", ExpectedVersion: proto.Uint64(first.GetVersion())},
		} {
			_, err = e.client.Act(t.Context(), reuse)
			if c, rule := violation(err); c != codes.InvalidArgument || rule != refusal.ActionIDReused {
				t.Fatalf("reuse %v: %v", reuse, err)
			}
		}
		if log, _ := st.Log(t.Context(), "r1", 1); len(log) != 1 {
			t.Fatalf("retry applied twice: %d entries", len(log))
		}
	})
}

// TestRacingActions sends the same legal move for the seat on turn from 32 goroutines with distinct
// action ids: exactly one lands; every other one lost the race, was re-validated and refused.
func TestRacingActions(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, nil)
		e.create(t, "c1", tableConfig(4, 1, 0))
		var ok, refused atomic.Int32
		var wg sync.WaitGroup
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := e.client.Act(context.Background(), &rulesv1.ActRequest{TableId: "c1", Seat: 0, Action: act("pass"), ActionId: fmt.Sprint("r", i)})
				switch _, rule := violation(err); {
				case err == nil:
					ok.Add(1)
				case rule == engine.CodeNotYourTurn:
					refused.Add(1)
				default:
					t.Errorf("unexpected: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 1 || refused.Load() != 31 {
			t.Fatalf("%d applied, %d refused", ok.Load(), refused.Load())
		}
		tb, _, _ := st.Load(t.Context(), "c1", "")
		if tb.Version != 1 {
			t.Fatalf("version %d", tb.Version)
		}
	})
}

// TestDeadlinesFireOnce has two replicas share a store; each due timeout is applied exactly once.
func TestDeadlinesFireOnce(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		a := newEnv(t, st, nil)
		b := newEnv(t, st, nil)
		b.clock = a.clock
		bsrv := rules.New(highcard.Engine("highcard"), st, nil, rules.Options{Now: a.clock.Now})
		const tables = 20
		for i := range tables {
			a.create(t, fmt.Sprint("d", i), tableConfig(3, 1, time.Second))
		}
		if n := a.srv.FireDue(t.Context()) + bsrv.FireDue(t.Context()); n != 0 {
			t.Fatalf("%d timeouts fired before any deadline", n)
		}
		a.clock.Add(1500 * time.Millisecond)
		var fired atomic.Int32
		var wg sync.WaitGroup
		for _, s := range []*rules.Server{a.srv, bsrv, a.srv, bsrv} {
			wg.Add(1)
			go func() { defer wg.Done(); fired.Add(int32(s.FireDue(t.Context()))) }()
		}
		wg.Wait()
		if fired.Load() != tables {
			t.Fatalf("%d timeouts applied, want %d", fired.Load(), tables)
		}
		for i := range tables {
			tb, _, _ := st.Load(t.Context(), fmt.Sprint("d", i), "")
			if tb.Version != 1 {
				t.Fatalf("table d%d at version %d", i, tb.Version)
			}
		}
		// An action arriving after a passed deadline is judged after the timeout: seat 1 is on turn.
		a.clock.Add(1500 * time.Millisecond)
		_, err := a.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "d0", Seat: 1, Action: act("pass"), ActionId: "late"})
		if _, rule := violation(err); rule != engine.CodeNotYourTurn {
			t.Fatalf("late action: %v", err)
		}
		if _, err := a.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "d0", Seat: 2, Action: act("pass"), ActionId: "late2"}); err != nil {
			t.Fatalf("seat 2 after seat 1's timeout: %v", err)
		}
	})
}

// TestRepublish: events committed while the bus was down are published later by the sweeper, once.
func TestRepublish(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		b := startNATS(t)
		lb := &lossyBus{b: b}
		lb.failPub.Store(2)
		srv := rules.New(highcard.Engine("highcard"), st, lb, rules.Options{})
		client := serve(t, srv)
		events := collect(t, b, b.Subjects().Public("p1"))
		if _, err := client.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: "p1", Config: tableConfig(2, 1, 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := client.Act(t.Context(), &rulesv1.ActRequest{TableId: "p1", Seat: 0, Action: act("reveal"), ActionId: "a"}); err != nil {
			t.Fatal(err)
		}
		if n := srv.Republish(t.Context(), time.Now().Add(time.Minute)); n != 1 {
			t.Fatalf("republished %d tables", n)
		}
		tb, _, _ := st.Load(t.Context(), "p1", "")
		want := publicEvents(logEvents(t, client, "p1"))
		sameEvents(t, events(len(want)), want)
		// A second sweep finds nothing; republishing again would be deduplicated anyway.
		if n := srv.Republish(t.Context(), time.Now().Add(time.Minute)); n != 0 {
			t.Fatalf("second sweep republished %d", n)
		}
		if seq, _ := b.LastSequence(t.Context()); seq != uint64(len(want)) || tb.Published != tb.Sequence {
			t.Fatalf("stream holds %d messages for %d public events; %d of %d published", seq, len(want), tb.Published, tb.Sequence)
		}
	})
}

// TestRepublishBelowLaterConfirmation: a publication that failed is republished even when a later
// one of the same table was confirmed: the later confirmation does not count the earlier events as
// published.
func TestRepublishBelowLaterConfirmation(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		b := startNATS(t)
		lb := &lossyBus{b: b}
		lb.failPub.Store(1) // the creation's events
		srv := rules.New(highcard.Engine("highcard"), st, lb, rules.Options{RepublishAfter: time.Hour})
		client := serve(t, srv)
		events := collect(t, b, b.Subjects().Public("h1"))
		ctx, stop := context.WithCancel(t.Context())
		ran := make(chan error)
		go func() { ran <- srv.Run(ctx) }()
		if _, err := client.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: "h1", Config: tableConfig(2, 1, 0)}); err != nil {
			t.Fatal(err)
		}
		created, _, _ := st.Load(t.Context(), "h1", "")
		if _, err := client.Act(t.Context(), &rulesv1.ActRequest{TableId: "h1", Seat: 0, Action: act("reveal"), ActionId: "a"}); err != nil {
			t.Fatal(err)
		}
		// Stopping Run writes every confirmation made so far.
		stop()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
		tb, _, _ := st.Load(t.Context(), "h1", "")
		if tb.Sequence <= created.Sequence || tb.Published != 0 {
			t.Fatalf("sequence %d (creation %d), published %d: want the creation's events unconfirmed", tb.Sequence, created.Sequence, tb.Published)
		}
		if n := srv.Republish(t.Context(), time.Now().Add(time.Minute)); n != 1 {
			t.Fatalf("republished %d tables", n)
		}
		// The action's events came first, then the creation's, republished.
		want := publicEvents(logEvents(t, client, "h1"))
		got := events(len(want))
		slices.SortFunc(got, func(a, b *eventsv1.Event) int { return int(a.GetSequence()) - int(b.GetSequence()) })
		sameEvents(t, got, want)
		if seq, _ := b.LastSequence(t.Context()); seq != uint64(len(want)) {
			t.Fatalf("stream holds %d messages for %d public events", seq, len(want))
		}
		if tb, _, _ = st.Load(t.Context(), "h1", ""); tb.Published != tb.Sequence {
			t.Fatalf("published %d of %d after the sweep", tb.Published, tb.Sequence)
		}
	})
}

// TestSecrets: a spectator sees no hidden card; a seat sees only its own; Act answers carry only
// the acting seat's events; suggested moves are legal.
func TestSecrets(t *testing.T) {
	e := newEnv(t, store.NewMemory(), nil)
	e.create(t, "s1", tableConfig(3, 1, 0))
	spect, err := e.client.GetView(t.Context(), &rulesv1.GetViewRequest{TableId: "s1", Viewer: &rulesv1.Viewer{Who: &rulesv1.Viewer_Spectator{Spectator: true}}})
	if err != nil {
		t.Fatal(err)
	}
	v := &wrapperspb.StringValue{}
	_ = spect.GetView().UnmarshalTo(v)
	if v.GetValue() != "0:? 1:? 2:?" {
		t.Fatalf("spectator view %q", v.GetValue())
	}
	if spect.GetTable().GetConfig().GetSeed() != 0 {
		t.Fatal("view leaks the seed of a table in play")
	}
	sug, err := e.client.SuggestAction(t.Context(), &rulesv1.SuggestActionRequest{TableId: "s1", Seat: 0})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "s1", Seat: 0, Action: sug.GetAction(), ActionId: "s"})
	if err != nil {
		t.Fatalf("suggested move refused: %v", err)
	}
	for _, ev := range resp.GetEvents() {
		if s, ok := ev.GetVisibility().GetAudience().(*eventsv1.Visibility_Seat); ok && s.Seat != 0 {
			t.Fatalf("seat 0 received seat %d's event", s.Seat)
		}
	}
	if _, err := e.client.SuggestAction(t.Context(), &rulesv1.SuggestActionRequest{TableId: "s1", Seat: 0}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("suggestion off turn: %v", err)
	}
}

func TestAbort(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, startNATS(t))
		events := collect(t, e.bus, e.bus.Subjects().Public("x1"))
		e.create(t, "x1", tableConfig(2, 1, time.Second))
		resp, err := e.client.AbortTable(t.Context(), &rulesv1.AbortTableRequest{TableId: "x1", Reason: "server maintenance"})
		if err != nil || !resp.GetTable().GetFinished() || !resp.GetTable().GetOutcome().GetAborted() {
			t.Fatalf("abort: %v %v", err, resp)
		}
		public := publicEvents(logEvents(t, e.client, "x1"))
		got := events(len(public))
		sameEvents(t, got, public)
		fin := &eventsv1.TableFinished{}
		if err := got[len(got)-1].GetPayload().UnmarshalTo(fin); err != nil || !fin.GetOutcome().GetAborted() {
			t.Fatalf("finished event: %v %v", err, fin)
		}
		if _, err := e.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "x1", Seat: 0, Action: act("pass"), ActionId: "after"}); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("act after abort: %v", err)
		}
		e.clock.Add(time.Minute)
		if n := e.srv.FireDue(t.Context()); n != 0 {
			t.Fatal("an aborted table's deadline fired")
		}
	})
}

// TestActIncludesLegalActions: asked for, an action's answer carries the acting seat's legal
// actions after it — the same list ListLegalActions gives at that version — none once the game is
// over, and none with a replayed answer.
func TestActIncludesLegalActions(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, nil)
		e.create(t, "l1", tableConfig(2, 2, 0))
		for i := range 4 {
			seat := uint32(i % 2)
			legal, err := e.client.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: "l1", Seat: seat})
			if err != nil || len(legal.GetActions()) == 0 {
				t.Fatalf("legal for seat %d: %v %v", seat, err, legal)
			}
			req := &rulesv1.ActRequest{TableId: "l1", Seat: seat, Action: legal.GetActions()[0], ActionId: fmt.Sprint("l", i), IncludeLegalActions: true}
			r, err := e.client.Act(t.Context(), req)
			if err != nil {
				t.Fatalf("act %d: %v", i, err)
			}
			after, err := e.client.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: "l1", Seat: seat})
			if err != nil || after.GetVersion() != r.GetVersion() {
				t.Fatalf("legal after act %d: %v %v", i, err, after)
			}
			if r.GetFinished() && len(r.GetLegalActions()) != 0 {
				t.Fatalf("legal actions after the end: %v", r.GetLegalActions())
			}
			if len(r.GetLegalActions()) != len(after.GetActions()) {
				t.Fatalf("act %d answered %d legal actions, the list has %d", i, len(r.GetLegalActions()), len(after.GetActions()))
			}
			for j, a := range r.GetLegalActions() {
				if !proto.Equal(a, after.GetActions()[j]) {
					t.Fatalf("act %d: legal action %d is %v, the list has %v", i, j, a, after.GetActions()[j])
				}
			}
			if !slices.Equal(r.GetLegalLabels(), after.GetLabels()) || len(after.GetLabels()) != len(after.GetActions()) {
				t.Fatalf("act %d: legal labels %q, the list has %q for %d actions", i, r.GetLegalLabels(), after.GetLabels(), len(after.GetActions()))
			}
			if again, err := e.client.Act(t.Context(), req); err != nil || !again.GetReplayed() || len(again.GetLegalActions()) != 0 {
				t.Fatalf("replayed act %d: %v %v", i, err, again)
			}
		}
	})
}

// sweepStore counts deadline claims and reports each commit's deadline.
type sweepStore struct {
	store.Store
	claims  atomic.Int64
	commits chan time.Time
}

func (s *sweepStore) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, time.Time, error) {
	s.claims.Add(1)
	return s.Store.ClaimDue(ctx, now, lease, limit)
}

func (s *sweepStore) Commit(ctx context.Context, c store.Commit) error {
	err := s.Store.Commit(ctx, c)
	if err == nil {
		s.commits <- c.Deadline
	}
	return err
}

// TestRunClaimsWhenDue: while Run runs, a replica claims due deadlines when they fall due — the
// store's next one, or one it just committed — rather than polling every SweepInterval, and each
// timeout applies no earlier than its deadline.
func TestRunClaimsWhenDue(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		ss := &sweepStore{Store: st, commits: make(chan time.Time, 16)}
		srv := rules.New(highcard.Engine("highcard"), ss, nil, rules.Options{SweepInterval: 20 * time.Millisecond})
		client := serve(t, srv)
		ctx, stop := context.WithCancel(t.Context())
		ran := make(chan error)
		go func() { ran <- srv.Run(ctx) }()
		const turn = 300 * time.Millisecond
		if _, err := client.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: "due", Config: tableConfig(2, 50, turn)}); err != nil {
			t.Fatal(err)
		}
		tb, _, err := st.Load(t.Context(), "due", "")
		if err != nil || tb.Deadline.IsZero() {
			t.Fatalf("created table: %v, deadline %v", err, tb.Deadline)
		}
		start := time.Now()
		due := tb.Deadline
		// Nobody plays: each turn's time runs out and the timeout is committed with the next
		// deadline.
		for i := range 3 {
			select {
			case next := <-ss.commits:
				if at := time.Now(); at.Before(due) {
					t.Fatalf("timeout %d applied at %v, before its deadline %v", i, at, due)
				}
				due = next
			case <-time.After(10 * time.Second):
				t.Fatalf("timeout %d was not applied", i)
			}
		}
		elapsed := time.Since(start)
		stop()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
		t.Logf("%d claims in %v for 3 timeouts", ss.claims.Load(), elapsed)
		// Polling every 20 ms would have claimed about 45 times in 3 turns of 300 ms.
		if claims := ss.claims.Load(); claims > 10 {
			t.Fatalf("%d claims in %v for 3 timeouts", claims, elapsed)
		}
	})
}
