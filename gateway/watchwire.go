package gateway

import (
	"sync"

	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
)

// A Watch stream writes its responses itself (watchWriter), from its table's events encoded once
// by the hub, instead of having gRPC encode a WatchResponse per reader. The field numbers it
// writes (checked against the generated descriptors by TestWatchWireNumbers):
const (
	// cardroom.events.v1.Event.label, the message's last field.
	eventLabel = wire.EventLabel
	// cardroom.gateway.v1.WatchResponse.
	watchEvent  = wire.WatchEvent
	watchLegal  = wire.WatchLegal
	watchEvents = wire.WatchEvents
	// cardroom.gateway.v1.LegalActions.
	legalVersion = wire.LegalVersion
	legalActions = wire.LegalActions // as SeatActions.actions (wire.SeatActionsActions)
	legalLabels  = wire.LegalLabels
)

// watchWriter writes one stream's WatchResponses, rendering labels for its reader; its buffers
// serve message after message (the codec copies what it sends).
type watchWriter struct {
	names  engine.SeatName
	bufs   *writeBuffers // held between acquire and release
	msg    []byte        // the response being written
	events []byte        // a batch's events, written before the legal actions that come first
	label  []byte        // a label being rendered
	labels []byte        // a list's labels, written before their list's size is known
	out    app.Encoded
}

// writeBuffers are the buffers a stream writes with, pooled together.
type writeBuffers struct{ msg, events, labels []byte }

// writeBufs holds the buffers of streams that are waiting: a table's thousands of streams wait
// most of the time, and a buffer kept by each would hold the largest list it ever wrote (a Sponsio
// betting turn's is tens of KB). Buffers past maxPooledWrite are left to the collector.
var writeBufs = sync.Pool{New: func() any { return new(writeBuffers) }}

const maxPooledWrite = 256 << 10

// acquire gives w buffers for the messages it is about to write.
func (w *watchWriter) acquire() {
	if w.bufs == nil {
		w.bufs = writeBufs.Get().(*writeBuffers)
		w.msg, w.events, w.labels = w.bufs.msg[:0], w.bufs.events[:0], w.bufs.labels[:0]
	}
}

// release gives w's buffers back while its stream waits.
func (w *watchWriter) release() {
	if w.bufs == nil {
		return
	}
	w.bufs.msg, w.bufs.events, w.bufs.labels = pooled(w.msg), pooled(w.events), pooled(w.labels)
	writeBufs.Put(w.bufs)
	w.bufs, w.msg, w.events, w.labels = nil, nil, nil, nil
}

// pooled is b as the pool keeps it: emptied, or nil past maxPooledWrite.
func pooled(b []byte) []byte {
	if cap(b) > maxPooledWrite {
		return nil
	}
	return b[:0]
}

// appendEvent appends e to b as field num of a WatchResponse, its label rendered for the reader.
// The encoding is the one proto.Marshal writes for the event with that label.
func (w *watchWriter) appendEvent(b []byte, num protowire.Number, e *hubEvent) []byte {
	n := len(e.label)
	if e.refs {
		w.label = engine.AppendLabel(w.label[:0], e.label, w.names)
		n = len(w.label)
	}
	size := len(e.head)
	if n > 0 {
		size += protowire.SizeTag(eventLabel) + protowire.SizeBytes(n)
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	b = append(b, e.head...)
	if n == 0 {
		return b
	}
	b = protowire.AppendTag(b, eventLabel, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	if e.refs {
		return append(b, w.label...)
	}
	return append(b, e.label...)
}

// appendLegal appends l at version to b as a WatchResponse's legal_actions, its labels rendered for
// the reader.
func (w *watchWriter) appendLegal(b []byte, version uint64, l *seatLegal) []byte {
	w.labels = w.labels[:0]
	for _, lb := range l.labels {
		w.labels = protowire.AppendTag(w.labels, legalLabels, protowire.BytesType)
		if engine.HasSeatRef(lb) {
			w.label = engine.AppendLabel(w.label[:0], lb, w.names)
			w.labels = protowire.AppendBytes(w.labels, w.label)
		} else {
			w.labels = protowire.AppendString(w.labels, lb)
		}
	}
	size := len(l.actions) + len(w.labels)
	if version != 0 {
		size += protowire.SizeTag(legalVersion) + protowire.SizeVarint(version)
	}
	b = protowire.AppendTag(b, watchLegal, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	if version != 0 {
		b = protowire.AppendTag(b, legalVersion, protowire.VarintType)
		b = protowire.AppendVarint(b, version)
	}
	b = append(b, l.actions...)
	return append(b, w.labels...)
}

// send sends the response b.
func (w *watchWriter) send(stream grpc.ServerStream, b []byte) error {
	w.out.Bytes = b
	err := stream.SendMsg(&w.out)
	w.out.Bytes = nil
	return err
}
