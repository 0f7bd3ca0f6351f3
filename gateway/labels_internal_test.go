package gateway

import (
	"slices"
	"testing"

	"cardroom.dev/gateway/lobby"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// labelled renders a copy that keeps every field of the event, and leaves the shared event as it was.
func TestLabelledKeepsEveryField(t *testing.T) {
	payload, _ := anypb.New(wrapperspb.String("x"))
	e := &eventsv1.Event{TableId: "t", Game: "g", Sequence: 3, Version: 2, Time: timestamppb.Now(), Payload: payload,
		Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: 1}}, Label: "{seat:0} passes to {seat:1}"}
	fields := e.ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		if !e.ProtoReflect().Has(fields.Get(i)) {
			t.Fatalf("the test event lacks %s: set it, and copy it in labelled", fields.Get(i).Name())
		}
	}
	before := proto.Clone(e)
	names := seatNames(&lobby.Table{Seats: []lobby.Player{{ID: "a", Name: "Ann"}, {ID: "b", Name: "Bob"}}}, 1)
	got := labelled(e, names)
	want := proto.CloneOf(e)
	want.Label = "seat 1 (Ann) passes to seat 2 (you)"
	if !proto.Equal(got, want) {
		t.Fatalf("labelled: %v, want %v", got, want)
	}
	if !proto.Equal(e, before) {
		t.Fatalf("the shared event changed: %v", e)
	}
	plain := &eventsv1.Event{Sequence: 4, Label: "round 2 dealt"}
	if labelled(plain, names) != plain {
		t.Fatal("an event whose label names no seat was copied")
	}
	labels := []string{"reveal your card", "pass to {seat:0}"}
	if got := renderLabels(labels, names); !slices.Equal(got, []string{"reveal your card", "pass to seat 1 (Ann)"}) ||
		labels[1] != "pass to {seat:0}" {
		t.Fatalf("renderLabels: %q (the list given is now %q)", got, labels)
	}
	if got := renderLabels(labels[:1], names); &got[0] != &labels[0] {
		t.Fatal("labels that name no seat were copied")
	}
	spectator := seatNames(&lobby.Table{Seats: []lobby.Player{{Name: "Ann"}}}, -1)
	if got := renderLabels([]string{"{seat:0} and {seat:3}"}, spectator); got[0] != "seat 1 (Ann) and seat 4" {
		t.Fatalf("spectator's labels: %q", got)
	}
}
