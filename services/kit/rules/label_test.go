package rules_test

import (
	"slices"
	"testing"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/kit/store"
)

// Events carry the game's labels, with seat tokens, in the answers, in the log (so replays carry
// them) and on the bus; legal actions carry theirs beside them.
func TestLabels(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, startNATS(t))
		events := collect(t, e.bus, e.bus.Subjects().Public("b1"))
		e.create(t, "b1", tableConfig(2, 1, 0))
		legal, err := e.client.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: "b1", Seat: 0})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"reveal your card", "pass to " + engine.SeatRef(1)}; !slices.Equal(legal.GetLabels(), want) {
			t.Fatalf("legal labels %q, want %q", legal.GetLabels(), want)
		}
		r, err := e.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "b1", Seat: 0, Action: act("pass"), ActionId: "p0", IncludeLegalActions: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.GetEvents()[0].GetLabel(); got != engine.SeatRef(0)+" passes" {
			t.Fatalf("the pass is labelled %q", got)
		}
		if len(r.GetLegalActions()) != 0 || len(r.GetLegalLabels()) != 0 {
			t.Fatalf("seat 0 may still act: %v %q", r.GetLegalActions(), r.GetLegalLabels())
		}
		r, err = e.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "b1", Seat: 1, Action: act("reveal"), ActionId: "r1"})
		if err != nil || !r.GetFinished() {
			t.Fatalf("last move: %v %v", err, r)
		}
		var got []string
		for _, ev := range r.GetEvents() {
			got = append(got, ev.GetLabel())
		}
		if len(got) != 3 || got[1] != engine.SeatRef(1)+" wins the round" || got[2] != "the game is over: best score 1" {
			t.Fatalf("labels of the last move: %q", got)
		}
		l, err := e.client.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: "b1"})
		if err != nil {
			t.Fatal(err)
		}
		all := l.GetCreatedEvents()
		for _, en := range l.GetEntries() {
			all = append(all, en.GetEvents()...)
		}
		if all[0].GetLabel() != "the table is dealt" || all[1].GetLabel() != "round 1 dealt" {
			t.Fatalf("labels of the deal: %q, %q", all[0].GetLabel(), all[1].GetLabel())
		}
		for i, ev := range all {
			if ev.GetLabel() == "" {
				t.Fatalf("logged event %d has no label: %v", i, ev)
			}
		}
		public := publicEvents(all)
		sameEvents(t, events(len(public)), public)
	})
}
