package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// liveUpdate is a live update (cardroom.rules.v1.TableUpdate) as a hub keeps it: its events and
// every seat's legal actions in the form the table's streams write them (watchwire.go).
type liveUpdate struct {
	table   string
	version uint64
	events  []hubEvent
	legal   []seatLegal
	omitted bool // legal_omitted: a republication, without legal actions
}

// hubEvent is one event of a table as its hub keeps it: what a stream needs to pick and order it,
// and its encoding, made once for every stream of the table.
type hubEvent struct {
	seq, version uint64
	// audience is who may see the event: publicAudience, noAudience, or a seat (0 and up).
	audience int
	finished bool // the payload is a TableFinished
	// head is the event encoded without its label, every other field as the rules service wrote
	// it; a stream writes it, then the label rendered for its reader. The label is Event's last
	// field, so that order is the one proto.Marshal writes.
	head  []byte
	label string // seats as "{seat:N}" tokens
	refs  bool   // label names seats (engine.HasSeatRef)
}

const (
	publicAudience = -1
	noAudience     = -2
)

// seatLegal is one seat's legal actions as a live update carried them: the actions still encoded,
// as LegalActions.actions records (the same field number as SeatActions.actions, so the update's
// bytes serve as they are), and their labels, rendered for each reader.
type seatLegal struct {
	seat    int
	actions []byte
	count   int
	labels  []string
}

// decodeUpdate decodes a live update. The fast path keeps each event's bytes and each seat's
// encoded actions as slices of data, which must not change afterwards; anything it does not
// expect (unknown fields, invalid UTF-8, a malformed message) is left to proto.Unmarshal, which
// decides, and the events are then encoded again from what it decoded.
func decodeUpdate(data []byte) (*liveUpdate, error) {
	u := &liveUpdate{}
	if decodeUpdateFast(data, u) {
		return u, nil
	}
	m := &rulesv1.TableUpdate{}
	if err := proto.Unmarshal(data, m); err != nil {
		return nil, err
	}
	return updateOf(m)
}

// updateOf is m as a hub keeps it, every event and action encoded by proto.Marshal.
func updateOf(m *rulesv1.TableUpdate) (*liveUpdate, error) {
	u := &liveUpdate{table: m.GetTableId(), version: m.GetVersion(), omitted: m.GetLegalOmitted()}
	for _, e := range m.GetEvents() {
		he, err := encodeHubEvent(e)
		if err != nil {
			return nil, err
		}
		u.events = append(u.events, he)
	}
	for _, sa := range m.GetLegal() {
		l, err := legalOf(int(sa.GetSeat()), sa.GetActions(), sa.GetLabels())
		if err != nil {
			return nil, err
		}
		u.legal = append(u.legal, l)
	}
	return u, nil
}

// encodeHubEvent is e as a hub keeps it, encoded by proto.Marshal (events read from the log, and
// the slow path of decodeUpdate).
func encodeHubEvent(e *eventsv1.Event) (hubEvent, error) {
	raw, err := proto.Marshal(e)
	if err != nil {
		return hubEvent{}, fmt.Errorf("encode event: %w", err)
	}
	return hubEventOf(raw, e)
}

// hubEventOf is the event raw encodes, decoded as e.
func hubEventOf(raw []byte, e *eventsv1.Event) (hubEvent, error) {
	head, err := withoutLabel(raw)
	if err != nil {
		return hubEvent{}, err
	}
	he := hubEvent{seq: e.GetSequence(), version: e.GetVersion(), audience: noAudience,
		finished: e.GetPayload().MessageIs(&eventsv1.TableFinished{}), head: head, label: e.GetLabel()}
	switch a := e.GetVisibility().GetAudience().(type) {
	case *eventsv1.Visibility_Public:
		he.audience = publicAudience
	case *eventsv1.Visibility_Seat:
		he.audience = int(a.Seat)
	}
	he.refs = engine.HasSeatRef(he.label)
	return he, nil
}

// withoutLabel is the encoded event raw without its label field: raw's beginning when the label
// comes last, once (as every encoder writes it), else a copy of every other field.
func withoutLabel(raw []byte) ([]byte, error) {
	labels, last := 0, -1
	for b := raw; len(b) > 0; {
		at := len(raw) - len(b)
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, errors.New("encoded event: malformed tag")
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, errors.New("encoded event: malformed field")
		}
		b = b[n+m:]
		if num == eventLabel {
			labels++
			last = at
		}
	}
	switch {
	case labels == 0:
		return raw, nil
	case labels == 1 && lastField(raw, last):
		return raw[:last:last], nil
	}
	out := make([]byte, 0, len(raw))
	for b := raw; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if num != eventLabel {
			out = append(out, b[:n+m]...)
		}
		b = b[n+m:]
	}
	return out, nil
}

// lastField reports whether the field at offset at of raw (well formed) is its last.
func lastField(raw []byte, at int) bool {
	num, typ, n := protowire.ConsumeTag(raw[at:])
	return at+n+protowire.ConsumeFieldValue(num, typ, raw[at+n:]) == len(raw)
}

// legalOf is a seat's decoded legal actions as a hub keeps them (the slow path, and lists the
// rules service gives).
func legalOf(seat int, actions []*anypb.Any, labels []string) (seatLegal, error) {
	l := seatLegal{seat: seat, count: len(actions), labels: labels}
	for _, a := range actions {
		size := proto.Size(a)
		l.actions = protowire.AppendTag(l.actions, legalActions, protowire.BytesType)
		l.actions = protowire.AppendVarint(l.actions, uint64(size))
		var err error
		if l.actions, err = (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(l.actions, a); err != nil {
			return seatLegal{}, fmt.Errorf("encode legal action: %w", err)
		}
	}
	return l, nil
}

func decodeUpdateFast(b []byte, u *liveUpdate) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch {
		case typ == protowire.BytesType && (num == wire.UpdateTableID || num == wire.UpdateEvents || num == wire.UpdateLegal):
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return false
			}
			b = b[m:]
			switch num {
			case wire.UpdateTableID:
				if !utf8.Valid(v) {
					return false
				}
				u.table = string(v)
			case wire.UpdateEvents:
				// A copy: the hub keeps its events for the table's life, and a slice of data would
				// keep the whole update (every seat's legal actions) with it.
				raw := bytes.Clone(v)
				he, ok := decodeEvent(raw)
				if !ok {
					e := &eventsv1.Event{}
					if proto.Unmarshal(raw, e) != nil {
						return false
					}
					var err error
					if he, err = hubEventOf(raw, e); err != nil {
						return false
					}
				}
				if u.events == nil {
					u.events = make([]hubEvent, 0, 4) // an action's events: one to three mostly
				}
				u.events = append(u.events, he)
			case wire.UpdateLegal:
				l, ok := decodeSeatActions(v)
				if !ok {
					return false
				}
				u.legal = append(u.legal, l)
			}
		case typ == protowire.VarintType && (num == wire.UpdateVersion || num == wire.UpdateOmitted):
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return false
			}
			b = b[m:]
			if num == wire.UpdateVersion {
				u.version = v
			} else {
				u.omitted = v != 0
			}
		default:
			return false
		}
	}
	return true
}

// decodeSeatActions decodes one cardroom.rules.v1.SeatActions (false: not as expected). The
// actions stay encoded: a slice of v when they are together in it (as the rules service writes
// them), else a copy; the labels share one string.
func decodeSeatActions(v []byte) (seatLegal, bool) {
	var l seatLegal
	labels := 0
	// first..end is the span of the actions while they are contiguous; split: they are not.
	first, end, split := -1, -1, false
	for b := v; len(b) > 0; {
		at := len(v) - len(b)
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return seatLegal{}, false
		}
		b = b[n:]
		switch {
		case num == wire.SeatActionsSeat && typ == protowire.VarintType:
			s, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return seatLegal{}, false
			}
			b = b[m:]
			l.seat = int(uint32(s))
		case (num == wire.SeatActionsActions || num == wire.SeatActionsLabels) && typ == protowire.BytesType:
			x, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return seatLegal{}, false
			}
			b = b[m:]
			if num == wire.SeatActionsLabels {
				if !utf8.Valid(x) {
					return seatLegal{}, false
				}
				labels++
				continue
			}
			if !validAny(x) {
				return seatLegal{}, false
			}
			l.count++
			switch {
			case first < 0:
				first = at
			case at != end:
				split = true
			}
			end = len(v) - len(b)
		default:
			return seatLegal{}, false
		}
	}
	switch {
	case split:
		for b := v; len(b) > 0; {
			num, typ, n := protowire.ConsumeTag(b)
			m := protowire.ConsumeFieldValue(num, typ, b[n:])
			if num == wire.SeatActionsActions {
				l.actions = append(l.actions, b[:n+m]...)
			}
			b = b[n+m:]
		}
	case first >= 0:
		l.actions = v[first:end:end]
	}
	if labels == 0 {
		return l, true
	}
	// One string for all labels: offsets into v are offsets into all.
	all := string(v)
	l.labels = make([]string, 0, labels)
	for b := v; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if num != wire.SeatActionsLabels {
			b = b[n+protowire.ConsumeFieldValue(num, typ, b[n:]):]
			continue
		}
		x, m := protowire.ConsumeBytes(b[n:])
		at := len(v) - len(b) + n + (m - len(x))
		l.labels = append(l.labels, all[at:at+len(x)])
		b = b[n+m:]
	}
	return l, true
}

// validAny reports whether x is a google.protobuf.Any as the fast path expects one: a type URL
// (valid UTF-8) and a value, nothing else.
func validAny(x []byte) bool {
	for len(x) > 0 {
		num, typ, n := protowire.ConsumeTag(x)
		if n < 0 || typ != protowire.BytesType || (num != wire.AnyTypeURL && num != wire.AnyValue) {
			return false
		}
		v, m := protowire.ConsumeBytes(x[n:])
		if m < 0 {
			return false
		}
		if num == wire.AnyTypeURL && !utf8.Valid(v) {
			return false
		}
		x = x[n+m:]
	}
	return true
}

// decodeEvent reads an encoded cardroom.events.v1.Event, which it keeps, as a hub keeps it: what
// hubEventOf takes from the decoded message, without decoding it. It reads the event as the rules
// service writes it; false: anything else (an unknown field or wire type, a field twice, the label
// not last, invalid UTF-8, a malformed message), for proto.Unmarshal to decide. FuzzDecodeEvent
// checks it against proto.Unmarshal and hubEventOf.
func decodeEvent(raw []byte) (hubEvent, bool) {
	he := hubEvent{audience: noAudience, head: raw}
	var seen uint32 // the fields read, by number
	for b := raw; len(b) > 0; {
		at := len(raw) - len(b)
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num > wire.EventLabel || seen&(1<<num) != 0 {
			return hubEvent{}, false
		}
		seen |= 1 << num
		b = b[n:]
		if num == wire.EventSequence || num == wire.EventVersion {
			v, m := protowire.ConsumeVarint(b)
			if typ != protowire.VarintType || m < 0 {
				return hubEvent{}, false
			}
			b = b[m:]
			if num == wire.EventSequence {
				he.seq = v
			} else {
				he.version = v
			}
			continue
		}
		if typ != protowire.BytesType {
			return hubEvent{}, false
		}
		x, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return hubEvent{}, false
		}
		b = b[m:]
		ok := true
		switch num {
		case wire.EventTableID, wire.EventGame:
			ok = utf8.Valid(x)
		case wire.EventVisibility:
			he.audience, ok = decodeVisibility(x)
		case wire.EventTime:
			ok = validTimestamp(x)
		case wire.EventPayload:
			he.finished, ok = decodePayload(x)
		case wire.EventLabel:
			// Last, as every encoder writes it: the head is what comes before.
			if !utf8.Valid(x) || len(b) > 0 {
				return hubEvent{}, false
			}
			he.label = string(x)
			he.head = raw[:at:at]
			he.refs = engine.HasSeatRef(he.label)
		}
		if !ok {
			return hubEvent{}, false
		}
	}
	return he, true
}

// The fields of google.protobuf.Timestamp and cardroom.events.v1.Visibility decodeEvent reads.
const (
	timestampSeconds = wire.TimestampSeconds
	timestampNanos   = wire.TimestampNanos
	visibilityPublic = wire.VisibilityPublic
	visibilitySeat   = wire.VisibilitySeat
)

// decodeVisibility is the audience of an encoded Visibility: its oneof's last field, as
// proto.Unmarshal sets it (public even when false).
func decodeVisibility(x []byte) (audience int, ok bool) {
	audience = noAudience
	for len(x) > 0 {
		num, typ, n := protowire.ConsumeTag(x)
		if n < 0 || typ != protowire.VarintType || (num != visibilityPublic && num != visibilitySeat) {
			return 0, false
		}
		v, m := protowire.ConsumeVarint(x[n:])
		if m < 0 {
			return 0, false
		}
		x = x[n+m:]
		if num == visibilityPublic {
			audience = publicAudience
		} else {
			audience = int(uint32(v))
		}
	}
	return audience, true
}

// validTimestamp reports whether x is an encoded Timestamp of its two fields only.
func validTimestamp(x []byte) bool {
	for len(x) > 0 {
		num, typ, n := protowire.ConsumeTag(x)
		if n < 0 || typ != protowire.VarintType || (num != timestampSeconds && num != timestampNanos) {
			return false
		}
		_, m := protowire.ConsumeVarint(x[n:])
		if m < 0 {
			return false
		}
		x = x[n+m:]
	}
	return true
}

// finishedName is the full name of TableFinished, which ends a table's events.
var finishedName = string((&eventsv1.TableFinished{}).ProtoReflect().Descriptor().FullName())

// decodePayload reads an event's payload (an Any as validAny takes it): whether it is a
// TableFinished, as anypb's MessageIs tells.
func decodePayload(x []byte) (finished, ok bool) {
	if !validAny(x) {
		return false, false
	}
	var url []byte
	for len(x) > 0 {
		num, _, n := protowire.ConsumeTag(x)
		v, m := protowire.ConsumeBytes(x[n:])
		x = x[n+m:]
		if num == wire.AnyTypeURL {
			url = v // the last, as proto.Unmarshal keeps it
		}
	}
	if !bytes.HasSuffix(url, []byte(finishedName)) {
		return false, true
	}
	return len(url) == len(finishedName) || url[len(url)-len(finishedName)-1] == '/', true
}
