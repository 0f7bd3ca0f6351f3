package rules

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The log entry and its event envelopes are written straight to the wire format, in one buffer,
// without building cardroom.rules.v1.LogEntry and cardroom.events.v1.Event messages to marshal
// (only the payloads the game made go through proto.Marshal). The bytes are those proto.Marshal
// writes for the same messages: fields in number order with the oneof last, zero scalars left out
// (TestEncodeEntry).

// Field numbers of cardroom.rules.v1.LogEntry.
const (
	entryVersion  protowire.Number = 1
	entrySeat     protowire.Number = 2
	entryTimeout  protowire.Number = 3
	entryAction   protowire.Number = 4
	entryActionID protowire.Number = 5
	entryTime     protowire.Number = 6
	entryEvents   protowire.Number = 7
	entryStandIn  protowire.Number = 9
	entryAbort    protowire.Number = 8
)

// Field numbers of cardroom.events.v1.Event, its Visibility, google.protobuf.Any and Timestamp.
const (
	eventTableID    = wire.EventTableID
	eventGame       = wire.EventGame
	eventSequence   = wire.EventSequence
	eventVersion    = wire.EventVersion
	eventVisibility = wire.EventVisibility
	eventTime       = wire.EventTime
	eventPayload    = wire.EventPayload
	eventLabel      = wire.EventLabel

	visibilityPublic = wire.VisibilityPublic
	visibilitySeat   = wire.VisibilitySeat

	anyTypeURL = wire.AnyTypeURL
	anyValue   = wire.AnyValue

	timestampSeconds = wire.TimestampSeconds
	timestampNanos   = wire.TimestampNanos
)

// by says who made a log entry (LogEntry.by).
type by uint8

const (
	byNone by = iota // the creation entry
	bySeat
	byTimeout
	byAbort
)

// entryHead is a log entry without its events.
type entryHead struct {
	version  uint64
	by       by
	seat     uint32
	action   *anypb.Any
	actionID string
	at       time.Time
	// standIn: cardroom's bot played the seat's move for its absent player.
	standIn bool
}

// encodedEvent is one event as committed: its audience and sequence, and its envelope (a
// cardroom.events.v1.Event) inside the log entry's bytes.
type encodedEvent struct {
	to       int
	seq      uint64
	finished bool // the payload is a TableFinished
	typeURL  string
	raw      []byte // the envelope
	value    []byte // the payload's bytes, inside raw
	label    string
}

var errInvalidUTF8 = errors.New("string field contains invalid UTF-8")

func sizeString(n protowire.Number, s string) int {
	if s == "" {
		return 0
	}
	return protowire.SizeTag(n) + protowire.SizeBytes(len(s))
}

func sizeUint(n protowire.Number, v uint64) int {
	if v == 0 {
		return 0
	}
	return protowire.SizeTag(n) + protowire.SizeVarint(v)
}

func sizeMessage(n protowire.Number, size int) int {
	return protowire.SizeTag(n) + protowire.SizeBytes(size)
}

// appendVarint is protowire.AppendVarint, inlined for the one-byte values most tags and lengths are.
func appendVarint(b []byte, v uint64) []byte {
	if v < 1<<7 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

// Every field number above is below 16 (this fails to compile otherwise), so every tag is one byte.
const _ = uint(15 - max(entryVersion, entrySeat, entryTimeout, entryAction, entryActionID, entryTime, entryEvents,
	entryAbort, entryStandIn, eventTableID, eventGame, eventSequence, eventVersion, eventVisibility, eventTime, eventPayload,
	eventLabel, visibilityPublic, visibilitySeat, anyTypeURL, anyValue, timestampSeconds, timestampNanos))

// appendTag is protowire.AppendTag for the field numbers above.
func appendTag(b []byte, n protowire.Number, t protowire.Type) []byte {
	return append(b, byte(n)<<3|byte(t))
}

func appendString(b []byte, n protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, n, protowire.BytesType)
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendUint(b []byte, n protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, n, protowire.VarintType)
	return appendVarint(b, v)
}

func appendMessageHead(b []byte, n protowire.Number, size int) []byte {
	b = appendTag(b, n, protowire.BytesType)
	return appendVarint(b, uint64(size))
}

// timestamp is a google.protobuf.Timestamp's fields.
type timestamp struct {
	seconds int64
	nanos   int32
}

func timestampOf(t time.Time) timestamp { return timestamp{t.Unix(), int32(t.Nanosecond())} }

func (ts timestamp) size() int {
	return sizeUint(timestampSeconds, uint64(ts.seconds)) + sizeUint(timestampNanos, uint64(int64(ts.nanos)))
}

func (ts timestamp) append(b []byte) []byte {
	b = appendUint(b, timestampSeconds, uint64(ts.seconds))
	return appendUint(b, timestampNanos, uint64(int64(ts.nanos)))
}

func visibilitySize(to int) int {
	if to < 0 {
		return protowire.SizeTag(visibilityPublic) + 1
	}
	return protowire.SizeTag(visibilitySeat) + protowire.SizeVarint(uint64(uint32(to)))
}

func appendVisibility(b []byte, to int) []byte {
	if to < 0 {
		b = appendTag(b, visibilityPublic, protowire.VarintType)
		return appendVarint(b, 1)
	}
	b = appendTag(b, visibilitySeat, protowire.VarintType)
	return appendVarint(b, uint64(uint32(to)))
}

func anySize(typeURL string, valueSize int) int {
	n := sizeString(anyTypeURL, typeURL)
	if valueSize > 0 {
		n += protowire.SizeTag(anyValue) + protowire.SizeBytes(valueSize)
	}
	return n
}

// plainAny reports whether a is only a type URL and a value (no unknown fields), so it can be
// written field by field.
func plainAny(a *anypb.Any) bool { return len(a.ProtoReflect().GetUnknown()) == 0 }

// eventSizes is what encodeEntry computes of an event before writing it.
type eventSizes struct {
	payload, any, envelope int
}

// encodeEntry encodes a log entry with the envelopes of evs, numbered from after seq: the bytes to
// store, and each event's envelope within them for the bus and the reply. Each payload is
// marshalled once: the log and the bus carry the same bytes. label (nil: none) labels each event's
// payload in words; the label is stored with the event, so replays carry it.
//
// The events are returned in buf when its capacity is enough.
func encodeEntry(h *entryHead, table, game string, seq uint64, evs []engine.Event, label func(proto.Message) string, buf []encodedEvent) ([]byte, []encodedEvent, error) {
	if !utf8.ValidString(table) || !utf8.ValidString(game) || !utf8.ValidString(h.actionID) {
		return nil, nil, fmt.Errorf("encode log entry: %w", errInvalidUTF8)
	}
	out := buf[:0]
	if cap(out) < len(evs) {
		out = make([]encodedEvent, 0, len(evs))
	}
	out = out[:len(evs)]
	var small [8]eventSizes
	sizes := small[:0]
	if len(evs) > len(small) {
		sizes = make([]eventSizes, 0, len(evs))
	}
	ts := timestampOf(h.at)
	tsSize := ts.size()
	// Everything an envelope has but its sequence, visibility and payload.
	common := sizeString(eventTableID, table) + sizeString(eventGame, game) + sizeUint(eventVersion, h.version) +
		sizeMessage(eventTime, tsSize)
	size := sizeUint(entryVersion, h.version) + sizeString(entryActionID, h.actionID) + sizeMessage(entryTime, tsSize)
	switch h.by {
	case bySeat:
		size += protowire.SizeTag(entrySeat) + protowire.SizeVarint(uint64(h.seat))
	case byTimeout:
		size += protowire.SizeTag(entryTimeout) + 1
	case byAbort:
		size += protowire.SizeTag(entryAbort) + 1
	}
	if h.standIn {
		size += protowire.SizeTag(entryStandIn) + 1
	}
	var action []byte
	if h.action != nil {
		if plainAny(h.action) {
			if !utf8.ValidString(h.action.GetTypeUrl()) {
				return nil, nil, fmt.Errorf("encode action: %w", errInvalidUTF8)
			}
			size += sizeMessage(entryAction, anySize(h.action.GetTypeUrl(), len(h.action.GetValue())))
		} else {
			var err error
			if action, err = proto.Marshal(h.action); err != nil {
				return nil, nil, fmt.Errorf("encode action: %w", err)
			}
			size += sizeMessage(entryAction, len(action))
		}
	}
	var lastType protoreflect.MessageDescriptor
	var lastURL string
	for i, e := range evs {
		var es eventSizes
		es.payload = proto.Size(e.Payload)
		// Events of one action are mostly of one type: ask the shared cache once per type.
		d := e.Payload.ProtoReflect().Descriptor()
		if d != lastType {
			lastType, lastURL = d, typeURL(e.Payload)
		}
		u := lastURL
		es.any = anySize(u, es.payload)
		var l string
		if label != nil {
			l = validLabel(label(e.Payload))
		}
		es.envelope = common + sizeUint(eventSequence, seq+uint64(i)+1) + sizeMessage(eventVisibility, visibilitySize(e.To)) +
			sizeMessage(eventPayload, es.any) + sizeString(eventLabel, l)
		sizes = append(sizes, es)
		size += sizeMessage(entryEvents, es.envelope)
		_, finished := e.Payload.(*eventsv1.TableFinished)
		out[i] = encodedEvent{to: e.To, seq: seq + uint64(i) + 1, finished: finished, typeURL: u, label: l}
	}

	b := make([]byte, 0, size)
	b = appendUint(b, entryVersion, h.version)
	if h.action != nil {
		if action != nil {
			b = appendMessageHead(b, entryAction, len(action))
			b = append(b, action...)
		} else {
			b = appendMessageHead(b, entryAction, anySize(h.action.GetTypeUrl(), len(h.action.GetValue())))
			b = appendString(b, anyTypeURL, h.action.GetTypeUrl())
			if v := h.action.GetValue(); len(v) > 0 {
				b = appendTag(b, anyValue, protowire.BytesType)
				b = appendVarint(b, uint64(len(v)))
				b = append(b, v...)
			}
		}
	}
	b = appendString(b, entryActionID, h.actionID)
	b = appendMessageHead(b, entryTime, tsSize)
	b = ts.append(b)
	for i, e := range evs {
		es := sizes[i]
		b = appendMessageHead(b, entryEvents, es.envelope)
		start := len(b)
		b = appendString(b, eventTableID, table)
		b = appendString(b, eventGame, game)
		b = appendUint(b, eventSequence, out[i].seq)
		b = appendUint(b, eventVersion, h.version)
		b = appendMessageHead(b, eventVisibility, visibilitySize(e.To))
		b = appendVisibility(b, e.To)
		b = appendMessageHead(b, eventTime, tsSize)
		b = ts.append(b)
		b = appendMessageHead(b, eventPayload, es.any)
		b = appendString(b, anyTypeURL, out[i].typeURL)
		if es.payload > 0 {
			b = appendTag(b, anyValue, protowire.BytesType)
			b = appendVarint(b, uint64(es.payload))
			vstart := len(b)
			var err error
			// The size was just computed: reuse it.
			if b, err = (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(b, e.Payload); err != nil {
				return nil, nil, fmt.Errorf("wrap event: %w", err)
			}
			if len(b)-vstart != es.payload {
				return nil, nil, fmt.Errorf("wrap event: %s changed while it was encoded", typeNameOf(e.Payload))
			}
			out[i].value = b[vstart:len(b):len(b)]
		}
		b = appendString(b, eventLabel, out[i].label)
		if len(b)-start != es.envelope {
			return nil, nil, errors.New("encode event: size mismatch")
		}
		out[i].raw = b[start:len(b):len(b)]
	}
	if h.standIn {
		b = appendTag(b, entryStandIn, protowire.VarintType)
		b = appendVarint(b, 1)
	}
	// The oneof goes last, as proto.Marshal writes it.
	switch h.by {
	case bySeat:
		b = appendTag(b, entrySeat, protowire.VarintType)
		b = appendVarint(b, uint64(h.seat))
	case byTimeout:
		b = appendTag(b, entryTimeout, protowire.VarintType)
		b = appendVarint(b, 1)
	case byAbort:
		b = appendTag(b, entryAbort, protowire.VarintType)
		b = appendVarint(b, 1)
	}
	if len(b) != size {
		return nil, nil, errors.New("encode log entry: size mismatch")
	}
	return b, out, nil
}

// validLabel is l made valid UTF-8 (a proto string must be), bad bytes replaced.
func validLabel(l string) string {
	if utf8.ValidString(l) {
		return l
	}
	return strings.ToValidUTF8(l, "\uFFFD")
}

func typeNameOf(m proto.Message) string { return string(m.ProtoReflect().Descriptor().FullName()) }

// envelopes builds the messages of the events seat may see (Spectator: the public ones), for a
// reply. Payload bytes are copied out of the log entry, which the store keeps.
func envelopes(table, game string, version uint64, at time.Time, evs []encodedEvent, seat int) []*eventsv1.Event {
	n, size := 0, 0
	for i := range evs {
		if visible(evs[i].to, seat) {
			n++
			size += len(evs[i].value)
		}
	}
	// One allocation for each kind of thing rather than several per event.
	type envelope struct {
		event   eventsv1.Event
		payload anypb.Any
		time    timestamppb.Timestamp
	}
	out := make([]*eventsv1.Event, n)
	envs := make([]envelope, n)
	values := make([]byte, 0, size)
	ts := timestampOf(at)
	j := 0
	for i := range evs {
		e := &evs[i]
		if !visible(e.to, seat) {
			continue
		}
		p := &envs[j].payload
		p.TypeUrl = e.typeURL
		if len(e.value) > 0 {
			values = append(values, e.value...)
			p.Value = values[len(values)-len(e.value) : len(values) : len(values)]
		}
		t := &envs[j].time
		t.Seconds, t.Nanos = ts.seconds, ts.nanos
		env := &envs[j].event
		env.TableId, env.Game, env.Sequence, env.Version = table, game, e.seq, version
		env.Visibility, env.Time, env.Payload, env.Label = visibility(e.to), t, p, e.label
		out[j] = env
		j++
	}
	return out
}

// visible reports whether an event for audience to is visible to seat (Spectator: public only).
func visible(to, seat int) bool { return to < 0 || to == seat }

// entryActor reads who made a log entry (cardroom.rules.v1.LogEntry) without decoding the rest:
// the seat when a seat's move made it, and whether a stand-in played that move.
func entryActor(data []byte) (seat uint32, bySeat, standIn bool, err error) {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return 0, false, false, protowire.ParseError(n)
		}
		data = data[n:]
		if typ == protowire.VarintType && (num == entrySeat || num == entryStandIn) {
			v, m := protowire.ConsumeVarint(data)
			if m < 0 {
				return 0, false, false, protowire.ParseError(m)
			}
			data = data[m:]
			if num == entrySeat {
				seat, bySeat = uint32(v), true
			} else {
				standIn = v != 0
			}
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, data)
		if m < 0 {
			return 0, false, false, protowire.ParseError(m)
		}
		data = data[m:]
	}
	return seat, bySeat, standIn, nil
}

// eventLabel labels an event in words: the harness's own events here, the game's by the engine.
func (s *Server) eventLabel(m proto.Message) string {
	switch e := m.(type) {
	case *eventsv1.TableCreated:
		return "the table is dealt"
	case *eventsv1.TableFinished:
		o := e.GetOutcome()
		switch {
		case o.GetAborted():
			return "the game is " + cmp.Or(summaryRefs(o.GetSummary()), "aborted")
		case o.GetSummary() != "":
			return "the game is over: " + summaryRefs(o.GetSummary())
		}
		return "the game is over"
	}
	return s.eng.DescribeEvent(m)
}

var (
	summarySeat  = regexp.MustCompile(`\bseat (\d+)\b`)
	summarySeats = regexp.MustCompile(`\bseats \[(\d+(?: \d+)*)\]`)
)

// summaryRefs makes an outcome's summary, which names seats as the API counts them ("seat 0 wins",
// "seats [0 2] share the win"), a label's words: seat references, which readers see numbered from
// 1 and named ("seat 1 (Ann) wins", "seat 1 (Ann) and seat 3 (Bot B) share the win").
func summaryRefs(summary string) string {
	summary = summarySeats.ReplaceAllStringFunc(summary, func(m string) string {
		var seats []uint32
		for _, f := range strings.Fields(summarySeats.FindStringSubmatch(m)[1]) {
			n, _ := strconv.Atoi(f)
			seats = append(seats, uint32(n))
		}
		return engine.SeatList(seats)
	})
	return summarySeat.ReplaceAllStringFunc(summary, func(m string) string {
		n, _ := strconv.Atoi(summarySeat.FindStringSubmatch(m)[1])
		return engine.SeatRef(n)
	})
}

// typeURLs caches google.protobuf.Any type URLs by message name.
var typeURLs sync.Map

func typeURL(m proto.Message) string {
	name := m.ProtoReflect().Descriptor().FullName()
	if u, ok := typeURLs.Load(name); ok {
		return u.(string)
	}
	u := "type.googleapis.com/" + string(name)
	typeURLs.Store(name, u)
	return u
}

// Visibilities are immutable once built, so the common ones are shared by every envelope.
var (
	publicVisibility = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}
	seatVisibility   = func() (v [16]*eventsv1.Visibility) {
		for i := range v {
			v[i] = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: uint32(i)}}
		}
		return v
	}()
)

func visibility(to int) *eventsv1.Visibility {
	switch {
	case to < 0:
		return publicVisibility
	case to < len(seatVisibility):
		return seatVisibility[to]
	}
	return &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: uint32(to)}}
}
