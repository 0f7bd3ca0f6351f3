package rules

import (
	"bytes"
	"strings"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// referenceEntry builds the messages encodeEntry writes directly, for proto.Marshal to compare.
func referenceEntry(h *entryHead, table, game string, seq uint64, evs []engine.Event, label func(proto.Message) string) *rulesv1.LogEntry {
	e := &rulesv1.LogEntry{Version: h.version, Action: h.action, ActionId: h.actionID, Time: timestamppb.New(h.at), StandIn: h.standIn}
	switch h.by {
	case bySeat:
		e.By = &rulesv1.LogEntry_Seat{Seat: h.seat}
	case byTimeout:
		e.By = &rulesv1.LogEntry_Timeout{Timeout: true}
	case byAbort:
		e.By = &rulesv1.LogEntry_Abort{Abort: true}
	}
	for i, ev := range evs {
		payload, err := anypb.New(ev.Payload)
		if err != nil {
			panic(err)
		}
		vis := &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}
		if ev.To >= 0 {
			vis = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: uint32(ev.To)}}
		}
		var l string
		if label != nil {
			l = label(ev.Payload)
		}
		e.Events = append(e.Events, &eventsv1.Event{TableId: table, Game: game, Sequence: seq + uint64(i) + 1,
			Version: h.version, Visibility: vis, Time: timestamppb.New(h.at), Payload: payload, Label: l})
	}
	return e
}

func TestEncodeEntry(t *testing.T) {
	action, _ := anypb.New(wrapperspb.String("reveal"))
	withUnknown, _ := anypb.New(wrapperspb.String("pass"))
	withUnknown.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 5))
	finished := &eventsv1.TableFinished{
		Config:  &gamev1.TableConfig{Game: "highcard", Seed: 42, Seats: []*gamev1.Seat{{Index: 0}, {Index: 1}}},
		Outcome: &gamev1.Outcome{Summary: "done", Results: []*gamev1.SeatResult{{Seat: 1, Score: 3, Winner: true}}},
		Actions: 9, StartedAt: timestamppb.New(time.UnixMilli(1)), FinishedAt: timestamppb.New(time.UnixMilli(2)),
	}
	events := []engine.Event{
		{To: engine.Public, Payload: wrapperspb.String("round 1 dealt")},
		{To: 0, Payload: wrapperspb.String("your card 7")},
		{To: 1, Payload: wrapperspb.String("")}, // an empty payload: the Any has no value
		{To: 300, Payload: &emptypb.Empty{}},
		{To: engine.Public, Payload: finished},
	}
	at := time.UnixMilli(1_800_000_000_123)
	// Labels of every length a varint may take one or two bytes for, and none.
	label := func(m proto.Message) string {
		switch p := m.(type) {
		case *wrapperspb.StringValue:
			if p.GetValue() == "" {
				return ""
			}
			return "{seat:0} sees " + p.GetValue()
		case *emptypb.Empty:
			return strings.Repeat("long label ", 20)
		}
		return "the game is over"
	}
	cases := []struct {
		name  string
		head  entryHead
		table string
		seq   uint64
		evs   []engine.Event
		label func(proto.Message) string
	}{
		{"created", entryHead{at: at}, "t1", 0, events, nil},
		{"labelled", entryHead{at: at}, "t1", 0, events, label},
		{"seat", entryHead{version: 3, by: bySeat, seat: 1, action: action, actionID: "a-1", at: at}, "t1", 17, events[:2], label},
		{"stand-in", entryHead{version: 4, by: bySeat, seat: 2, action: action, actionID: "b:4:2", at: at, standIn: true}, "t1", 20, events[:3], label},
		{"seat zero", entryHead{version: 1, by: bySeat, action: action, actionID: "x", at: time.UnixMilli(0)}, "t", 1, events, nil},
		{"no events", entryHead{version: 200, by: bySeat, seat: 5, action: action, actionID: strings.Repeat("i", 128), at: at}, "t", 1 << 40, nil, label},
		{"unknown fields", entryHead{version: 2, by: bySeat, action: withUnknown, actionID: "u", at: at}, "t", 3, events[1:3], nil},
		{"timeout", entryHead{version: 9, by: byTimeout, at: at}, strings.Repeat("T", 64), 300, events, label},
		{"abort", entryHead{version: 12, by: byAbort, at: at.Add(-time.Hour * 24 * 365 * 60)}, "t", 1, events[4:], label},
		{"before 1970", entryHead{version: 1, by: bySeat, action: action, actionID: "b", at: time.UnixMilli(-1500)}, "t", 1, events[:1], nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, encs, err := encodeEntry(&c.head, c.table, "highcard", c.seq, c.evs, c.label, nil)
			if err != nil {
				t.Fatal(err)
			}
			ref := referenceEntry(&c.head, c.table, "highcard", c.seq, c.evs, c.label)
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(ref)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, want) {
				t.Fatalf("entry bytes differ:\n got %x\nwant %x", data, want)
			}
			if len(encs) != len(c.evs) {
				t.Fatalf("%d encoded events for %d", len(encs), len(c.evs))
			}
			for i, e := range encs {
				w, _ := proto.Marshal(ref.GetEvents()[i])
				if !bytes.Equal(e.raw, w) {
					t.Fatalf("event %d bytes differ", i)
				}
				if e.seq != c.seq+uint64(i)+1 || e.to != c.evs[i].To || !bytes.Equal(e.value, ref.GetEvents()[i].GetPayload().GetValue()) ||
					e.typeURL != ref.GetEvents()[i].GetPayload().GetTypeUrl() {
					t.Fatalf("event %d: %+v", i, e)
				}
				if _, fin := c.evs[i].Payload.(*eventsv1.TableFinished); fin != e.finished {
					t.Fatalf("event %d: finished %v", i, e.finished)
				}
			}
			// The reply's envelopes are the reference events each seat may see.
			for _, seat := range []int{engine.Spectator, 0, 1, 300} {
				got := envelopes(c.table, "highcard", c.head.version, c.head.at, encs, seat)
				wantEvs := visibleTo(ref.GetEvents(), seat)
				if len(got) != len(wantEvs) {
					t.Fatalf("seat %d sees %d events, want %d", seat, len(got), len(wantEvs))
				}
				for i := range got {
					if !proto.Equal(got[i], wantEvs[i]) {
						t.Fatalf("seat %d event %d: %v, want %v", seat, i, got[i], wantEvs[i])
					}
				}
			}
			// The bus messages are those built from the decoded events.
			wantMsgs, err := messages(bus.Subjects{}, ref.GetEvents())
			if err != nil {
				t.Fatal(err)
			}
			gotMsgs := committedMessages(bus.Subjects{}, c.table, encs, &subjects{})
			if len(gotMsgs) != len(wantMsgs) || len(gotMsgs) != len(visibleTo(ref.GetEvents(), engine.Spectator)) {
				t.Fatalf("%d messages, want %d", len(gotMsgs), len(wantMsgs))
			}
			for i := range gotMsgs {
				g, w := gotMsgs[i], wantMsgs[i]
				if g.Subject != w.Subject || g.ID != w.ID || !bytes.Equal(g.Data, w.Data) || g.Subject != (bus.Subjects{}).Public(c.table) {
					t.Fatalf("message %d: %s %s, want %s %s", i, g.Subject, g.ID, w.Subject, w.ID)
				}
			}
		})
	}
}

func TestEncodeEntryRefusesInvalidUTF8(t *testing.T) {
	for _, h := range []entryHead{
		{version: 1, by: bySeat, actionID: "\xff"},
		{version: 1, by: bySeat, actionID: "a", action: &anypb.Any{TypeUrl: "\xfe"}},
	} {
		if _, _, err := encodeEntry(&h, "t", "g", 0, nil, nil, nil); err == nil {
			t.Fatalf("%+v: no error", h)
		}
	}
	if _, _, err := encodeEntry(&entryHead{}, "t", "g\xff", 0, nil, nil, nil); err == nil {
		t.Fatal("invalid game name: no error")
	}
	// A label that is not valid UTF-8 is mended rather than refused: the event happened.
	evs := []engine.Event{{To: engine.Public, Payload: &emptypb.Empty{}}}
	_, encs, err := encodeEntry(&entryHead{}, "t", "g", 0, evs, func(proto.Message) string { return "bad \xff" }, nil)
	if err != nil || encs[0].label != "bad \uFFFD" {
		t.Fatalf("invalid label: %v, %q", err, encs[0].label)
	}
}

// TestEntryActor reads the seat and the stand-in mark back from encoded entries.
func TestEntryActor(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_000)
	action, _ := anypb.New(wrapperspb.String("play"))
	for _, h := range []entryHead{
		{version: 1, by: bySeat, seat: 0, action: action, actionID: "a", at: at},
		{version: 2, by: bySeat, seat: 3, action: action, actionID: "b:2:3", at: at, standIn: true},
		{version: 3, by: byTimeout, at: at},
		{version: 4, by: byAbort, at: at},
	} {
		data, _, err := encodeEntry(&h, "t", "highcard", 0, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		seat, bySeat_, standIn, err := entryActor(data)
		if err != nil || bySeat_ != (h.by == bySeat) || seat != h.seat || standIn != h.standIn {
			t.Errorf("entry %d: seat %d, by seat %v, stand-in %v, %v", h.version, seat, bySeat_, standIn, err)
		}
	}
	if _, _, _, err := entryActor([]byte{0x10}); err == nil {
		t.Error("a truncated entry was read")
	}
}

// TestSummaryRefs: a finished table's label names the seats of the outcome's summary as people
// count them, with their names, never the API's seat numbers.
func TestSummaryRefs(t *testing.T) {
	names := func(seat int) (string, bool) { return []string{"Ann", "Bot B", "Cid"}[seat], seat == 2 }
	for _, tc := range []struct{ summary, want string }{
		{"seat 0 wins with 23 points", "seat 1 (Ann) wins with 23 points"},
		{"seats [0 2] share the win", "seat 1 (Ann) and seat 3 (you) share the win"},
		{"seat 1 wins; seat 0 is second", "seat 2 (Bot B) wins; seat 1 (Ann) is second"},
		{"aborted", "aborted"},
	} {
		if got := engine.RenderLabel(summaryRefs(tc.summary), names); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.summary, got, tc.want)
		}
	}
}
