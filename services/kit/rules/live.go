package rules

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// LivePublisher sends messages that nobody keeps, without waiting: *bus.Bus is one. A Server
// whose Publisher is also a LivePublisher sends the gateways a cardroom.rules.v1.TableUpdate after
// every commit. PublishLive must not keep data after it returns: the Server reuses the buffer for
// the next update (*bus.Bus copies it into the connection's buffer).
type LivePublisher interface {
	PublishLive(ctx context.Context, subject string, data []byte) error
}

// updateBufs holds the buffers live updates are encoded in: an update is handed to the bus, which
// copies it, so one buffer serves update after update instead of a new one growing (by doubling,
// copied each time) for each commit. Buffers past maxPooledUpdate are left to the collector.
var updateBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledUpdate bounds the buffers kept for reuse.
const maxPooledUpdate = 256 << 10

// publishLive sends the table's update at version: the committed events (already encoded) and the
// legal actions of every seat at st (nil: none, the table is over). It is best effort: a gateway
// that misses it reads the log and asks for legal actions.
func (s *Server) publishLive(ctx context.Context, table string, version uint64, evs []encodedEvent, st engine.State, seats int) {
	if s.live == nil {
		return
	}
	buf := updateBufs.Get().(*[]byte)
	data, err := appendTableUpdate((*buf)[:0], table, version, evs, st, seats)
	if err == nil {
		err = s.live.PublishLive(ctx, s.subjects.Live(table), data)
		if cap(data) <= maxPooledUpdate {
			*buf = data[:0]
			updateBufs.Put(buf)
		}
	}
	if err != nil {
		s.log.WarnContext(ctx, "live update not sent; gateways will read the log", slog.String("table", table), slog.Any("error", err))
	}
}

// seatLegal is one seat's legal actions as an update carries them: the actions, their labels,
// their encoded sizes (sizes[i] for acts[i]) and type URLs, and the SeatActions message's size.
type seatLegal struct {
	seat   int
	acts   []proto.Message
	labels []string
	sizes  []int
	urls   []string
	size   int
}

// appendTableUpdate appends a cardroom.rules.v1.TableUpdate to b. Every seat's list is sized
// first, so that b grows once to the update's size.
func appendTableUpdate(b []byte, table string, version uint64, evs []encodedEvent, st engine.State, seats int) ([]byte, error) {
	size := sizeString(wire.UpdateTableID, table) + sizeUint(wire.UpdateVersion, version)
	for i := range evs {
		size += sizeMessage(wire.UpdateEvents, len(evs[i].raw))
	}
	var small [8]seatLegal
	lists := small[:0]
	if st != nil {
		// One slice for every seat's sizes and one for their URLs, cut per seat below.
		var sizes []int
		var urls []string
		var lastType protoreflect.MessageDescriptor
		var lastURL string
		for seat := range seats {
			acts, labels := st.LegalLabelled(seat)
			if len(acts) == 0 {
				continue
			}
			first := len(sizes)
			n := sizeUint(wire.SeatActionsSeat, uint64(seat))
			for i, a := range acts {
				// The actions of a game are of one type: ask the shared cache once.
				if d := a.ProtoReflect().Descriptor(); d != lastType {
					lastType, lastURL = d, typeURL(a)
				}
				sz := proto.Size(a)
				sizes = append(sizes, sz)
				urls = append(urls, lastURL)
				n += sizeMessage(wire.SeatActionsActions, anySize(lastURL, sz))
				labels[i] = validLabel(labels[i])
				// A repeated string writes every element, empty or not.
				n += protowire.SizeTag(wire.SeatActionsLabels) + protowire.SizeBytes(len(labels[i]))
			}
			lists = append(lists, seatLegal{seat: seat, acts: acts, labels: labels, sizes: sizes[first:len(sizes):len(sizes)], urls: urls[first:len(urls):len(urls)], size: n})
			size += sizeMessage(wire.UpdateLegal, n)
		}
	}
	start := len(b)
	b = slices.Grow(b, size)
	b = appendString(b, wire.UpdateTableID, table)
	b = appendUint(b, wire.UpdateVersion, version)
	for i := range evs {
		b = appendMessageHead(b, wire.UpdateEvents, len(evs[i].raw))
		b = append(b, evs[i].raw...)
	}
	for _, l := range lists {
		b = appendMessageHead(b, wire.UpdateLegal, l.size)
		b = appendUint(b, wire.SeatActionsSeat, uint64(l.seat))
		for i, a := range l.acts {
			b = appendMessageHead(b, wire.SeatActionsActions, anySize(l.urls[i], l.sizes[i]))
			b = appendString(b, wire.AnyTypeURL, l.urls[i])
			if l.sizes[i] == 0 {
				continue
			}
			b = appendMessageHead(b, wire.AnyValue, l.sizes[i])
			var err error
			// The size was just computed: reuse it.
			if b, err = (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(b, a); err != nil {
				return nil, fmt.Errorf("encode legal action: %w", err)
			}
		}
		for _, lb := range l.labels {
			b = appendTag(b, wire.SeatActionsLabels, protowire.BytesType)
			b = appendVarint(b, uint64(len(lb)))
			b = append(b, lb...)
		}
	}
	if len(b)-start != size {
		return nil, errors.New("encode table update: size mismatch")
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
	return appendUint(b, wire.UpdateOmitted, 1), nil
}
