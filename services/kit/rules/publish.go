package rules

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/store"
	"google.golang.org/protobuf/proto"
)

// Publishing a commit's events on the bus, and confirming the publications made in the
// background (acks).

// messages turns events read back from the log into stream messages: the public ones, each on
// its table's public subject. Private events are not put on the stream: the gateways have them
// from the live updates and the log. Message ids make republication idempotent.
func messages(sj bus.Subjects, evs []*eventsv1.Event) ([]bus.Message, error) {
	out := make([]bus.Message, 0, len(evs))
	for _, e := range evs {
		if _, ok := e.GetVisibility().GetAudience().(*eventsv1.Visibility_Public); !ok {
			continue
		}
		data, err := proto.Marshal(e)
		if err != nil {
			return nil, err
		}
		id := e.GetTableId() + ":" + strconv.FormatUint(e.GetSequence(), 10)
		out = append(out, bus.Message{Subject: sj.Public(e.GetTableId()), ID: id, Data: data})
	}
	return out, nil
}

// committedMessages is messages for events just committed, whose envelopes are already encoded.
// The subjects and ids are the same; the ids share one string.
func committedMessages(sj bus.Subjects, table string, evs []encodedEvent, subj *subjects) []bus.Message {
	n, idLen := 0, 0
	for i := range evs {
		if evs[i].to < 0 {
			n++
			idLen += len(table) + 1 + uitoaLen(evs[i].seq)
		}
	}
	if n == 0 {
		return nil
	}
	var ids strings.Builder
	ids.Grow(idLen)
	var num [20]byte
	for i := range evs {
		if evs[i].to < 0 {
			ids.WriteString(table)
			ids.WriteByte(':')
			ids.Write(strconv.AppendUint(num[:0], evs[i].seq, 10))
		}
	}
	all := ids.String()
	if subj.public == "" {
		subj.public = sj.Public(table)
	}
	out := make([]bus.Message, 0, n)
	for i := range evs {
		e := &evs[i]
		if e.to >= 0 {
			continue
		}
		idEnd := len(table) + 1 + uitoaLen(e.seq)
		out = append(out, bus.Message{Subject: subj.public, ID: all[:idEnd], Data: e.raw})
		all = all[idEnd:]
	}
	return out
}

// subjects are a table's stream subjects, made when first needed and kept with the table's state
// in the state cache.
type subjects struct {
	public, live string
}

func uitoaLen(v uint64) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// AsyncPublisher is a Publisher that can also publish without waiting for the stream: *bus.Bus
// is one. While Run runs, a Server with one answers its callers as soon as their events are
// handed to the bus, and confirms them in the background.
type AsyncPublisher interface {
	PublishAsync(ctx context.Context, msgs []bus.Message) (wait func(context.Context) error, err error)
}

// pendingAck is a publication handed to the bus whose acknowledgement is awaited.
type pendingAck struct {
	table     string
	from, seq uint64
	wait      func(context.Context) error
}

// maxPendingAcks bounds the publications awaited in the background; past it, publishing waits
// where it is made (back-pressure).
const maxPendingAcks = 4096

// ackTimeout bounds the wait for one acknowledgement; past it the outbox sweeper republishes.
const ackTimeout = 10 * time.Second

// publish puts committed events on the bus. A failure does not undo the commit: the table stays in
// the outbox and the sweeper republishes it (ids make that idempotent). Confirmed publications are
// marked in the outbox.
func (s *Server) publish(ctx context.Context, table string, evs []encodedEvent, subj *subjects) {
	if len(evs) == 0 || s.pub == nil {
		return
	}
	// A commit without public events puts nothing on the stream: the wait then confirms that the
	// server has its live update.
	msgs := committedMessages(s.subjects, table, evs, subj)
	from, seq := evs[0].seq, evs[len(evs)-1].seq
	ctx, span := s.startSpan(ctx, "bus.publish")
	defer span.End()
	var err error
	if s.async != nil && s.running.Load() {
		var wait func(context.Context) error
		if wait, err = s.async.PublishAsync(ctx, msgs); err == nil {
			select {
			case s.acks <- pendingAck{table: table, from: from, seq: seq, wait: wait}:
				return
			default:
				err = wait(ctx)
			}
		}
	} else {
		err = s.pub.Publish(ctx, msgs)
	}
	s.published(ctx, table, from, seq, err)
}

// published records the outcome of one publication of events from..seq: a mark for the outbox,
// or a warning. The mark counts only if every earlier event is confirmed too (see
// store.Store.MarkPublished): a publication that failed keeps its table in the outbox even when a
// later one succeeds.
func (s *Server) published(ctx context.Context, table string, from, seq uint64, err error) {
	if err != nil {
		s.metrics.publishFailures.Add(ctx, 1)
		s.log.WarnContext(ctx, "publish failed; the outbox sweeper will retry", slog.String("table", table), slog.Any("error", err))
		s.outboxMayHoldWork()
		return
	}
	select {
	case s.marks <- store.Mark{TableID: table, From: from, Sequence: seq}:
	default:
		// Marks are an optimisation: an unmarked table is republished later, deduplicated.
		s.outboxMayHoldWork()
	}
}

// runAcks confirms background publications in the order they were made until ctx ends, then
// those still pending, each within a short deadline.
func (s *Server) runAcks(ctx context.Context) {
	confirm := func(ctx context.Context, p pendingAck) {
		wctx, cancel := context.WithTimeout(ctx, ackTimeout)
		s.published(wctx, p.table, p.from, p.seq, p.wait(wctx))
		cancel()
	}
	for {
		select {
		case p := <-s.acks:
			confirm(ctx, p)
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			for {
				select {
				case p := <-s.acks:
					confirm(final, p)
				default:
					return
				}
			}
		}
	}
}
