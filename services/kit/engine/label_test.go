package engine

import (
	"slices"
	"testing"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func TestRenderLabel(t *testing.T) {
	names := func(seat int) (string, bool) {
		switch seat {
		case 0:
			return "Ann", false
		case 2:
			return "Bo", true
		}
		return "", false
	}
	for _, c := range []struct{ in, want string }{
		{"play yellow 1 (Ducks)", "play yellow 1 (Ducks)"},
		{SeatRef(0) + " jumps", "seat 0 (Ann) jumps"},
		{SeatRef(2) + " gives " + SeatRef(1) + " a card", "seat 2 (you) gives seat 1 a card"},
		{"odd {seat:x} and {seat:3", "odd {seat:x} and {seat:3"},
		{"{seat:-1} {seat:0}", "{seat:-1} seat 0 (Ann)"},
	} {
		if got := RenderLabel(c.in, names); got != c.want {
			t.Errorf("RenderLabel(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := RenderLabel(SeatRef(4)+" wins", nil); got != "seat 4 wins" {
		t.Errorf("without names: %q", got)
	}
}

func TestGenericLabels(t *testing.T) {
	for _, c := range []struct {
		m    proto.Message
		want string
	}{
		{&eventsv1.TableCreated{}, "table created"},
		{&eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}, "public"},
		{&gamev1.SeatResult{}, "seat result"},
		{wrapperspb.String("reveal"), "string value"},
	} {
		if got := genericLabel(c.m); got != c.want {
			t.Errorf("genericLabel(%T) = %q, want %q", c.m, got, c.want)
		}
	}
	if got := inWords("card_played"); got != "card played" {
		t.Errorf("inWords(card_played) = %q", got)
	}
	labels := []string{"jump", "play", "jump", "jump (2)", "jump"}
	dedupe(labels)
	if want := []string{"jump", "play", "jump (3)", "jump (2)", "jump (4)"}; !slices.Equal(labels, want) {
		t.Errorf("dedupe = %q, want %q", labels, want)
	}
}
