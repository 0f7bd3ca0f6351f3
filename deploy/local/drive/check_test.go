package main

import (
	"strings"
	"testing"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// ev is an event of the table "t" with a payload naming it.
func ev(seq, version uint64, seat int, what string) *eventsv1.Event {
	vis := &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}
	if seat >= 0 {
		vis = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: uint32(seat)}}
	}
	p, err := anypb.New(wrapperspb.String(what))
	if err != nil {
		panic(err)
	}
	return &eventsv1.Event{TableId: "t", Sequence: seq, Version: version, Visibility: vis, Payload: p}
}

// replay: the deal (public 1, seat 0's hand 2, seat 1's hand 3), then seat 0 acts (a1: public 4),
// seat 1 acts (public 5, seat 1's draw 6), seat 0 acts (a2: public 7, seat 0's draw 8).
func replay() *gatewayv1.GetReplayResponse {
	return &gatewayv1.GetReplayResponse{
		CreatedEvents: []*eventsv1.Event{ev(1, 0, -1, "deal"), ev(2, 0, 0, "hand 0"), ev(3, 0, 1, "hand 1")},
		Entries: []*gatewayv1.ReplayEntry{
			{Version: 1, By: &gatewayv1.ReplayEntry_Seat{Seat: 0}, ActionId: "a1", Events: []*eventsv1.Event{ev(4, 1, -1, "play")}},
			{Version: 2, By: &gatewayv1.ReplayEntry_Seat{Seat: 1}, Events: []*eventsv1.Event{ev(5, 2, -1, "play"), ev(6, 2, 1, "draw 1")}},
			{Version: 3, By: &gatewayv1.ReplayEntry_Seat{Seat: 0}, ActionId: "a2", Events: []*eventsv1.Event{ev(7, 3, -1, "play"), ev(8, 3, 0, "draw 0")}},
		},
	}
}

// seat0 is what seat 0's Watch streams should carry.
func seat0() []*eventsv1.Event {
	r := replay()
	all := append([]*eventsv1.Event{}, r.GetCreatedEvents()...)
	for _, e := range r.GetEntries() {
		all = append(all, e.GetEvents()...)
	}
	return []*eventsv1.Event{all[0], all[1], all[3], all[4], all[6], all[7]}
}

func answered() map[string]answer {
	return map[string]answer{"a1": {codes.OK, 1}, "a2": {codes.OK, 3}, "a0": {codes.Aborted, 0}}
}

func TestAuditPasses(t *testing.T) {
	if err := audit(replay(), 0, answered(), seat0()); err != nil {
		t.Fatal(err)
	}
}

func TestAuditFails(t *testing.T) {
	for _, c := range []struct {
		name, want string
		change     func(r *gatewayv1.GetReplayResponse, a map[string]answer, s *[]*eventsv1.Event)
	}{
		{"a gap in the middle of the stream", "sequence 5 where the replay has 4", func(_ *gatewayv1.GetReplayResponse, _ map[string]answer, s *[]*eventsv1.Event) {
			*s = append((*s)[:2], (*s)[3:]...)
		}},
		{"the stream stops early", "the Watch streams ended at event 7", func(_ *gatewayv1.GetReplayResponse, _ map[string]answer, s *[]*eventsv1.Event) {
			*s = (*s)[:5]
		}},
		{"an event twice", "sequence 4 where the replay has 5", func(_ *gatewayv1.GetReplayResponse, _ map[string]answer, s *[]*eventsv1.Event) {
			*s = append((*s)[:3], append([]*eventsv1.Event{(*s)[2]}, (*s)[3:]...)...)
		}},
		{"another seat's event", "sequence 6 where the replay has 7", func(_ *gatewayv1.GetReplayResponse, _ map[string]answer, s *[]*eventsv1.Event) {
			*s = append((*s)[:4], append([]*eventsv1.Event{ev(6, 2, 1, "draw 1")}, (*s)[4:]...)...)
		}},
		{"the stream diverged from the table", "content", func(_ *gatewayv1.GetReplayResponse, _ map[string]answer, s *[]*eventsv1.Event) {
			(*s)[4] = ev(7, 3, -1, "another play")
		}},
		{"an OK action lost", "answered OK at version 3 is in the replay 0 times", func(r *gatewayv1.GetReplayResponse, _ map[string]answer, _ *[]*eventsv1.Event) {
			r.Entries[2].ActionId = ""
		}},
		{"an OK action applied twice", "is in the replay 2 times", func(r *gatewayv1.GetReplayResponse, _ map[string]answer, _ *[]*eventsv1.Event) {
			r.Entries = append(r.Entries, &gatewayv1.ReplayEntry{Version: 4, By: &gatewayv1.ReplayEntry_Seat{Seat: 0}, ActionId: "a1"})
		}},
		{"an OK action at another version", "is in the replay at version 3", func(_ *gatewayv1.GetReplayResponse, a map[string]answer, _ *[]*eventsv1.Event) {
			a["a2"] = answer{codes.OK, 2}
		}},
		{"a refused action applied", "answered Aborted is in the replay", func(r *gatewayv1.GetReplayResponse, _ map[string]answer, _ *[]*eventsv1.Event) {
			r.Entries = append(r.Entries, &gatewayv1.ReplayEntry{Version: 4, By: &gatewayv1.ReplayEntry_Seat{Seat: 0}, ActionId: "a0"})
		}},
		{"a version missing", "replay entry 1 has version 3", func(r *gatewayv1.GetReplayResponse, _ map[string]answer, _ *[]*eventsv1.Event) {
			r.Entries = append(r.Entries[:1], r.Entries[2:]...)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, a, s := replay(), answered(), seat0()
			c.change(r, a, &s)
			err := audit(r, 0, a, s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

// TestAuditSpectator: a spectator's stream must be exactly the public events; a seat's private
// event on it (a leak), or a public one missing, fails.
func TestAuditSpectator(t *testing.T) {
	r := replay()
	var public []*eventsv1.Event
	for _, e := range seat0() {
		if e.GetVisibility().GetPublic() {
			public = append(public, e)
		}
	}
	// The replay a spectator reads carries no action ids.
	for _, en := range r.Entries {
		en.ActionId = ""
	}
	if err := audit(r, spectator, nil, public); err != nil {
		t.Fatal(err)
	}
	leak := append([]*eventsv1.Event{public[0], ev(2, 0, 0, "hand 0")}, public[1:]...)
	if err := audit(r, spectator, nil, leak); err == nil || !strings.Contains(err.Error(), "where the replay has 4") {
		t.Errorf("seat 0's hand on a spectator's stream: %v, want a failure", err)
	}
	if err := audit(r, spectator, nil, public[:3]); err == nil {
		t.Error("a spectator's stream without the last public event passed")
	}
}
