package rules_test

import (
	"fmt"
	"testing"
	"time"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/kit/store"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestLogViews: GetLog with include_views replays the table from its seed and gives, after the deal
// and after every entry (moves and a timeout), exactly the spectator's view GetView gave at that
// version; without it no view is sent.
func TestLogViews(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, nil)
		e.create(t, "v1", tableConfig(3, 2, time.Second))
		spectator := &rulesv1.Viewer{Who: &rulesv1.Viewer_Spectator{Spectator: true}}
		var want []*anypb.Any
		note := func() {
			t.Helper()
			v, err := e.client.GetView(t.Context(), &rulesv1.GetViewRequest{TableId: "v1", Viewer: spectator})
			if err != nil {
				t.Fatal(err)
			}
			if v.GetVersion() != uint64(len(want)) {
				t.Fatalf("the view is at version %d, want %d", v.GetVersion(), len(want))
			}
			want = append(want, v.GetView())
		}
		note()
		for i := 0; ; i++ {
			if i == 2 {
				// A timeout plays seat 2's turn.
				e.clock.Add(1500 * time.Millisecond)
				if n := e.srv.FireDue(t.Context()); n != 1 {
					t.Fatalf("%d timeouts fired, want 1", n)
				}
				note()
				continue
			}
			seat := uint32(i % 3)
			legal, err := e.client.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: "v1", Seat: seat})
			if err != nil {
				t.Fatal(err)
			}
			if len(legal.GetActions()) == 0 {
				break
			}
			e.clock.Add(100 * time.Millisecond)
			r, err := e.client.Act(t.Context(), &rulesv1.ActRequest{TableId: "v1", Seat: seat, Action: legal.GetActions()[0], ActionId: fmt.Sprint("a", i)})
			if err != nil {
				t.Fatal(err)
			}
			note()
			if r.GetFinished() {
				break
			}
		}
		l, err := e.client.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: "v1", IncludeViews: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.GetEntries()) != len(want)-1 {
			t.Fatalf("%d log entries, %d views noted", len(l.GetEntries()), len(want))
		}
		if !proto.Equal(l.GetCreatedView(), want[0]) {
			t.Fatalf("the view after the deal is %v, GetView gave %v", l.GetCreatedView(), want[0])
		}
		timeouts := 0
		for i, en := range l.GetEntries() {
			if en.GetTimeout() {
				timeouts++
			}
			if !proto.Equal(en.GetView(), want[i+1]) {
				t.Fatalf("the view after entry %d is %v, GetView gave %v", i+1, en.GetView(), want[i+1])
			}
		}
		if timeouts != 1 {
			t.Fatalf("%d timeouts in the log, want 1", timeouts)
		}
		// From a later version: the views of those entries only.
		l, err = e.client.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: "v1", IncludeViews: true, FromVersion: 3})
		if err != nil || len(l.GetEntries()) != len(want)-3 || !proto.Equal(l.GetEntries()[0].GetView(), want[3]) {
			t.Fatalf("from version 3: %v, %d entries", err, len(l.GetEntries()))
		}
		l, err = e.client.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: "v1"})
		if err != nil || l.GetCreatedView() != nil || l.GetEntries()[0].GetView() != nil {
			t.Fatalf("views without include_views: %v %v", err, l.GetCreatedView())
		}
	})
}
