package main

// This file and server.patch make the skeleton "plus": the skeleton of ../shared/tools/skeleton
// carrying, per action, the transport and storage work that cardroom's contract requires and the
// plain skeleton leaves out, each switched on by a word of SKEL_FEATURES (comma-separated; all
// five is the comparison `scripts/perf-pair-procs --mode serve --plus` makes). The sizes are cardroom's, measured under
// `cardroom bench` (500 tables, every game; docs/performance-log.md, "Against the physical limit:
// the skeleton plus what cardroom's contract carries", 2026-12-03):
//
//	log       the commit also appends the action's events to the table's log (RPUSH), records
//	          the action id (HSETNX, refused if seen) and puts the table in the outbox (ZADD),
//	          in the same script, as cardroom's commit does
//	events    1.57 stream messages per action (cardroom's public events per action), each of
//	          350 bytes with a message id (the stream deduplicates republications by it)
//	private   a second publication per action, plain NATS: the live update of 3,400 bytes
//	          (every seat's labelled legal actions, which must not go on the stream), which the
//	          gateway fans out instead of the stream's message
//	consumer  a durable consumer reads the whole stream, acknowledging every 64 messages (AckAll),
//	          as the stats service does
//	watch     every seat's message carries 250 bytes of events and the next seat's 4,200 bytes of
//	          legal actions: the 5,300 bytes per action cardroom's load generator reads
//
// Left out on purpose (cardroom's own work, which the comparison is about): the game, auth,
// telemetry, labels, deadlines, the lobby and table turnover, protobuf messages of real types.

import (
	"context"
	"log"
	"os"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

const liveRoot = "skel.l." // + table id: the table's live updates, plain NATS, kept nowhere

var feat = func() (f struct {
	log, events, private, consumer, watch bool

	logBytes, streamBytes, secondEventPercent, liveBytes, eventBytes, legalBytes int
}) {
	for _, x := range strings.Split(os.Getenv("SKEL_FEATURES"), ",") {
		switch x {
		case "log":
			f.log = true
		case "events":
			f.events = true
		case "private":
			f.private = true
		case "consumer":
			f.consumer = true
		case "watch":
			f.watch = true
		}
	}
	f.logBytes, f.streamBytes, f.secondEventPercent = 550, 350, 57
	f.liveBytes, f.eventBytes, f.legalBytes = 3400, 250, 4200
	return f
}()

// encodeUpdateX is encodeUpdate with cardroom's sizes when "watch" is on.
func encodeUpdateX(version uint64, turn bool, actions string) []byte {
	b := encodeUpdate(version, turn, actions)
	if !feat.watch {
		return b
	}
	b = append(b, make([]byte, feat.eventBytes)...)
	if turn {
		b = append(b, make([]byte, feat.legalBytes)...)
	}
	return b
}

// consume reads the stream with a durable consumer until ctx ends, acknowledging every 64
// messages (AckAll), as the stats service does.
func consume(ctx context.Context, js jetstream.JetStream) {
	c, err := js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: "stats", AckPolicy: jetstream.AckAllPolicy, MaxAckPending: 1024})
	if err != nil {
		log.Printf("stream consumer: %v", err)
		return
	}
	n := 0
	cc, err := c.Consume(func(m jetstream.Msg) {
		if n++; n%64 == 0 {
			_ = m.Ack()
		}
	}, jetstream.PullMaxMessages(512))
	if err != nil {
		log.Printf("stream consumer: %v", err)
		return
	}
	<-ctx.Done()
	cc.Stop()
}
