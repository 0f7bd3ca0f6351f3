package loadgen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestWireFieldNumbers checks the field numbers the lean decoders read against the descriptors
// of the generated code: a renumbered or renamed field fails here, not in a run.
func TestWireFieldNumbers(t *testing.T) {
	for _, c := range []struct {
		msg  proto.Message
		name protoreflect.Name
		num  protowire.Number
		kind protoreflect.Kind
	}{
		{&gatewayv1.WatchResponse{}, "event", watchEventField, protoreflect.MessageKind},
		{&gatewayv1.WatchResponse{}, "legal_actions", watchLegalField, protoreflect.MessageKind},
		{&gatewayv1.WatchResponse{}, "events", watchEventsField, protoreflect.MessageKind},
		{&eventsv1.Event{}, "sequence", eventSequence, protoreflect.Uint64Kind},
		{&eventsv1.Event{}, "version", eventVersion, protoreflect.Uint64Kind},
		{&eventsv1.Event{}, "payload", eventPayload, protoreflect.MessageKind},
		{&anypb.Any{}, "type_url", anyTypeURL, protoreflect.StringKind},
		{&gatewayv1.LegalActions{}, "version", legalVersion, protoreflect.Uint64Kind},
		{&gatewayv1.LegalActions{}, "actions", legalActions, protoreflect.MessageKind},
		{&gatewayv1.ActResponse{}, "version", actRespVersion, protoreflect.Uint64Kind},
		{&gatewayv1.ActResponse{}, "finished", actRespFinished, protoreflect.BoolKind},
		{&gatewayv1.ActRequest{}, "table_id", actReqTableID, protoreflect.StringKind},
		{&gatewayv1.ActRequest{}, "action", actReqAction, protoreflect.MessageKind},
		{&gatewayv1.ActRequest{}, "action_id", actReqActionID, protoreflect.StringKind},
		{&gatewayv1.ActRequest{}, "expected_version", actReqExpectedVer, protoreflect.Uint64Kind},
		{&sabaisabaiv1.Action{}, "throw", sabaiThrow, protoreflect.MessageKind},
		{&sabaisabaiv1.Action{}, "call_sabai_sabai", sabaiCall, protoreflect.MessageKind},
	} {
		md := c.msg.ProtoReflect().Descriptor()
		fd := md.Fields().ByName(c.name)
		if fd == nil || fd.Number() != c.num || fd.Kind() != c.kind {
			t.Errorf("%s.%s: the decoder reads field %d of kind %v; the descriptor has %v", md.FullName(), c.name, c.num, c.kind, fd)
		}
	}
	// The ActRequest encoder writes every field but include_legal_actions (false: not written).
	if n := (&gatewayv1.ActRequest{}).ProtoReflect().Descriptor().Fields().Len(); n != 5 {
		t.Errorf("ActRequest has %d fields; the encoder knows 5", n)
	}
}

// anyOf packs m, failing the test if it cannot.
func anyOf(t testing.TB, m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// randomWatch is a WatchResponse as a gateway sends them, with random content.
func randomWatch(t testing.TB, rnd *rand.Rand) *gatewayv1.WatchResponse {
	event := func() *eventsv1.Event {
		e := &eventsv1.Event{
			TableId:  fmt.Sprintf("t%08x", rnd.Uint32()),
			Game:     "sapotagem",
			Sequence: rnd.Uint64N(1 << uint(rnd.IntN(64))),
			Version:  rnd.Uint64N(1 << uint(rnd.IntN(40))),
			Time:     timestamppb.New(time.Unix(int64(rnd.Uint32()), rnd.Int64N(1e9))),
			Label:    "seat 2 (Ann) plays yellow 1 (Ducks) — ✓",
		}
		switch rnd.IntN(4) {
		case 0:
			e.Visibility = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}
		case 1:
			e.Visibility = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: rnd.Uint32N(6)}}
		}
		switch rnd.IntN(4) {
		case 0:
			e.Payload = anyOf(t, &eventsv1.TableFinished{Actions: rnd.Uint64N(500)})
		case 1:
			e.Payload = anyOf(t, &sapotagemv1.Card{Rank: rnd.Uint32N(12)})
		case 2:
			e.Payload = &anypb.Any{TypeUrl: "cardroom.events.v1.TableFinished"} // no host: MessageIs accepts it
		}
		return e
	}
	m := &gatewayv1.WatchResponse{}
	for range rnd.IntN(5) {
		m.Events = append(m.Events, event())
	}
	if rnd.IntN(8) == 0 {
		m.Event = event()
	}
	if rnd.IntN(2) == 0 {
		l := &gatewayv1.LegalActions{Version: rnd.Uint64N(1 << 20)}
		for i := range rnd.IntN(6) {
			var a proto.Message = &sapotagemv1.Action{Kind: &sapotagemv1.Action_Play{Play: &sapotagemv1.PlayCard{Card: &sapotagemv1.Card{Rank: uint32(i)}}}}
			if rnd.IntN(2) == 0 {
				a = &sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Throw{Throw: &sabaisabaiv1.Throw{}}}
			}
			l.Actions = append(l.Actions, anyOf(t, a))
			l.Labels = append(l.Labels, fmt.Sprintf("play %d", i))
		}
		m.LegalActions = l
	}
	return m
}

// picker is a watchMsg's pick that notes what it chose.
type picker struct {
	rnd    *rand.Rand
	picked int
}

func (p *picker) pick(n int) int {
	p.picked = p.rnd.IntN(n)
	return p.picked
}

// newWatchMsg is a watchMsg as a stream's reader makes it, its picks noted by p.
func newWatchMsg(p *picker, sabai bool) *watchMsg { return &watchMsg{pick: p.pick, sabai: sabai} }

// sameAsGenerated reports how the lean decoding got differs from the generated code's message;
// picked is the action got's picker chose.
func sameAsGenerated(want *gatewayv1.WatchResponse, got *watchMsg, picked int) error {
	head := func(e *eventsv1.Event) eventHead {
		return eventHead{sequence: e.GetSequence(), version: e.GetVersion(), finished: e.GetPayload().MessageIs(&eventsv1.TableFinished{})}
	}
	if len(got.events) != len(want.GetEvents()) {
		return fmt.Errorf("%d events, want %d", len(got.events), len(want.GetEvents()))
	}
	for i, e := range want.GetEvents() {
		if got.events[i] != head(e) {
			return fmt.Errorf("event %d: %+v, want %+v", i, got.events[i], head(e))
		}
	}
	if got.hasEvent != (want.Event != nil) || got.event != head(want.GetEvent()) {
		return fmt.Errorf("event: %v %+v, want %+v", got.hasEvent, got.event, want.GetEvent())
	}
	wl := want.GetLegalActions()
	if (got.legal != nil) != (wl != nil) {
		return fmt.Errorf("legal list %v, want %v", got.legal, wl)
	}
	if wl == nil {
		return nil
	}
	if got.legal.version != wl.GetVersion() || got.legal.n != len(wl.GetActions()) {
		return fmt.Errorf("legal list at %d with %d actions, want %d with %d", got.legal.version, got.legal.n, wl.GetVersion(), len(wl.GetActions()))
	}
	if got.legal.n == 0 {
		if got.legal.action != nil || got.legal.optional {
			return fmt.Errorf("empty list with an action %x, optional %v", got.legal.action, got.legal.optional)
		}
		return nil
	}
	var a anypb.Any
	if err := proto.Unmarshal(got.legal.action, &a); err != nil || !proto.Equal(&a, wl.GetActions()[picked]) {
		return fmt.Errorf("action %d: %v (%v), want %v", picked, &a, err, wl.GetActions()[picked])
	}
	var all [][]byte
	for _, x := range wl.GetActions() {
		b, err := proto.Marshal(x)
		if err != nil {
			return err
		}
		all = append(all, b)
	}
	if want := got.sabai && optionalOnly("sabaisabai", all); got.legal.optional != want {
		return fmt.Errorf("optional %v, want %v", got.legal.optional, want)
	}
	return nil
}

func TestDecodeWatchMatchesGenerated(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	p := &picker{rnd: rand.New(rand.NewPCG(9, 9))}
	for _, sabai := range []bool{false, true} {
		m := newWatchMsg(p, sabai) // reused, as a stream's reader does
		for i := range 2000 {
			want := randomWatch(t, rnd)
			b, err := proto.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			if err := decodeWatch(b, m); err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			if err := sameAsGenerated(want, m, p.picked); err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			// The list's action is the decoder's own: the buffer may be reused.
			if m.legal != nil {
				clear(b)
				if err := sameAsGenerated(want, m, p.picked); err != nil {
					t.Fatalf("message %d, after its buffer was cleared: %v", i, err)
				}
			}
		}
	}
}

// TestDecodeWatchMerges: a message field given twice on the wire is merged and a repeated one
// appended, as the generated code does.
func TestDecodeWatchMerges(t *testing.T) {
	a := &gatewayv1.WatchResponse{
		Event:        &eventsv1.Event{Sequence: 4, Payload: anyOf(t, &eventsv1.TableFinished{})},
		LegalActions: &gatewayv1.LegalActions{Version: 3, Actions: []*anypb.Any{anyOf(t, &sapotagemv1.Card{Rank: 1})}},
		Events:       []*eventsv1.Event{{Sequence: 1}},
	}
	b := &gatewayv1.WatchResponse{
		Event:        &eventsv1.Event{Version: 9},
		LegalActions: &gatewayv1.LegalActions{Version: 5, Actions: []*anypb.Any{anyOf(t, &sapotagemv1.Card{Rank: 2})}},
		Events:       []*eventsv1.Event{{Sequence: 2}},
	}
	var wire []byte
	for _, m := range []*gatewayv1.WatchResponse{a, b} {
		x, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		wire = append(wire, x...)
	}
	want := &gatewayv1.WatchResponse{}
	if err := proto.Unmarshal(wire, want); err != nil {
		t.Fatal(err)
	}
	p := &picker{rnd: rand.New(rand.NewPCG(1, 1))}
	got := newWatchMsg(p, false)
	if err := decodeWatch(wire, got); err != nil {
		t.Fatal(err)
	}
	if err := sameAsGenerated(want, got, p.picked); err != nil {
		t.Fatal(err)
	}
	if !got.event.finished || got.event.sequence != 4 || got.event.version != 9 || got.legal.n != 2 || got.legal.version != 5 {
		t.Fatalf("merged %+v %+v", got.event, got.legal)
	}
}

func TestDecodeWatchRefuses(t *testing.T) {
	valid, err := proto.Marshal(&gatewayv1.WatchResponse{Events: []*eventsv1.Event{{Sequence: 1, Version: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	tag := func(b []byte, n protowire.Number, typ protowire.Type) []byte { return protowire.AppendTag(b, n, typ) }
	event := func(inner []byte) []byte {
		return protowire.AppendBytes(tag(nil, watchEventsField, protowire.BytesType), inner)
	}
	for name, c := range map[string]struct {
		wire []byte
		want string
	}{
		"unknown field": {
			protowire.AppendVarint(tag(bytes.Clone(valid), 99, protowire.VarintType), 1), "field 99 unknown"},
		"unknown field of an event": {
			event(protowire.AppendVarint(tag(nil, 42, protowire.VarintType), 1)), "cardroom.events.v1.Event: field 42 unknown"},
		"sequence of the wrong wire type": {
			event(protowire.AppendBytes(tag(nil, eventSequence, protowire.BytesType), []byte{1})), "wire type 2, want 0"},
		"truncated": {valid[:len(valid)-1], "unexpected EOF"},
		"truncated varint": {
			event(append(tag(nil, eventVersion, protowire.VarintType), 0x80)), "unexpected EOF"},
		"label not UTF-8": {
			event(protowire.AppendBytes(tag(nil, 8, protowire.BytesType), []byte{0xff, 0xfe})), "not valid UTF-8"},
		"malformed time": {
			event(protowire.AppendBytes(tag(nil, 6, protowire.BytesType), []byte{0x08})), "google.protobuf.Timestamp"},
		"unknown field in a legal action": {
			protowire.AppendBytes(tag(nil, watchLegalField, protowire.BytesType),
				protowire.AppendBytes(tag(nil, legalActions, protowire.BytesType),
					protowire.AppendVarint(tag(nil, 3, protowire.VarintType), 1))), "google.protobuf.Any: field 3 unknown"},
		"a legal action's type URL not UTF-8": {
			protowire.AppendBytes(tag(nil, watchLegalField, protowire.BytesType),
				protowire.AppendBytes(tag(nil, legalActions, protowire.BytesType),
					protowire.AppendBytes(tag(nil, anyTypeURL, protowire.BytesType), []byte{0xff}))), "not valid UTF-8"},
		// Read as a sabai-sabai list: the first action is a throw, the second not a valid Any.
		"unknown field in a legal action after a throw": {
			protowire.AppendBytes(tag(nil, watchLegalField, protowire.BytesType),
				protowire.AppendBytes(tag(protowire.AppendBytes(tag(nil, legalActions, protowire.BytesType), throwAny(t)), legalActions, protowire.BytesType),
					protowire.AppendVarint(tag(nil, 3, protowire.VarintType), 1))), "google.protobuf.Any: field 3 unknown"},
		"group": {
			tag(tag(nil, 5, protowire.StartGroupType), 5, protowire.EndGroupType), "field 5 unknown"},
		"field number 0": {[]byte{0x00}, "invalid field number"},
	} {
		for _, sabai := range []bool{false, true} { // a sabai-sabai list is read another way
			m := watchMsg{sabai: sabai}
			err := decodeWatch(c.wire, &m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s (sabai-sabai %v): error %v, want one that says %q", name, sabai, err, c.want)
			}
		}
		if proto.Unmarshal(c.wire, &gatewayv1.WatchResponse{}) != nil {
			continue
		}
		// The generated code keeps what it does not know; the load generator refuses it.
		if !strings.Contains(name, "unknown") && !strings.Contains(name, "wrong wire type") && name != "group" {
			t.Errorf("%s: the generated code accepts it", name)
		}
	}
}

// throwAny is a sabai-sabai throw, encoded as a list brings it.
func throwAny(t testing.TB) []byte {
	b, err := proto.Marshal(anyOf(t, &sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Throw{Throw: &sabaisabaiv1.Throw{}}}))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hasUnknown reports whether m or a message in it kept fields unknown to its descriptor.
func hasUnknown(m protoreflect.Message) bool {
	if len(m.GetUnknown()) > 0 {
		return true
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := range v.List().Len() {
				found = found || hasUnknown(v.List().Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			found = hasUnknown(v.Message())
		}
		return !found
	})
	return found
}

// FuzzDecodeWatch: on any input the lean decoder agrees with the generated code, or refuses
// what the generated code would have to keep as unknown fields; it never accepts what the
// generated code refuses.
func FuzzDecodeWatch(f *testing.F) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		b, err := proto.Marshal(randomWatch(f, rnd))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want gatewayv1.WatchResponse
		genErr := proto.Unmarshal(b, &want)
		p := &picker{rnd: rand.New(rand.NewPCG(uint64(len(b)), 1))}
		got := newWatchMsg(p, len(b)%2 == 0)
		err := decodeWatch(b, got)
		switch {
		case genErr != nil && err == nil:
			t.Fatalf("accepted what the generated code refuses (%v)", genErr)
		case genErr != nil:
		case err != nil && !hasUnknown(want.ProtoReflect()):
			t.Fatalf("refused (%v) what the generated code reads in full", err)
		case err == nil:
			if err := sameAsGenerated(&want, got, p.picked); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestDecodeActAnswer(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		w := randomWatch(t, rnd)
		want := &gatewayv1.ActResponse{Version: rnd.Uint64(), Events: w.GetEvents(), Finished: rnd.IntN(2) == 0, Replayed: rnd.IntN(2) == 0,
			LegalActions: w.GetLegalActions().GetActions(), LegalLabels: w.GetLegalActions().GetLabels()}
		b, err := proto.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got actAnswer
		if err := decodeActAnswer(b, &got); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if got.version != want.GetVersion() || got.finished != want.GetFinished() {
			t.Fatalf("answer %d: %+v, want version %d finished %v", i, got, want.GetVersion(), want.GetFinished())
		}
	}
	if err := decodeActAnswer(protowire.AppendVarint(protowire.AppendTag(nil, 77, protowire.VarintType), 1), &actAnswer{}); err == nil {
		t.Error("an unknown field was accepted")
	}
}

func TestActRequestEncoding(t *testing.T) {
	action := anyOf(t, &sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Throw{Throw: &sabaisabaiv1.Throw{}}})
	raw, err := proto.Marshal(action)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []actRequest{
		{tableID: "t1", action: raw, idPrefix: "0123456789abcdef-", idSeq: 0, expectedVersion: 0},
		{tableID: "table-7", action: raw, idPrefix: "p-", idSeq: 1<<64 - 1, expectedVersion: 1 << 40},
		{action: raw, idPrefix: "p-", idSeq: 0xabc, expectedVersion: 3},
	} {
		v := r.expectedVersion
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(&gatewayv1.ActRequest{
			TableId: r.tableID, Action: action, ActionId: r.actionID(), ExpectedVersion: &v})
		if err != nil {
			t.Fatal(err)
		}
		got := r.appendTo(nil)
		if !bytes.Equal(got, want) || r.size() != len(got) {
			t.Errorf("%+v: encoded %x (size %d), want %x", r, got, r.size(), want)
		}
	}
	if id := (&actRequest{idPrefix: "p-", idSeq: 0x1f}).actionID(); id != "p-1f" {
		t.Errorf("action id %q", id)
	}
}

// TestCodec: the connection's codec reads the lean messages from a message split over buffers,
// and passes every other message to the standard codec.
func TestCodec(t *testing.T) {
	want := randomWatch(t, rand.New(rand.NewPCG(7, 8)))
	want.LegalActions = &gatewayv1.LegalActions{Version: 2, Actions: []*anypb.Any{anyOf(t, &sapotagemv1.Card{Rank: 5})}}
	b, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	split := mem.BufferSlice{mem.SliceBuffer(b[:len(b)/2]), mem.SliceBuffer(b[len(b)/2:])}
	p := &picker{rnd: rand.New(rand.NewPCG(1, 1))}
	got := newWatchMsg(p, false)
	if err := (codec{}).Unmarshal(split, got); err != nil {
		t.Fatal(err)
	}
	if err := sameAsGenerated(want, got, p.picked); err != nil {
		t.Fatal(err)
	}
	var std gatewayv1.WatchResponse
	if err := (codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &std); err != nil || !proto.Equal(&std, want) {
		t.Fatalf("standard message: %v", err)
	}
	if err := (codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer([]byte{0xff})}, &watchMsg{}); err == nil {
		t.Fatal("malformed message accepted")
	}
	r := &actRequest{tableID: "t", action: got.legal.action, idPrefix: "x-", idSeq: 9, expectedVersion: 2}
	enc, err := (codec{}).Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var req gatewayv1.ActRequest
	if err := proto.Unmarshal(enc.Materialize(), &req); err != nil {
		t.Fatal(err)
	}
	if req.GetTableId() != "t" || req.GetActionId() != "x-9" || req.GetExpectedVersion() != 2 || !proto.Equal(req.GetAction(), want.GetLegalActions().GetActions()[0]) {
		t.Fatalf("request %v", &req)
	}
	enc.Free()
}

// watchSample is a batched WatchResponse of a four-seat table: the events of one action (three)
// and the seat's legal list after it, of n actions.
func watchSample(t testing.TB, n int) []byte {
	ev := func(seq uint64, label string, payload proto.Message) *eventsv1.Event {
		return &eventsv1.Event{TableId: "01JF8ZQ4M5W9X2YV3T7R6K0PNB", Game: "sapotagem", Sequence: seq, Version: 41,
			Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}},
			Time:       timestamppb.Now(), Payload: anyOf(t, payload), Label: label}
	}
	m := &gatewayv1.WatchResponse{Events: []*eventsv1.Event{
		ev(120, "seat 2 (Ann) plays yellow 1 (Ducks)", &sapotagemv1.Card{Rank: 1}),
		ev(121, "seat 3 (you) draws", &sapotagemv1.Card{Rank: 7}),
		ev(122, "seat 3 (you) is to play", &sapotagemv1.Card{}),
	}, LegalActions: &gatewayv1.LegalActions{Version: 41}}
	for i := range n {
		m.LegalActions.Actions = append(m.LegalActions.Actions, anyOf(t, &sapotagemv1.Action{Kind: &sapotagemv1.Action_Play{Play: &sapotagemv1.PlayCard{Card: &sapotagemv1.Card{Rank: uint32(i)}}}}))
		m.LegalActions.Labels = append(m.LegalActions.Labels, fmt.Sprintf("play yellow %d (Ducks)", i))
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkDecodeWatch compares the generated decoder (what the load generator used) with the
// lean one on a message with a short list (6 actions) and one with a long list (300: a Sponsio
// seat's bets run longer).
func BenchmarkDecodeWatch(b *testing.B) {
	for _, n := range []int{6, 300} {
		b.Run(fmt.Sprintf("list=%d", n), func(b *testing.B) { benchmarkDecodeWatch(b, watchSample(b, n)) })
	}
}

func benchmarkDecodeWatch(b *testing.B, wire []byte) {
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m gatewayv1.WatchResponse
			if err := proto.Unmarshal(wire, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lean", func(b *testing.B) {
		b.ReportAllocs()
		m := newWatchMsg(&picker{rnd: rand.New(rand.NewPCG(1, 1))}, false)
		for b.Loop() {
			if err := decodeWatch(wire, m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeActAnswer compares the generated decoder with the lean one on an answer to Act
// carrying the events of the action (those of watchSample).
func BenchmarkDecodeActAnswer(b *testing.B) {
	var w gatewayv1.WatchResponse
	if err := proto.Unmarshal(watchSample(b, 0), &w); err != nil {
		b.Fatal(err)
	}
	wire, err := proto.Marshal(&gatewayv1.ActResponse{Version: 41, Events: w.GetEvents()})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m gatewayv1.ActResponse
			if err := proto.Unmarshal(wire, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lean", func(b *testing.B) {
		b.ReportAllocs()
		var a actAnswer
		for b.Loop() {
			if err := decodeActAnswer(wire, &a); err != nil {
				b.Fatal(err)
			}
		}
	})
}
