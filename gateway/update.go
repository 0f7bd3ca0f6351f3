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
				e := &eventsv1.Event{}
				if proto.Unmarshal(v, e) != nil {
					return false
				}
				// A copy: the hub keeps its events for the table's life, and a slice of data would
				// keep the whole update (every seat's legal actions) with it.
				he, err := hubEventOf(bytes.Clone(v), e)
				if err != nil {
					return false
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
