package main

import (
	"fmt"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

// audit checks a finished table's run against its replay, where seat is our seat (spectator: we
// watched without one, and sent no action):
//
//   - the replay holds each version once, 1..n, and its events each sequence once, 1..m;
//   - every action we were answered OK for is in it exactly once, by our seat, at the version the
//     answer gave; an action id of ours answered otherwise (ABORTED, FAILED_PRECONDITION) is not
//     in it (a refusal that applied all the same would be a lie to the client);
//   - the events our Watch streams delivered, across resumptions, are exactly the replay's events
//     that our seat may see (public ones and our seat's), in order: same sequence, version,
//     audience and content. A gap anywhere, an event twice, or an event whose content differs
//     from the table's log (an event stream that diverged from the table) fails.
func audit(r *gatewayv1.GetReplayResponse, seat int, answered map[string]answer, stream []*eventsv1.Event) error {
	var all []*eventsv1.Event
	all = append(all, r.GetCreatedEvents()...)
	ids := map[string][]uint64{} // action id → versions it appears at
	for i, en := range r.GetEntries() {
		if en.GetVersion() != uint64(i+1) {
			return fmt.Errorf("replay entry %d has version %d: an action lost or applied twice", i, en.GetVersion())
		}
		if id := en.GetActionId(); id != "" {
			if int(en.GetSeat()) != seat {
				return fmt.Errorf("replay version %d: action id %s given on seat %d's entry, ours is %d", en.GetVersion(), id, en.GetSeat(), seat)
			}
			ids[id] = append(ids[id], en.GetVersion())
		}
		all = append(all, en.GetEvents()...)
	}
	for i, e := range all {
		if e.GetSequence() != uint64(i+1) {
			return fmt.Errorf("replay: event %d where %d was due", e.GetSequence(), i+1)
		}
	}
	for id, a := range answered {
		at := ids[id]
		switch {
		case a.code == codes.OK && len(at) != 1:
			return fmt.Errorf("action %s answered OK at version %d is in the replay %d times (versions %v)", id, a.version, len(at), at)
		case a.code == codes.OK && at[0] != a.version:
			return fmt.Errorf("action %s answered OK at version %d is in the replay at version %d", id, a.version, at[0])
		case a.code != codes.OK && len(at) > 0:
			return fmt.Errorf("action %s answered %s is in the replay at versions %v", id, a.code, at)
		}
	}
	for id, at := range ids {
		if _, ok := answered[id]; !ok {
			return fmt.Errorf("replay versions %v carry action id %s, which we never sent", at, id)
		}
	}
	var want []*eventsv1.Event
	for _, e := range all {
		if e.GetVisibility().GetPublic() || visibleTo(e, seat) {
			want = append(want, e)
		}
	}
	for i := range max(len(want), len(stream)) {
		switch {
		case i >= len(stream):
			return fmt.Errorf("the Watch streams ended at event %d; the replay has %d more for our seat, from %d (version %d)",
				lastSeq(stream), len(want)-i, want[i].GetSequence(), want[i].GetVersion())
		case i >= len(want):
			return fmt.Errorf("the Watch streams delivered event %d (version %d) after the replay's last for our seat", stream[i].GetSequence(), stream[i].GetVersion())
		}
		if err := sameEvent(stream[i], want[i]); err != nil {
			return fmt.Errorf("the Watch streams' event %d of %d: %w", i+1, len(stream), err)
		}
	}
	return nil
}

// spectator is the seat of a viewer without one.
const spectator = -1

func visibleTo(e *eventsv1.Event, seat int) bool {
	v, ok := e.GetVisibility().GetAudience().(*eventsv1.Visibility_Seat)
	return ok && seat >= 0 && v.Seat == uint32(seat)
}

func lastSeq(s []*eventsv1.Event) uint64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].GetSequence()
}

// sameEvent compares a streamed event with the replay's: identity, audience and content (the
// label and time are presentation: not compared).
func sameEvent(got, want *eventsv1.Event) error {
	switch {
	case got.GetSequence() != want.GetSequence():
		return fmt.Errorf("sequence %d where the replay has %d (a gap or a repeat)", got.GetSequence(), want.GetSequence())
	case got.GetVersion() != want.GetVersion():
		return fmt.Errorf("event %d: version %d, the replay's is %d", got.GetSequence(), got.GetVersion(), want.GetVersion())
	case got.GetTableId() != want.GetTableId():
		return fmt.Errorf("event %d: table %s, the replay's is %s", got.GetSequence(), got.GetTableId(), want.GetTableId())
	case !proto.Equal(got.GetVisibility(), want.GetVisibility()):
		return fmt.Errorf("event %d: audience %v, the replay's is %v", got.GetSequence(), got.GetVisibility(), want.GetVisibility())
	case !samePayload(got, want):
		return fmt.Errorf("event %d (version %d): content %s differs from the replay's %s", got.GetSequence(), got.GetVersion(),
			got.GetPayload().GetTypeUrl(), want.GetPayload().GetTypeUrl())
	}
	return nil
}

// samePayload compares two events' payloads as messages when this program knows their type
// (encodings of one message may differ in field order), and as bytes otherwise.
func samePayload(a, b *eventsv1.Event) bool {
	if a.GetPayload().GetTypeUrl() != b.GetPayload().GetTypeUrl() {
		return false
	}
	ma, errA := a.GetPayload().UnmarshalNew()
	mb, errB := b.GetPayload().UnmarshalNew()
	if errA == nil && errB == nil {
		return proto.Equal(ma, mb)
	}
	return proto.Equal(a.GetPayload(), b.GetPayload())
}
