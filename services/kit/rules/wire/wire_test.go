package wire_test

import (
	"testing"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
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
