package loadgen

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// The load generator reads what it needs of its streams straight from the wire.
//
// A seat's Watch stream brings about seven events and two legal-action lists per action at a
// table; decoded with the generated code, every event became a message with its table id, game,
// visibility, time, payload and label strings, and every list a message per action, to read a
// sequence, a version, whether the payload is TableFinished and a list's actions. That was a
// quarter of the load generator's CPU, and its CPU counts in the machine's CPU per action that
// `cardroom bench` reports. The decoders below read those few fields and walk the rest only to
// check it: the wire format must be valid, every field must be one the message's descriptor
// declares with its wire type, strings must be UTF-8 and nested messages valid the same way. A
// message the generated code would refuse is refused here too; a field the bench does not know
// (a server newer than its load generator, or a wire type that does not match) is an error
// rather than skipped, so that a change to the API cannot quietly make the bench miscount.

// Field numbers the decoders read (TestWireFieldNumbers checks them against the descriptors).
const (
	watchEventField                    = wire.WatchEvent
	watchLegalField                    = wire.WatchLegal
	watchEventsField                   = wire.WatchEvents
	eventSequence                      = wire.EventSequence
	eventVersion                       = wire.EventVersion
	eventPayload                       = wire.EventPayload
	anyTypeURL                         = wire.AnyTypeURL
	legalVersion                       = wire.LegalVersion
	legalActions                       = wire.LegalActions
	actRespVersion    protowire.Number = 1 // ActResponse.version
	actRespFinished   protowire.Number = 3 // ActResponse.finished
	actReqTableID     protowire.Number = 1 // ActRequest.table_id
	actReqAction      protowire.Number = 2 // ActRequest.action
	actReqActionID    protowire.Number = 3 // ActRequest.action_id
	actReqExpectedVer protowire.Number = 4 // ActRequest.expected_version
)

// watchMsg is what the bench reads of a WatchResponse. A stream's reader decodes every message
// into the same watchMsg: its events slice is reused, its legal list is new for each message that
// has one (the seat keeps it until it plays).
type watchMsg struct {
	// pick chooses the action to play among n listed (nil: the first); sabai: the table plays
	// sabai-sabai, whose lists of optional moves only are told apart (legalList.optional). Set by
	// the stream's reader, kept across messages.
	pick  func(n int) int
	sabai bool

	// event is WatchResponse.event, the unbatched form (hasEvent: present).
	event    eventHead
	hasEvent bool
	// events are WatchResponse.events, in order.
	events []eventHead
	// legal is WatchResponse.legal_actions (nil: none).
	legal *legalList
	// scan is the legal list while the message is read (see readLegal).
	scan legalScan
}

// legalScan is a LegalActions while its records are read (a field given twice is merged, as the
// generated code merges it): its version, its actions as they lie in gRPC's buffer (reused from
// message to message, cleared after each), and whether all of them are sabai-sabai's optional
// moves so far.
type legalScan struct {
	seen     bool // a legal_actions record was read
	version  uint64
	actions  [][]byte
	optional bool
}

// eventHead is what the bench reads of an Event.
type eventHead struct {
	sequence, version uint64
	// finished: the payload is a cardroom.events.v1.TableFinished.
	finished bool
}

// legalList is what the bench reads of a LegalActions: its version, how many actions it lists,
// and the one the seat will play if it plays this list — chosen as the list is read, so that only
// that one is copied out of gRPC's buffer (lists run to hundreds of actions and tens of
// kilobytes). The action is the encoded google.protobuf.Any as it came, sent back as is in
// ActRequest.action.
type legalList struct {
	version uint64
	n       int
	action  []byte // nil when n is 0
	// optional: a sabai-sabai list of optional moves only (see optionalOnly).
	optional bool
}

// actAnswer is what the bench reads of an ActResponse.
type actAnswer struct {
	version  uint64
	finished bool
}

// actRequest is an ActRequest encoded without building the message: the action is the encoded
// Any a list brought, the action id is idPrefix followed by idSeq in hex (unique per seat and
// action without a random read per action).
type actRequest struct {
	tableID         string
	action          []byte
	idPrefix        string
	idSeq           uint64
	expectedVersion uint64
}

// msgSpec is a message's fields as the wire must carry them, made from its descriptor.
type msgSpec struct {
	name   protoreflect.FullName
	fields map[protowire.Number]fieldSpec
	// byNum is fields indexed by number, for the numbers below maxIndexed: a slice read instead of
	// a map lookup for every record the load generator reads.
	byNum []fieldSpec
}

const maxIndexed = 32

// field is the spec of field num; ok is false when the message has none.
func (s *msgSpec) field(num protowire.Number) (f fieldSpec, ok bool) {
	if uint(num) < uint(len(s.byNum)) {
		f = s.byNum[num]
		return f, f.known
	}
	f, ok = s.fields[num]
	return f, ok
}

type fieldSpec struct {
	known bool // a field of the message
	typ   protowire.Type
	// packed: a repeated scalar, which may also come packed in one length-delimited record of
	// packedTyp values.
	packed    bool
	packedTyp protowire.Type
	utf8      bool     // a string the generated code checks for UTF-8
	msg       *msgSpec // a message field's own fields
}

var (
	specs         = map[protoreflect.FullName]*msgSpec{}
	watchSpec     = specOf((&gatewayv1.WatchResponse{}).ProtoReflect().Descriptor())
	eventSpec     = specOf((&eventsv1.Event{}).ProtoReflect().Descriptor())
	legalSpec     = specOf((&gatewayv1.LegalActions{}).ProtoReflect().Descriptor())
	anySpec       = specOf((&anypb.Any{}).ProtoReflect().Descriptor())
	actRespSpec   = specOf((&gatewayv1.ActResponse{}).ProtoReflect().Descriptor())
	tableFinished = string((&eventsv1.TableFinished{}).ProtoReflect().Descriptor().FullName())
)

// specOf builds (once per message, recursive types included) the spec of md.
func specOf(md protoreflect.MessageDescriptor) *msgSpec {
	if s, ok := specs[md.FullName()]; ok {
		return s
	}
	s := &msgSpec{name: md.FullName(), fields: map[protowire.Number]fieldSpec{}}
	specs[md.FullName()] = s
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		f := fieldSpec{known: true}
		switch fd.Kind() {
		case protoreflect.MessageKind:
			f.typ, f.msg = protowire.BytesType, specOf(fd.Message())
		case protoreflect.GroupKind:
			f.typ = protowire.StartGroupType // refused by next
		case protoreflect.StringKind:
			f.typ = protowire.BytesType
			f.utf8 = fd.ParentFile().Syntax() != protoreflect.Proto2
		case protoreflect.BytesKind:
			f.typ = protowire.BytesType
		case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
			f.typ = protowire.Fixed32Type
		case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
			f.typ = protowire.Fixed64Type
		default: // the varint kinds: integers, bool, enum
			f.typ = protowire.VarintType
		}
		if fd.IsList() && f.typ != protowire.BytesType && f.typ != protowire.StartGroupType {
			f.packed, f.packedTyp = true, f.typ
		}
		s.fields[fd.Number()] = f
		if n := fd.Number(); n < maxIndexed {
			if int(n) >= len(s.byNum) {
				s.byNum = append(s.byNum, make([]fieldSpec, int(n)+1-len(s.byNum))...)
			}
			s.byNum[n] = f
		}
	}
	return s
}

// field is one record read from the wire: its number and type, and its value (v for varints,
// b for length-delimited records).
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

// next reads the record at the start of b and returns the rest; spec must declare it with that
// wire type. Values of fields the caller does not read are checked here.
func next(spec *msgSpec, b []byte, f *field) ([]byte, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return nil, fmt.Errorf("%s: %w", spec.name, protowire.ParseError(n))
	}
	b = b[n:]
	fs, ok := spec.field(num)
	if !ok {
		return nil, fmt.Errorf("%s: field %d unknown to the load generator (wire type %d)", spec.name, num, typ)
	}
	if typ != fs.typ && !(fs.packed && typ == protowire.BytesType) {
		return nil, fmt.Errorf("%s: field %d has wire type %d, want %d", spec.name, num, typ, fs.typ)
	}
	f.num, f.typ, f.v, f.b = num, typ, 0, nil
	switch typ {
	case protowire.VarintType:
		f.v, n = protowire.ConsumeVarint(b)
	case protowire.Fixed32Type:
		_, n = protowire.ConsumeFixed32(b)
	case protowire.Fixed64Type:
		_, n = protowire.ConsumeFixed64(b)
	case protowire.BytesType:
		f.b, n = protowire.ConsumeBytes(b)
	default: // groups: none of the messages read here has one (proto3 has none)
		return nil, fmt.Errorf("%s: field %d: groups are not supported", spec.name, num)
	}
	if n < 0 {
		return nil, fmt.Errorf("%s: field %d: %w", spec.name, num, protowire.ParseError(n))
	}
	if typ == protowire.BytesType {
		switch {
		case fs.packed:
			if err := validatePacked(fs.packedTyp, f.b); err != nil {
				return nil, fmt.Errorf("%s: field %d: %w", spec.name, num, err)
			}
		case fs.utf8:
			if !utf8.Valid(f.b) {
				return nil, fmt.Errorf("%s: field %d: string is not valid UTF-8", spec.name, num)
			}
		}
		// A message field's own fields: the callers decode those they read, validate the rest.
	}
	return b[n:], nil
}

// validate checks that b is a valid encoding of spec's message (see next), nested messages
// included.
func validate(spec *msgSpec, b []byte) error {
	var f field
	for len(b) > 0 {
		var err error
		if b, err = next(spec, b, &f); err != nil {
			return err
		}
		if f.typ == protowire.BytesType {
			if fs, _ := spec.field(f.num); fs.msg != nil {
				if err := validate(fs.msg, f.b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func validatePacked(typ protowire.Type, b []byte) error {
	for len(b) > 0 {
		var n int
		switch typ {
		case protowire.VarintType:
			_, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			_, n = protowire.ConsumeFixed32(b)
		case protowire.Fixed64Type:
			_, n = protowire.ConsumeFixed64(b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
	}
	return nil
}

// decodeWatch reads a WatchResponse into m (its events replace m's). The legal list's actions
// are copied out of b, which the caller may reuse.
func decodeWatch(b []byte, m *watchMsg) error {
	m.event, m.hasEvent, m.events, m.legal = eventHead{}, false, m.events[:0], nil
	m.scan = legalScan{actions: m.scan.actions[:0], optional: m.sabai}
	var f field
	for len(b) > 0 {
		var err error
		if b, err = next(watchSpec, b, &f); err != nil {
			return err
		}
		switch f.num {
		case watchEventField: // a message field given twice is merged, as the generated code does
			m.hasEvent = true
			err = decodeEvent(f.b, &m.event)
		case watchEventsField:
			m.events = append(m.events, eventHead{})
			err = decodeEvent(f.b, &m.events[len(m.events)-1])
		case watchLegalField:
			err = m.scan.read(f.b)
		default:
			if fs, _ := watchSpec.field(f.num); fs.msg != nil {
				err = validate(fs.msg, f.b)
			}
		}
		if err != nil {
			return err
		}
	}
	if m.scan.seen {
		m.legal = m.scan.list(m.pick)
		clear(m.scan.actions) // no reference to the buffer left behind
	}
	return nil
}

// decodeEvent reads an Event into e, merging with what e holds (as a repeated occurrence of the
// same message field merges).
func decodeEvent(b []byte, e *eventHead) error {
	var f field
	for len(b) > 0 {
		var err error
		if b, err = next(eventSpec, b, &f); err != nil {
			return err
		}
		switch f.num {
		case eventSequence:
			e.sequence = f.v
		case eventVersion:
			e.version = f.v
		case eventPayload:
			err = payloadKind(f.b, e)
		default:
			if fs, _ := eventSpec.field(f.num); fs.msg != nil {
				err = validate(fs.msg, f.b)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// payloadKind checks an event's payload (an Any) and notes whether it is TableFinished.
func payloadKind(b []byte, e *eventHead) error {
	var f field
	for len(b) > 0 {
		var err error
		if b, err = next(anySpec, b, &f); err != nil {
			return err
		}
		if f.num == anyTypeURL {
			e.finished = typeIs(f.b, tableFinished)
		}
	}
	return nil
}

// typeIs reports whether an Any's type URL names the message name, as anypb.Any.MessageIs does:
// the URL is the name, or ends with "/" and the name.
func typeIs(url []byte, name string) bool {
	if len(url) < len(name) || string(url[len(url)-len(name):]) != name {
		return false
	}
	return len(url) == len(name) || url[len(url)-len(name)-1] == '/'
}

// read checks a LegalActions record (see next), each action a valid Any, and adds it to the
// list: one walk over the record, which is most of what a Watch message holds (lists run to
// hundreds of actions and tens of kilobytes).
func (ls *legalScan) read(b []byte) error {
	ls.seen = true
	var f field
	for len(b) > 0 {
		var err error
		if b, err = next(legalSpec, b, &f); err != nil {
			return err
		}
		switch f.num {
		case legalVersion:
			ls.version = f.v
		case legalActions:
			ls.actions = append(ls.actions, f.b)
			// While the list may be sabai-sabai's optional moves only, reading an action's kind
			// checks it too (sabaiKind reads every record of the Any with next); after that, and
			// for a kind that is not one, the Any is checked on its own.
			if ls.optional && optionalMove(f.b) {
				continue
			}
			ls.optional = false
			if err := validate(anySpec, f.b); err != nil {
				return err
			}
		}
	}
	return nil
}

// list is the list read, its action to play picked with pick (nil: the first) and the only one
// copied out of gRPC's buffer.
func (ls *legalScan) list(pick func(int) int) *legalList {
	n := len(ls.actions)
	l := &legalList{version: ls.version, n: n, optional: ls.optional && n > 0}
	if n == 0 {
		return l
	}
	k := 0
	if pick != nil {
		k = pick(n)
	}
	l.action = bytes.Clone(ls.actions[k])
	return l
}

// decodeActAnswer reads an ActResponse.
func decodeActAnswer(b []byte, a *actAnswer) error {
	*a = actAnswer{}
	var f field
	for len(b) > 0 {
		var err error
		if b, err = next(actRespSpec, b, &f); err != nil {
			return err
		}
		switch f.num {
		case actRespVersion:
			a.version = f.v
		case actRespFinished:
			a.finished = f.v != 0
		default:
			if fs, _ := actRespSpec.field(f.num); fs.msg != nil {
				if err := validate(fs.msg, f.b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// size is the length of r's encoding.
func (r *actRequest) size() int {
	n := 0
	if r.tableID != "" {
		n = protowire.SizeTag(actReqTableID) + protowire.SizeBytes(len(r.tableID))
	}
	return n + protowire.SizeTag(actReqAction) + protowire.SizeBytes(len(r.action)) +
		protowire.SizeTag(actReqActionID) + protowire.SizeBytes(len(r.idPrefix)+hexLen(r.idSeq)) +
		protowire.SizeTag(actReqExpectedVer) + protowire.SizeVarint(r.expectedVersion)
}

// appendTo appends r's encoding to b: the fields in number order, as proto.Marshal writes them.
// The expected version is always written: the field has presence, and the bench always sets it.
func (r *actRequest) appendTo(b []byte) []byte {
	if r.tableID != "" {
		b = protowire.AppendTag(b, actReqTableID, protowire.BytesType)
		b = protowire.AppendString(b, r.tableID)
	}
	b = protowire.AppendTag(b, actReqAction, protowire.BytesType)
	b = protowire.AppendBytes(b, r.action)
	b = protowire.AppendTag(b, actReqActionID, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(r.idPrefix)+hexLen(r.idSeq)))
	b = append(b, r.idPrefix...)
	b = appendHex(b, r.idSeq)
	b = protowire.AppendTag(b, actReqExpectedVer, protowire.VarintType)
	return protowire.AppendVarint(b, r.expectedVersion)
}

// actionID is the action id r sends.
func (r *actRequest) actionID() string {
	return string(appendHex([]byte(r.idPrefix), r.idSeq))
}

func hexLen(v uint64) int {
	n := 1
	for v >= 16 {
		v >>= 4
		n++
	}
	return n
}

func appendHex(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	n := hexLen(v)
	for i := n - 1; i >= 0; i-- {
		b = append(b, digits[(v>>(4*uint(i)))&0xf])
	}
	return b
}
