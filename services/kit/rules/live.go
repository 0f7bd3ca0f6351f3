package rules

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"unicode/utf8"

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
// that misses it reads the log and asks for legal actions. subj keeps the table's live subject.
func (s *Server) publishLive(ctx context.Context, table string, version uint64, evs []encodedEvent, st engine.State, seats int, subj *subjects) {
	if s.live == nil {
		return
	}
	if subj.live == "" {
		subj.live = s.subjects.Live(table)
	}
	buf := updateBufs.Get().(*[]byte)
	data, err := appendTableUpdate((*buf)[:0], table, version, evs, st, seats, s.actionURL)
	if err == nil {
		err = s.live.PublishLive(ctx, subj.live, data)
		if cap(data) <= maxPooledUpdate {
			*buf = data[:0]
			updateBufs.Put(buf)
		}
	}
	if err != nil {
		s.log.WarnContext(ctx, "live update not sent; gateways will read the log", slog.String("table", table), slog.Any("error", err))
	}
}

// seatLegal is one seat's legal actions as an update carries them, in one of two forms. Appended
// (the game is an engine.ActionAppender): the actions' bytes and labels in the update's scratch
// buffer from rawFrom, each pair ended by ends[from:to]. Otherwise: the action messages, their
// labels, their encoded sizes (sizes[i] for acts[i]) and type URLs. size is the SeatActions
// message's size.
type seatLegal struct {
	seat int
	size int

	appended          bool
	rawFrom, from, to int

	acts   []proto.Message
	labels []string
	sizes  []int
	urls   []string
}

// legalScratch holds the legal actions of an update's seats as the game appends them; pooled,
// as the update's buffer is.
type legalScratch struct {
	raw  []byte
	ends []int
}

var legalScratches = sync.Pool{New: func() any { return new(legalScratch) }}

// appendTableUpdate appends a cardroom.rules.v1.TableUpdate to b; actionURL is the type URL of
// the game's action message. Every seat's list is sized first, so that b grows once to the
// update's size. A game that appends its actions (engine.LegalAppender) has them copied from
// one scratch buffer; the others' are built as messages, sized and marshalled.
func appendTableUpdate(b []byte, table string, version uint64, evs []encodedEvent, st engine.State, seats int, actionURL string) ([]byte, error) {
	size := sizeString(wire.UpdateTableID, table) + sizeUint(wire.UpdateVersion, version)
	for i := range evs {
		size += sizeMessage(wire.UpdateEvents, len(evs[i].raw))
	}
	var small [8]seatLegal
	lists := small[:0]
	var sc *legalScratch
	if app, ok := st.(engine.LegalAppender); ok && actionURL != "" {
		sc = legalScratches.Get().(*legalScratch)
		defer func() {
			if cap(sc.raw) <= maxPooledUpdate {
				sc.raw, sc.ends = sc.raw[:0], sc.ends[:0]
				legalScratches.Put(sc)
			}
		}()
		for seat := range seats {
			l, ok := appendSeatLegal(sc, app, seat, actionURL)
			if !ok {
				// A label that is not valid UTF-8 (no game writes one): this seat's list the
				// generic way, which repairs it.
				l = labelledSeatLegal(st, seat)
			}
			if l.size == 0 {
				continue
			}
			lists = append(lists, l)
			size += sizeMessage(wire.UpdateLegal, l.size)
		}
	} else if st != nil {
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
		if l.appended {
			b = appendAppendedLegal(b, sc, l, actionURL)
			continue
		}
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

// appendSeatLegal appends seat's legal actions and labels to sc and sizes its SeatActions (size
// 0: no actions). It reports false, leaving sc as it was, when a label is not valid UTF-8.
func appendSeatLegal(sc *legalScratch, app engine.LegalAppender, seat int, actionURL string) (seatLegal, bool) {
	l := seatLegal{seat: seat, appended: true, rawFrom: len(sc.raw), from: len(sc.ends)}
	sc.raw, sc.ends = app.AppendLegal(seat, sc.raw, sc.ends)
	l.to = len(sc.ends)
	if l.to == l.from {
		return seatLegal{}, true
	}
	n := sizeUint(wire.SeatActionsSeat, uint64(seat))
	prev := l.rawFrom
	for i := l.from; i < l.to; i += 2 {
		act, label := sc.ends[i]-prev, sc.raw[sc.ends[i]:sc.ends[i+1]]
		if !utf8.Valid(label) {
			sc.raw, sc.ends = sc.raw[:l.rawFrom], sc.ends[:l.from]
			return seatLegal{}, false
		}
		n += sizeMessage(wire.SeatActionsActions, anySize(actionURL, act))
		n += protowire.SizeTag(wire.SeatActionsLabels) + protowire.SizeBytes(len(label))
		prev = sc.ends[i+1]
	}
	l.size = n
	return l, true
}

// labelledSeatLegal is seat's list the generic way, through LegalLabelled (size 0: no actions).
func labelledSeatLegal(st engine.State, seat int) seatLegal {
	acts, labels := st.LegalLabelled(seat)
	if len(acts) == 0 {
		return seatLegal{}
	}
	l := seatLegal{seat: seat, acts: acts, labels: labels, sizes: make([]int, len(acts)), urls: make([]string, len(acts))}
	n := sizeUint(wire.SeatActionsSeat, uint64(seat))
	for i, a := range acts {
		l.sizes[i], l.urls[i] = proto.Size(a), typeURL(a)
		n += sizeMessage(wire.SeatActionsActions, anySize(l.urls[i], l.sizes[i]))
		labels[i] = validLabel(labels[i])
		n += protowire.SizeTag(wire.SeatActionsLabels) + protowire.SizeBytes(len(labels[i]))
	}
	l.size = n
	return l
}

// appendAppendedLegal writes the actions and labels of an appended seatLegal (its seat written).
func appendAppendedLegal(b []byte, sc *legalScratch, l seatLegal, actionURL string) []byte {
	prev := l.rawFrom
	for i := l.from; i < l.to; i += 2 {
		act := sc.raw[prev:sc.ends[i]]
		b = appendMessageHead(b, wire.SeatActionsActions, anySize(actionURL, len(act)))
		b = appendString(b, wire.AnyTypeURL, actionURL)
		if len(act) > 0 {
			b = appendMessageHead(b, wire.AnyValue, len(act))
			b = append(b, act...)
		}
		prev = sc.ends[i+1]
	}
	for i := l.from; i < l.to; i += 2 {
		label := sc.raw[sc.ends[i]:sc.ends[i+1]]
		b = appendTag(b, wire.SeatActionsLabels, protowire.BytesType)
		b = appendVarint(b, uint64(len(label)))
		b = append(b, label...)
	}
	return b
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
	b, err := appendTableUpdate(b, table, version, encs, nil, 0, "")
	if err != nil {
		return nil, err
	}
	return appendUint(b, wire.UpdateOmitted, 1), nil
}
