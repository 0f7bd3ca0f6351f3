package gateway

import (
	"fmt"
	"reflect"
	"testing"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/rules/wire"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func sampleUpdate(seats, actions int) *rulesv1.TableUpdate {
	u := &rulesv1.TableUpdate{TableId: "t-1", Version: 42}
	for i := range 3 {
		payload, _ := anypb.New(&eventsv1.TableFinished{Actions: uint64(i)})
		u.Events = append(u.Events, &eventsv1.Event{TableId: "t-1", Game: "g", Sequence: uint64(i + 1), Version: 42,
			Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: uint32(i)}},
			Time:       timestamppb.New(timestamppb.Now().AsTime()), Payload: payload, Label: fmt.Sprintf("{seat:%d} did ✓ %d", i, i)})
	}
	for s := range seats {
		sa := &rulesv1.SeatActions{Seat: uint32(s)}
		for a := range actions {
			v := []byte{byte(a), 1, 2}
			if a%5 == 0 {
				v = nil // an action whose message is empty
			}
			sa.Actions = append(sa.Actions, &anypb.Any{TypeUrl: "type.googleapis.com/cardroom.test.v1.Action", Value: v})
			sa.Labels = append(sa.Labels, fmt.Sprintf("open green %d, bet on {seat:%d} — doubled", a, s))
		}
		u.Legal = append(u.Legal, sa)
	}
	return u
}

// decodedOf is u decoded back from the bytes the hub keeps, every field checked against them.
func decodedOf(t *testing.T, u *liveUpdate) *rulesv1.TableUpdate {
	t.Helper()
	out := &rulesv1.TableUpdate{TableId: u.table, Version: u.version, LegalOmitted: u.omitted}
	for _, he := range u.events {
		e := &eventsv1.Event{}
		if err := proto.Unmarshal(he.head, e); err != nil {
			t.Fatalf("event %d: %v", he.seq, err)
		}
		if e.GetLabel() != "" {
			t.Fatalf("event %d: its head has the label %q", he.seq, e.GetLabel())
		}
		e.Label = he.label
		again, err := encodeHubEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		again.head = he.head
		if !reflect.DeepEqual(again, he) {
			t.Fatalf("event %d: kept as %+v, its bytes say %+v", he.seq, he, again)
		}
		out.Events = append(out.Events, e)
	}
	for _, l := range u.legal {
		la := &gatewayv1.LegalActions{}
		if err := proto.Unmarshal(l.actions, la); err != nil {
			t.Fatalf("seat %d's actions: %v", l.seat, err)
		}
		if len(la.GetActions()) != l.count || len(la.ProtoReflect().GetUnknown()) > 0 {
			t.Fatalf("seat %d: %d actions counted, %d encoded", l.seat, l.count, len(la.GetActions()))
		}
		out.Legal = append(out.Legal, &rulesv1.SeatActions{Seat: uint32(l.seat), Actions: la.GetActions(), Labels: l.labels})
	}
	return out
}

// decodeUpdate decodes what proto.Unmarshal decodes, and refuses what it refuses.
func TestDecodeUpdate(t *testing.T) {
	check := func(name string, data []byte) {
		t.Helper()
		want := &rulesv1.TableUpdate{}
		werr := proto.Unmarshal(data, want)
		got, err := decodeUpdate(data)
		// The hub keeps no unknown field of the update itself or of a seat's list, which Watch
		// never sent (those of its events and actions, kept in their bytes, are compared).
		want.ProtoReflect().SetUnknown(nil)
		for _, sa := range want.GetLegal() {
			sa.ProtoReflect().SetUnknown(nil)
		}
		switch {
		case (err != nil) != (werr != nil):
			t.Fatalf("%s: error %v, proto.Unmarshal's %v", name, err, werr)
		case err == nil && !proto.Equal(decodedOf(t, got), want):
			t.Fatalf("%s: decoded %v, proto.Unmarshal %v", name, decodedOf(t, got), want)
		}
	}
	for _, c := range []struct{ seats, actions int }{{0, 0}, {1, 0}, {1, 1}, {4, 7}, {2, 250}} {
		data, err := proto.Marshal(sampleUpdate(c.seats, c.actions))
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("%d seats × %d actions", c.seats, c.actions), data)
		if !decodeUpdateFast(data, &liveUpdate{}) {
			t.Fatalf("%d seats × %d actions: not decoded by the fast path", c.seats, c.actions)
		}
	}
	omitted, _ := proto.Marshal(&rulesv1.TableUpdate{TableId: "t", Version: 3, LegalOmitted: true})
	check("legal omitted", omitted)

	base, _ := proto.Marshal(sampleUpdate(2, 3))
	// An unknown field at each level goes to proto.Unmarshal, which keeps it.
	unknown := protowire.AppendTag(append([]byte(nil), base...), 99, protowire.VarintType)
	unknown = protowire.AppendVarint(unknown, 7)
	check("unknown field", unknown)
	sa := protowire.AppendTag(nil, wire.SeatActionsSeat, protowire.VarintType)
	sa = protowire.AppendVarint(sa, 1)
	sa = protowire.AppendTag(sa, 9, protowire.BytesType)
	sa = protowire.AppendBytes(sa, []byte("x"))
	withSA := protowire.AppendTag(append([]byte(nil), base...), wire.UpdateLegal, protowire.BytesType)
	check("unknown field in seat actions", protowire.AppendBytes(withSA, sa))
	anyb := protowire.AppendTag(nil, wire.AnyTypeURL, protowire.BytesType)
	anyb = protowire.AppendBytes(anyb, []byte("type.googleapis.com/x"))
	anyb = protowire.AppendTag(anyb, 5, protowire.VarintType)
	anyb = protowire.AppendVarint(anyb, 1)
	sa2 := protowire.AppendTag(nil, wire.SeatActionsActions, protowire.BytesType)
	sa2 = protowire.AppendBytes(sa2, anyb)
	withAny := protowire.AppendTag(append([]byte(nil), base...), wire.UpdateLegal, protowire.BytesType)
	check("unknown field in an action", protowire.AppendBytes(withAny, sa2))

	// Invalid UTF-8 in a label, a type URL, the table id: refused, as proto.Unmarshal refuses it.
	bad := protowire.AppendTag(nil, wire.SeatActionsLabels, protowire.BytesType)
	bad = protowire.AppendBytes(bad, []byte{0xff, 'a'})
	withBad := protowire.AppendTag(append([]byte(nil), base...), wire.UpdateLegal, protowire.BytesType)
	check("invalid label", protowire.AppendBytes(withBad, bad))
	badURL := protowire.AppendTag(nil, wire.AnyTypeURL, protowire.BytesType)
	badURL = protowire.AppendBytes(badURL, []byte{0xc3})
	sa3 := protowire.AppendTag(nil, wire.SeatActionsActions, protowire.BytesType)
	sa3 = protowire.AppendBytes(sa3, badURL)
	withBadURL := protowire.AppendTag(append([]byte(nil), base...), wire.UpdateLegal, protowire.BytesType)
	check("invalid type url", protowire.AppendBytes(withBadURL, sa3))
	badID := protowire.AppendTag(append([]byte(nil), base...), wire.UpdateTableID, protowire.BytesType)
	check("invalid table id", protowire.AppendBytes(badID, []byte{0xfe}))
	// Truncated anywhere: refused or decoded exactly as proto.Unmarshal does.
	for n := range len(base) {
		check(fmt.Sprintf("truncated to %d bytes", n), base[:n])
	}
}

// BenchmarkDecodeUpdate decodes a live update with one seat listing 250 actions, as a Sponsio
// betting turn does.
func BenchmarkDecodeUpdate(b *testing.B) {
	data, err := proto.Marshal(sampleUpdate(1, 250))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("proto.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := proto.Unmarshal(data, &rulesv1.TableUpdate{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeUpdate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeUpdate(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// sampleEvents are events as the rules service writes them: every audience, with and without a
// label, a time or a payload.
func sampleEvents(t testing.TB) [][]byte {
	finished, _ := anypb.New(&eventsv1.TableFinished{Actions: 9})
	other, _ := anypb.New(&eventsv1.TableCreated{})
	var out [][]byte
	for _, e := range []*eventsv1.Event{
		sampleUpdate(0, 0).GetEvents()[0],
		{TableId: "t", Game: "g", Sequence: 7, Version: 3, Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}},
			Time: timestamppb.Now(), Payload: other, Label: "{seat:1} bids"},
		{Sequence: 1, Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{}}, Payload: finished},
		{Sequence: 2, Version: 1 << 40, Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: 3}}, Label: "plain ✓"},
		{Sequence: 3, Visibility: &eventsv1.Visibility{}, Payload: &anypb.Any{TypeUrl: "cardroom.events.v1.TableFinished"}},
		{Payload: &anypb.Any{TypeUrl: "x/y.cardroom.events.v1.TableFinished"}},
		{},
	} {
		b, err := proto.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// checkEvent: when decodeEvent reads raw, it reads what proto.Unmarshal and hubEventOf do.
func checkEvent(t *testing.T, raw []byte) bool {
	t.Helper()
	got, ok := decodeEvent(raw)
	if !ok {
		return false
	}
	e := &eventsv1.Event{}
	if err := proto.Unmarshal(raw, e); err != nil {
		t.Fatalf("%x: read what proto.Unmarshal refuses (%v)", raw, err)
	}
	want, err := hubEventOf(raw, e)
	if err != nil {
		t.Fatalf("%x: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%x: read as %+v, proto.Unmarshal and hubEventOf say %+v", raw, got, want)
	}
	return true
}

func TestDecodeEvent(t *testing.T) {
	for _, raw := range sampleEvents(t) {
		if !checkEvent(t, raw) {
			t.Fatalf("%x: an event as the rules service writes it was left to proto.Unmarshal", raw)
		}
		for n := range len(raw) {
			checkEvent(t, raw[:n])
		}
	}
	// The oneof's last field is the audience, as proto.Unmarshal sets it.
	vis := protowire.AppendTag(nil, visibilitySeat, protowire.VarintType)
	vis = protowire.AppendVarint(vis, 2)
	vis = protowire.AppendTag(vis, visibilityPublic, protowire.VarintType)
	vis = protowire.AppendVarint(vis, 0)
	raw := protowire.AppendTag(nil, wire.EventVisibility, protowire.BytesType)
	raw = protowire.AppendBytes(raw, vis)
	if !checkEvent(t, raw) {
		t.Fatal("a visibility of both fields was left to proto.Unmarshal")
	}
	// What the rules service does not write goes to proto.Unmarshal: a label not last, a field
	// twice, an unknown field at any level.
	base := sampleEvents(t)[1]
	for name, raw := range map[string][]byte{
		"label not last": protowire.AppendString(protowire.AppendTag(append([]byte(nil), sampleEvents(t)[3]...), wire.EventGame, protowire.BytesType), "g"),
		"a field twice":  protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), base...), wire.EventSequence, protowire.VarintType), 1),
		"unknown field":  protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), base...), 20, protowire.VarintType), 1),
		"unknown in time": protowire.AppendBytes(protowire.AppendTag(nil, wire.EventTime, protowire.BytesType),
			protowire.AppendVarint(protowire.AppendTag(nil, 3, protowire.VarintType), 1)),
		"invalid label": protowire.AppendBytes(protowire.AppendTag(nil, wire.EventLabel, protowire.BytesType), []byte{0xff}),
	} {
		if _, ok := decodeEvent(raw); ok {
			t.Errorf("%s: read by decodeEvent", name)
		}
	}
}

// FuzzDecodeEvent: whatever decodeEvent reads, it reads as proto.Unmarshal and hubEventOf do.
func FuzzDecodeEvent(f *testing.F) {
	for _, raw := range sampleEvents(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkEvent(t, raw) })
}
