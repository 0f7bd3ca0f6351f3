package wire_test

import (
	"testing"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestNumbersMatchTheDescriptors: every constant is the field number the generated code has, and
// every field of the messages has its constant (a field added to TableUpdate must be taught to the
// hand-written encoder and decoder).
func TestNumbersMatchTheDescriptors(t *testing.T) {
	for _, c := range []struct {
		msg    proto.Message
		fields map[protoreflect.Name]protowire.Number
	}{
		{&rulesv1.TableUpdate{}, map[protoreflect.Name]protowire.Number{"table_id": wire.UpdateTableID, "version": wire.UpdateVersion,
			"events": wire.UpdateEvents, "legal": wire.UpdateLegal, "legal_omitted": wire.UpdateOmitted}},
		{&rulesv1.SeatActions{}, map[protoreflect.Name]protowire.Number{"seat": wire.SeatActionsSeat, "actions": wire.SeatActionsActions,
			"labels": wire.SeatActionsLabels}},
		{&eventsv1.Event{}, map[protoreflect.Name]protowire.Number{"table_id": wire.EventTableID, "game": wire.EventGame,
			"sequence": wire.EventSequence, "version": wire.EventVersion, "visibility": wire.EventVisibility, "time": wire.EventTime,
			"payload": wire.EventPayload, "label": wire.EventLabel}},
		{&anypb.Any{}, map[protoreflect.Name]protowire.Number{"type_url": wire.AnyTypeURL, "value": wire.AnyValue}},
		{&eventsv1.Visibility{}, map[protoreflect.Name]protowire.Number{"public": wire.VisibilityPublic, "seat": wire.VisibilitySeat}},
		{&timestamppb.Timestamp{}, map[protoreflect.Name]protowire.Number{"seconds": wire.TimestampSeconds, "nanos": wire.TimestampNanos}},
		{&gatewayv1.WatchResponse{}, map[protoreflect.Name]protowire.Number{"event": wire.WatchEvent, "legal_actions": wire.WatchLegal,
			"events": wire.WatchEvents}},
		{&gatewayv1.LegalActions{}, map[protoreflect.Name]protowire.Number{"version": wire.LegalVersion, "actions": wire.LegalActions,
			"labels": wire.LegalLabels}},
	} {
		d := c.msg.ProtoReflect().Descriptor()
		if d.Fields().Len() != len(c.fields) {
			t.Errorf("%s has %d fields, the package numbers %d", d.FullName(), d.Fields().Len(), len(c.fields))
		}
		for name, num := range c.fields {
			fd := d.Fields().ByName(name)
			if fd == nil {
				t.Errorf("%s has no field %s", d.FullName(), name)
			} else if fd.Number() != num {
				t.Errorf("%s.%s is field %d, the package says %d", d.FullName(), name, fd.Number(), num)
			}
		}
	}
}

// TestLegalActionsAsSeatActions: a stream's LegalActions carries a live update's SeatActions bytes
// as they are, which needs the same field number for the actions.
func TestLegalActionsAsSeatActions(t *testing.T) {
	if wire.LegalActions != wire.SeatActionsActions {
		t.Errorf("LegalActions.actions is field %d, SeatActions.actions %d", wire.LegalActions, wire.SeatActionsActions)
	}
}
