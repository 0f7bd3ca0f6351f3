package gateway

import (
	"bytes"
	"testing"

	"cardroom.dev/gateway/lobby"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestWatchWireNumbers: the field numbers the stream writes are the generated code's, the label is
// the Event's last field (so a head followed by the label is in field order), and LegalActions
// numbers its actions as SeatActions does (so the update's bytes serve as they are).
func TestWatchWireNumbers(t *testing.T) {
	for _, c := range []struct {
		msg    proto.Message
		fields map[protoreflect.Name]protowire.Number
	}{
		{&eventsv1.Event{}, map[protoreflect.Name]protowire.Number{"label": eventLabel}},
		{&gatewayv1.WatchResponse{}, map[protoreflect.Name]protowire.Number{"event": watchEvent, "legal_actions": watchLegal, "events": watchEvents}},
		{&gatewayv1.LegalActions{}, map[protoreflect.Name]protowire.Number{"version": legalVersion, "actions": legalActions, "labels": legalLabels}},
	} {
		d := c.msg.ProtoReflect().Descriptor()
		if _, ok := c.fields["label"]; !ok && d.Fields().Len() != len(c.fields) {
			t.Errorf("%s has %d fields, the writer knows %d", d.FullName(), d.Fields().Len(), len(c.fields))
		}
		for name, num := range c.fields {
			if fd := d.Fields().ByName(name); fd == nil || fd.Number() != num {
				t.Errorf("%s.%s is not field %d", d.FullName(), name, num)
			}
		}
	}
	fields := (&eventsv1.Event{}).ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		if fields.Get(i).Number() > eventLabel {
			t.Errorf("Event.%s comes after the label", fields.Get(i).Name())
		}
	}
	if legalActions != wire.SeatActionsActions {
		t.Errorf("LegalActions.actions is field %d, SeatActions.actions %d", legalActions, wire.SeatActionsActions)
	}
}

// The responses a stream writes are byte for byte what proto.Marshal writes of the WatchResponse
// the gateway would otherwise build: each event with its label rendered for the reader, the seat's
// list with its labels rendered, in either mode, for a seat and a spectator.
func TestWatchWriterEncodesAsProto(t *testing.T) {
	table := &lobby.Table{Seats: []lobby.Player{{ID: "a", Name: "Ann"}, {ID: "b", Name: "Bob"}, {ID: "c", Name: "Cy"}, {ID: "d", Name: "Di"}}}
	var u rulesv1.TableUpdate
	if err := proto.Unmarshal(fanoutUpdate(t, 7), &u); err != nil {
		t.Fatal(err)
	}
	u.Events[1].Label = "" // no label at all
	data, err := proto.Marshal(&u)
	if err != nil {
		t.Fatal(err)
	}
	lu, err := decodeUpdate(data)
	if err != nil {
		t.Fatal(err)
	}
	if !decodeUpdateFast(data, &liveUpdate{}) {
		t.Fatal("the update is not decoded by the fast path")
	}
	for _, seat := range []int{-1, 0, 3} {
		names := seatNames(table, seat)
		w := &watchWriter{names: names}
		for i := range lu.events {
			got := w.appendEvent(nil, watchEvent, &lu.events[i])
			want, err := proto.Marshal(&gatewayv1.WatchResponse{Event: labelled(u.Events[i], names)})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("seat %d, event %d: wrote %x, proto.Marshal %x", seat, i, got, want)
			}
		}
		for _, withList := range []bool{false, true} {
			resp := &gatewayv1.WatchResponse{Events: labelledAll(append([]*eventsv1.Event(nil), u.Events...), names)}
			var got []byte
			if withList {
				sa := u.Legal[0]
				resp.LegalActions = &gatewayv1.LegalActions{Version: u.Version, Actions: sa.Actions, Labels: renderLabels(sa.Labels, names)}
				got = w.appendLegal(got, u.Version, &lu.legal[0])
			}
			for i := range lu.events {
				got = w.appendEvent(got, watchEvents, &lu.events[i])
			}
			want, err := proto.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("seat %d, batch (list %v): wrote %x, proto.Marshal %x", seat, withList, got, want)
			}
		}
		// A list without actions: its version alone.
		got := w.appendLegal(nil, 9, &noLegal)
		want, _ := proto.Marshal(&gatewayv1.WatchResponse{LegalActions: &gatewayv1.LegalActions{Version: 9}})
		if !bytes.Equal(got, want) {
			t.Fatalf("empty list: wrote %x, proto.Marshal %x", got, want)
		}
	}
}

// Events read from the log and events of a live update are kept alike; a label written twice
// (the last one counts, as for any field) or not last is taken off the head all the same.
func TestHubEventLabelAnywhere(t *testing.T) {
	e := ev(4)
	e.Label = "{seat:1} wins"
	plain, err := proto.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	he, err := encodeHubEvent(e)
	if err != nil {
		t.Fatal(err)
	}
	if !he.refs || he.label != e.Label || he.audience != publicAudience || he.seq != 4 || len(he.head) >= len(plain) {
		t.Fatalf("kept as %+v", he)
	}
	label := func(l string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, eventLabel, protowire.BytesType), l)
	}
	first := append(label("old"), plain...)                                     // twice: "old", then the event's own
	middle := append(append(label("x"), he.head...), label("{seat:1} wins")...) // before the other fields
	for name, raw := range map[string][]byte{"twice": first, "first": middle} {
		var d eventsv1.Event
		if err := proto.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		got, err := hubEventOf(raw, &d)
		if err != nil {
			t.Fatal(err)
		}
		if got.label != e.Label || !bytes.Equal(got.head, he.head) {
			t.Fatalf("%s: head %x label %q, want %x %q", name, got.head, got.label, he.head, e.Label)
		}
	}
	if _, err := withoutLabel([]byte{0x0a, 5, 'x'}); err == nil {
		t.Fatal("a truncated event was accepted")
	}
}
