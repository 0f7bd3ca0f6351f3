package rules_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"google.golang.org/protobuf/proto"
)

// Every commit sends the gateways one live update: the version's events as the log has them, and
// the legal actions of exactly the seats that may act, as ListLegalActions lists them.
func TestLiveUpdates(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, startNATS(t))
		msgs := liveUpdates(t, e.bus, "u1")
		next := func() *rulesv1.TableUpdate {
			t.Helper()
			select {
			case u := <-msgs:
				return u
			case <-time.After(10 * time.Second):
				t.Fatal("no live update")
				return nil
			}
		}
		const seats = 3
		check := func(u *rulesv1.TableUpdate, version uint64) {
			t.Helper()
			if u.GetTableId() != "u1" || u.GetVersion() != version {
				t.Fatalf("update for %s at %d, want u1 at %d", u.GetTableId(), u.GetVersion(), version)
			}
			l, err := e.client.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: "u1", FromVersion: max(version, 1)})
			if err != nil {
				t.Fatal(err)
			}
			want := l.GetCreatedEvents()
			if version > 0 {
				want = l.GetEntries()[0].GetEvents()
			}
			if len(u.GetEvents()) != len(want) {
				t.Fatalf("version %d: %d events, the log has %d", version, len(u.GetEvents()), len(want))
			}
			for i := range want {
				if !proto.Equal(u.GetEvents()[i], want[i]) {
					t.Fatalf("version %d event %d: %v, the log has %v", version, i, u.GetEvents()[i], want[i])
				}
			}
			listed := map[uint32]*rulesv1.SeatActions{}
			for _, sa := range u.GetLegal() {
				if listed[sa.GetSeat()] != nil || len(sa.GetActions()) == 0 {
					t.Fatalf("version %d: seat %d listed twice or with no action", version, sa.GetSeat())
				}
				listed[sa.GetSeat()] = sa
			}
			for seat := range uint32(seats) {
				r, err := e.client.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: "u1", Seat: seat})
				if err != nil || r.GetVersion() != version {
					t.Fatalf("legal of seat %d: %v %v", seat, err, r)
				}
				got := listed[seat].GetActions()
				if len(got) != len(r.GetActions()) {
					t.Fatalf("version %d seat %d: %d live legal actions, %d listed", version, seat, len(got), len(r.GetActions()))
				}
				for i := range got {
					if !proto.Equal(got[i], r.GetActions()[i]) {
						t.Fatalf("version %d seat %d action %d: %v, listed %v", version, seat, i, got[i], r.GetActions()[i])
					}
				}
				if !slices.Equal(listed[seat].GetLabels(), r.GetLabels()) || len(r.GetLabels()) != len(r.GetActions()) {
					t.Fatalf("version %d seat %d: live labels %q, listed %q", version, seat, listed[seat].GetLabels(), r.GetLabels())
				}
			}
		}
		e.create(t, "u1", tableConfig(seats, 2, 0))
		check(next(), 0)
		for i := range 2 * seats {
			seat := uint32(i % seats)
			legal, err := e.client.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: "u1", Seat: seat})
			if err != nil {
				t.Fatal(err)
			}
			r, err := e.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "u1", Seat: seat, Action: legal.GetActions()[1], ActionId: fmt.Sprint("a", i)})
			if err != nil {
				t.Fatal(err)
			}
			check(next(), r.GetVersion())
		}
		select {
		case m := <-msgs:
			t.Fatalf("an update after the end: %v", m)
		default:
		}
	})
}

// lossyBus fails the first failPub stream publications and loses the first dropLive live updates.
type lossyBus struct {
	b                 *bus.Bus
	failPub, dropLive atomic.Int32
}

func (l *lossyBus) Publish(ctx context.Context, msgs []bus.Message) error {
	if l.failPub.Add(-1) >= 0 {
		return errors.New("bus down")
	}
	return l.b.Publish(ctx, msgs)
}

func (l *lossyBus) PublishLive(ctx context.Context, subject string, data []byte) error {
	if l.dropLive.Add(-1) >= 0 {
		return nil // lost on the way
	}
	return l.b.PublishLive(ctx, subject, data)
}

// TestRepublishSendsLiveUpdates: events whose publication failed, and whose live updates were
// lost, reach the gateways again when the outbox sweeper republishes them: one update per version,
// the log's events, marked as saying nothing of legal actions.
func TestRepublishSendsLiveUpdates(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		b := startNATS(t)
		lb := &lossyBus{b: b}
		lb.failPub.Store(2)
		lb.dropLive.Store(2)
		srv := rules.New(highcard.Engine("highcard"), st, lb, rules.Options{})
		client := serve(t, srv)
		msgs := liveUpdates(t, b, "r1")
		if _, err := client.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: "r1", Config: tableConfig(2, 1, 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := client.Act(t.Context(), &rulesv1.ActRequest{TableId: "r1", Seat: 0, Action: act("reveal"), ActionId: "a"}); err != nil {
			t.Fatal(err)
		}
		if n := srv.Republish(t.Context(), time.Now().Add(time.Minute)); n != 1 {
			t.Fatalf("republished %d tables", n)
		}
		l, err := client.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: "r1"})
		if err != nil {
			t.Fatal(err)
		}
		for version, want := range [][]*eventsv1.Event{l.GetCreatedEvents(), l.GetEntries()[0].GetEvents()} {
			select {
			case u := <-msgs:
				if u.GetVersion() != uint64(version) || !u.GetLegalOmitted() || len(u.GetLegal()) != 0 || len(u.GetEvents()) != len(want) {
					t.Fatalf("republished update %v, want version %d with %d events and legal omitted", u, version, len(want))
				}
				for i := range want {
					if !proto.Equal(u.GetEvents()[i], want[i]) {
						t.Fatalf("version %d event %d: %v, the log has %v", version, i, u.GetEvents()[i], want[i])
					}
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no republished update for version %d", version)
			}
		}
	})
}

// TestReplayedActionPublishesAgain: an action whose events were not published (the answer lost,
// the publication failed) has them published when it is retried, to the gateways and the stream.
func TestReplayedActionPublishesAgain(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		b := startNATS(t)
		lb := &lossyBus{b: b}
		srv := rules.New(highcard.Engine("highcard"), st, lb, rules.Options{})
		client := serve(t, srv)
		if _, err := client.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: "q1", Config: tableConfig(2, 1, 0)}); err != nil {
			t.Fatal(err)
		}
		msgs := liveUpdates(t, b, "q1")
		events := collect(t, b, b.Subjects().Public("q1"))
		lb.failPub.Store(1)
		lb.dropLive.Store(1)
		req := &rulesv1.ActRequest{TableId: "q1", Seat: 0, Action: act("reveal"), ActionId: "a"}
		first, err := client.Act(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := client.Act(t.Context(), req)
		if err != nil || !again.GetReplayed() || again.GetVersion() != first.GetVersion() {
			t.Fatalf("retry: %v %v", err, again)
		}
		select {
		case u := <-msgs:
			if u.GetVersion() != first.GetVersion() || !u.GetLegalOmitted() || len(u.GetEvents()) == 0 {
				t.Fatalf("update %v after the retry, want version %d's events", u, first.GetVersion())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the retry sent no live update")
		}
		// The stream holds every public event of the table, the deal's and the action's.
		want := publicEvents(logEvents(t, client, "q1"))
		sameEvents(t, events(len(want)), want)
	})
}
