package gateway

import (
	"cardroom.dev/gateway/lobby"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	"cardroom.dev/services/kit/engine"
)

// Labels of events and legal actions come from the rules services with seats as "{seat:N}" tokens
// (engine.SeatRef); the gateway renders them for each reader with the seats' display names, and
// "you" for the reader's own seat (engine.RenderLabel).

// seatNames names t's seats for the reader in seat you (-1: a spectator).
func seatNames(t *lobby.Table, you int) engine.SeatName {
	return func(seat int) (string, bool) {
		if you >= 0 && seat == you {
			return "", true
		}
		if seat >= 0 && seat < len(t.Seats) {
			return t.Seats[seat].Name, false
		}
		return "", false
	}
}

// labelled is e with its label rendered for the reader: e itself when the label names no seat, else
// a copy (the events of a table are shared by every stream that watches it and never changed). The
// copy shares e's fields' messages.
func labelled(e *eventsv1.Event, names engine.SeatName) *eventsv1.Event {
	l := e.GetLabel()
	if !engine.HasSeatRef(l) {
		return e
	}
	return &eventsv1.Event{
		TableId: e.GetTableId(), Game: e.GetGame(), Sequence: e.GetSequence(), Version: e.GetVersion(),
		Visibility: e.GetVisibility(), Time: e.GetTime(), Payload: e.GetPayload(),
		Label: engine.RenderLabel(l, names),
	}
}

// labelledAll renders the labels of evs in place of the events (evs must be the caller's own
// slice; the events themselves are not changed).
func labelledAll(evs []*eventsv1.Event, names engine.SeatName) []*eventsv1.Event {
	for i, e := range evs {
		evs[i] = labelled(e, names)
	}
	return evs
}

// renderLabels renders labels for the reader, in a new slice when any names a seat (labels may be
// shared).
func renderLabels(labels []string, names engine.SeatName) []string {
	var out []string
	for i, l := range labels {
		if !engine.HasSeatRef(l) {
			continue
		}
		if out == nil {
			out = append([]string(nil), labels...)
		}
		out[i] = engine.RenderLabel(l, names)
	}
	if out == nil {
		return labels
	}
	return out
}
