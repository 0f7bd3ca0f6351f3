package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"fmt"
	"slices"
	"strings"
	"testing"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
)

// TestLabelsNameSeats: events and legal actions reach clients with their labels, seats named by
// their players' display names, and "you" for the reader's own seat: on Watch (one event per
// message, and batched), in Act's and ListLegalActions' answers and in the replay.
func TestLabelsNameSeats(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, bob, cy := e.SignIn(0, "Ann"), e.SignIn(0, "Bob"), e.SignIn(0, "Cy")
	id := privateTable(t, ann, []*Client{bob}, 0, rounds(1), 0).GetTableId()
	seatOf := func(c *Client) uint32 {
		t.Helper()
		v, err := c.C.GetView(c.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
		if err != nil || v.Seat == nil {
			t.Fatalf("view: %v %v", err, v)
		}
		return v.GetSeat()
	}
	// High card: seat 0 acts first, then seat 1.
	first, second := ann, bob
	if seatOf(ann) != 0 {
		first, second = bob, ann
	}
	name := map[*Client]string{ann: "Ann", bob: "Bob"}
	seat := func(n int, c *Client) string { return fmt.Sprintf("seat %d (%s)", n+1, name[c]) } // seat n of the API, in words

	// The first seat watches one event per message, the second batched; Cy is a spectator.
	watch := func(c *Client, batch bool) gatewayv1.GatewayService_WatchClient {
		t.Helper()
		s, err := c.C.Watch(c.Ctx(), &gatewayv1.WatchRequest{TableId: id, IncludeLegalActions: true, Batch: batch})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ws, wb, wc := newLabelStream(t, watch(first, false)), newLabelStream(t, watch(second, true)), newLabelStream(t, watch(cy, false))
	legal := ws.legal()
	want := []string{"reveal your card", "pass to " + seat(1, second)}
	if !slices.Equal(legal.GetLabels(), want) || len(legal.GetActions()) != 2 {
		t.Fatalf("watched legal actions labelled %q, want %q", legal.GetLabels(), want)
	}
	listed, err := first.C.ListLegalActions(first.Ctx(), &gatewayv1.ListLegalActionsRequest{TableId: id})
	if err != nil || !slices.Equal(listed.GetLabels(), want) {
		t.Fatalf("listed legal actions labelled %q (%v), want %q", listed.GetLabels(), err, want)
	}

	pass := slices.Index(listed.GetLabels(), want[1])
	r, err := first.C.Act(first.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: listed.GetActions()[pass], ActionId: NextActionID(), IncludeLegalActions: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.GetEvents()[0].GetLabel(); got != "seat 1 (you) passes" {
		t.Fatalf("the mover reads %q", got)
	}
	ws.event("seat 1 (you) passes")
	wb.event(seat(0, first) + " passes")
	wc.event(seat(0, first) + " passes")
	legal = wb.legal()
	if want := []string{"reveal your card", "pass to " + seat(0, first)}; !slices.Equal(legal.GetLabels(), want) {
		t.Fatalf("the second seat's legal actions are labelled %q, want %q", legal.GetLabels(), want)
	}
	r, err = second.C.Act(second.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: legal.GetActions()[0], ActionId: NextActionID()})
	if err != nil || !r.GetFinished() {
		t.Fatalf("last move: %v %v", err, r)
	}
	reveal := r.GetEvents()[0].GetLabel()
	if !strings.HasPrefix(reveal, "seat 2 (you) reveals ") {
		t.Fatalf("the revealer reads %q", reveal)
	}
	wc.event(strings.Replace(reveal, "(you)", "("+name[second]+")", 1))
	wc.event(seat(1, second) + " wins the round")

	replay, err := first.C.GetReplay(first.Ctx(), &gatewayv1.GetReplayRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, ev := range ReplayEvents(replay) {
		labels = append(labels, ev.GetLabel())
	}
	for _, l := range []string{"the table is dealt", "seat 1 (you) passes", seat(1, second) + " wins the round"} {
		if !slices.Contains(labels, l) {
			t.Fatalf("the replay's labels %q lack %q", labels, l)
		}
	}
}

// labelStream reads a Watch stream for the labels of its events and lists.
type labelStream struct {
	t      *testing.T
	s      gatewayv1.GatewayService_WatchClient
	labels []string                  // of the events received and not yet awaited
	lists  []*gatewayv1.LegalActions // non-empty lists received and not yet awaited
}

func newLabelStream(t *testing.T, s gatewayv1.GatewayService_WatchClient) *labelStream {
	return &labelStream{t: t, s: s}
}

func (ls *labelStream) recv() {
	ls.t.Helper()
	r, err := ls.s.Recv()
	if err != nil {
		ls.t.Fatalf("watch: %v", err)
	}
	evs := r.GetEvents()
	if r.GetEvent() != nil {
		evs = []*eventsv1.Event{r.GetEvent()}
	}
	for _, ev := range evs {
		if ev.GetLabel() == "" {
			ls.t.Fatalf("event %d has no label", ev.GetSequence())
		}
		ls.labels = append(ls.labels, ev.GetLabel())
	}
	if l := r.GetLegalActions(); len(l.GetActions()) > 0 {
		if len(l.GetLabels()) != len(l.GetActions()) {
			ls.t.Fatalf("%d labels for %d legal actions", len(l.GetLabels()), len(l.GetActions()))
		}
		ls.lists = append(ls.lists, l)
	}
}

// event waits for an event labelled label.
func (ls *labelStream) event(label string) {
	ls.t.Helper()
	for {
		if i := slices.Index(ls.labels, label); i >= 0 {
			ls.labels = ls.labels[i+1:]
			return
		}
		ls.labels = ls.labels[:0]
		ls.recv()
	}
}

// legal waits for the next non-empty list of legal actions.
func (ls *labelStream) legal() *gatewayv1.LegalActions {
	ls.t.Helper()
	for len(ls.lists) == 0 {
		ls.recv()
	}
	l := ls.lists[0]
	ls.lists = ls.lists[1:]
	return l
}
