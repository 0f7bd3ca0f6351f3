package rules

import (
	"context"
	"fmt"
	"log/slog"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// LivePublisher sends messages that nobody keeps, without waiting: *bus.Bus is one. A Server
// whose Publisher is also a LivePublisher sends the gateways a cardroom.rules.v1.TableUpdate after
// every commit.
type LivePublisher interface {
	PublishLive(ctx context.Context, subject string, data []byte) error
}

// Field numbers of cardroom.rules.v1.TableUpdate and SeatActions.
const (
	updateTableID protowire.Number = 1
	updateVersion protowire.Number = 2
	updateEvents  protowire.Number = 3
	updateLegal   protowire.Number = 4
	updateOmitted protowire.Number = 5

	seatActionsSeat    protowire.Number = 1
	seatActionsActions protowire.Number = 2
	seatActionsLabels  protowire.Number = 3
)

// The tags below are written as one byte.
const _ = uint(15 - max(updateTableID, updateVersion, updateEvents, updateLegal, updateOmitted, seatActionsSeat, seatActionsActions, seatActionsLabels))

// publishLive sends the table's update at version: the committed events (already encoded) and the
// legal actions of every seat at st (nil: none, the table is over). It is best effort: a gateway
// that misses it reads the log and asks for legal actions.
func (s *Server) publishLive(ctx context.Context, table string, version uint64, evs []encodedEvent, st engine.State, seats int) {
	if s.live == nil {
		return
	}
	data, err := appendTableUpdate(nil, table, version, evs, st, seats)
	if err == nil {
		err = s.live.PublishLive(ctx, s.subjects.Live(table), data)
	}
	if err != nil {
		s.log.WarnContext(ctx, "live update not sent; gateways will read the log", slog.String("table", table), slog.Any("error", err))
	}
}

// appendTableUpdate appends a cardroom.rules.v1.TableUpdate to b.
func appendTableUpdate(b []byte, table string, version uint64, evs []encodedEvent, st engine.State, seats int) ([]byte, error) {
	b = appendString(b, updateTableID, table)
	b = appendUint(b, updateVersion, version)
	for i := range evs {
		b = appendMessageHead(b, updateEvents, len(evs[i].raw))
		b = append(b, evs[i].raw...)
	}
	if st == nil {
		return b, nil
	}
	var sizes []int
	for seat := range seats {
		acts, labels := st.LegalLabelled(seat)
		if len(acts) == 0 {
			continue
		}
		sizes = sizes[:0]
		n := sizeUint(seatActionsSeat, uint64(seat))
		for i, a := range acts {
			sz := proto.Size(a)
			sizes = append(sizes, sz)
			n += sizeMessage(seatActionsActions, anySize(typeURL(a), sz))
			labels[i] = validLabel(labels[i])
			// A repeated string writes every element, empty or not.
			n += protowire.SizeTag(seatActionsLabels) + protowire.SizeBytes(len(labels[i]))
		}
		b = appendMessageHead(b, updateLegal, n)
		b = appendUint(b, seatActionsSeat, uint64(seat))
		for i, a := range acts {
			url := typeURL(a)
			b = appendMessageHead(b, seatActionsActions, anySize(url, sizes[i]))
			b = appendString(b, anyTypeURL, url)
			if sizes[i] == 0 {
				continue
			}
			b = appendMessageHead(b, anyValue, sizes[i])
			var err error
			if b, err = (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(b, a); err != nil {
				return nil, fmt.Errorf("encode legal action: %w", err)
			}
		}
		for _, l := range labels {
			b = appendTag(b, seatActionsLabels, protowire.BytesType)
			b = appendVarint(b, uint64(len(l)))
			b = append(b, l...)
		}
	}
	return b, nil
}

// republishLive sends the gateways again, as live updates without legal actions, events read back
// from the log for republication: a gateway that missed the first update (it was lost, or never
// sent) learns of them without waiting for a later event to show the gap. Events are grouped by
// version, in order.
func (s *Server) republishLive(ctx context.Context, table string, evs []*eventsv1.Event) {
	if s.live == nil {
		return
	}
	for start := 0; start < len(evs); {
		end := start + 1
		for end < len(evs) && evs[end].GetVersion() == evs[start].GetVersion() {
			end++
		}
		data, err := appendRepublishedUpdate(nil, table, evs[start].GetVersion(), evs[start:end])
		if err == nil {
			err = s.live.PublishLive(ctx, s.subjects.Live(table), data)
		}
		if err != nil {
			s.log.WarnContext(ctx, "live update not sent again", slog.String("table", table), slog.Any("error", err))
			return
		}
		start = end
	}
}

// appendRepublishedUpdate appends a cardroom.rules.v1.TableUpdate of evs at version, with
// legal_omitted.
func appendRepublishedUpdate(b []byte, table string, version uint64, evs []*eventsv1.Event) ([]byte, error) {
	encs := make([]encodedEvent, len(evs))
	for i, e := range evs {
		raw, err := proto.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode event: %w", err)
		}
		encs[i].raw = raw
	}
	b, err := appendTableUpdate(b, table, version, encs, nil, 0)
	if err != nil {
		return nil, err
	}
	return appendUint(b, updateOmitted, 1), nil
}
