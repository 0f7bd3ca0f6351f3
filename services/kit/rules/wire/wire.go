// Package wire defines, once, the field numbers of the messages that the rules service encodes
// and the gateway (and its load generator) read or write by hand on the action path
// (cardroom.rules.v1.TableUpdate and SeatActions, cardroom.events.v1.Event and Visibility,
// cardroom.gateway.v1.WatchResponse and LegalActions, google.protobuf.Any and Timestamp),
// instead of through proto.Marshal and proto.Unmarshal. Its test checks them against the generated
// descriptors.
package wire

import "google.golang.org/protobuf/encoding/protowire"

// Field numbers of cardroom.rules.v1.TableUpdate.
const (
	UpdateTableID protowire.Number = 1
	UpdateVersion protowire.Number = 2
	UpdateEvents  protowire.Number = 3
	UpdateLegal   protowire.Number = 4
	UpdateOmitted protowire.Number = 5
)

// Field numbers of cardroom.rules.v1.SeatActions.
const (
	SeatActionsSeat    protowire.Number = 1
	SeatActionsActions protowire.Number = 2
	SeatActionsLabels  protowire.Number = 3
)

// Field numbers of cardroom.events.v1.Event. Label is its last field: an event's other fields,
// then its label, are the order proto.Marshal writes.
const (
	EventTableID    protowire.Number = 1
	EventGame       protowire.Number = 2
	EventSequence   protowire.Number = 3
	EventVersion    protowire.Number = 4
	EventVisibility protowire.Number = 5
	EventTime       protowire.Number = 6
	EventPayload    protowire.Number = 7
	EventLabel      protowire.Number = 8
)

// Field numbers of google.protobuf.Any.
const (
	AnyTypeURL protowire.Number = 1
	AnyValue   protowire.Number = 2
)

// Field numbers of cardroom.events.v1.Visibility (a oneof).
const (
	VisibilityPublic protowire.Number = 1
	VisibilitySeat   protowire.Number = 2
)

// Field numbers of google.protobuf.Timestamp.
const (
	TimestampSeconds protowire.Number = 1
	TimestampNanos   protowire.Number = 2
)

// Field numbers of cardroom.gateway.v1.WatchResponse (a oneof but for events, a batch).
const (
	WatchEvent  protowire.Number = 1
	WatchLegal  protowire.Number = 2
	WatchEvents protowire.Number = 3
)

// Field numbers of cardroom.gateway.v1.LegalActions. Its actions are numbered as SeatActions'
// (LegalActions == SeatActionsActions), so a live update's bytes serve a stream as they are.
const (
	LegalVersion protowire.Number = 1
	LegalActions protowire.Number = 2
	LegalLabels  protowire.Number = 3
)

// The encoders write every tag above as one byte (field numbers up to 15).
const _ = uint(15 - max(UpdateTableID, UpdateVersion, UpdateEvents, UpdateLegal, UpdateOmitted,
	SeatActionsSeat, SeatActionsActions, SeatActionsLabels, AnyTypeURL, AnyValue, VisibilityPublic, VisibilitySeat,
	TimestampSeconds, TimestampNanos, WatchEvent, WatchLegal, WatchEvents, LegalVersion, LegalActions, LegalLabels))
