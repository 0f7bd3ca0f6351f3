package rules

import (
	"context"
	"errors"
	"log/slog"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/store"
	"google.golang.org/protobuf/proto"
)

// The outbox: a table whose events are committed and not yet confirmed on the bus stays in the
// store's outbox; confirmed publications are marked there in batches, and Run's sweeper
// republishes what is left.

// markDelay bounds how long a confirmed publication waits to be written to the outbox with others
// (at most a quarter of the republication delay, so that the sweeper does not republish it).
const markDelay = 200 * time.Millisecond

// runMarks writes confirmed publications to the outbox in batches until ctx ends and acked is
// closed (the last confirmations are in), then writes the rest. A batch is written when it is full
// or markDelay after its first confirmation: a replica with nothing to confirm never wakes, and one
// confirming a few actions a second writes them together rather than one round trip each.
func (s *Server) runMarks(ctx context.Context, acked <-chan struct{}) {
	delay := min(markDelay, s.opt.RepublishAfter/4)
	timer := time.NewTimer(delay)
	timer.Stop()
	defer timer.Stop()
	var due <-chan time.Time // nil while the batch is empty
	batch := make([]store.Mark, 0, 256)
	flush := func(ctx context.Context) {
		if len(batch) == 0 {
			return
		}
		if err := s.store.MarkPublished(ctx, batch); err != nil {
			s.log.WarnContext(ctx, "marking publications failed", slog.Any("error", err))
			s.outboxMayHoldWork()
		}
		batch = batch[:0]
	}
	for {
		select {
		case m := <-s.marks:
			batch = append(batch, m)
			if len(batch) == 1 {
				timer.Reset(delay)
				due = timer.C
			}
			if len(batch) == cap(batch) {
				flush(ctx)
				timer.Stop()
				due = nil
			}
			continue
		case <-due:
			flush(ctx)
			due = nil
			continue
		case <-acked:
		}
		// Last marks on the way out, with a short deadline of their own.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		for drained := false; !drained; {
			select {
			case m := <-s.marks:
				batch = append(batch, m)
			default:
				drained = true
			}
		}
		flush(fctx)
		cancel()
		return
	}
}

// outboxPace times Run's outbox sweeps: every RepublishAfter/4, or for a sole replica only while
// something may be left (from a hint or a sweep that found tables, for twice RepublishAfter: a
// publication is swept once it is RepublishAfter old) and every soleSweep otherwise.
type outboxPace struct {
	every, window time.Duration
	sole          bool
	fastUntil     time.Time
}

func (s *Server) newOutboxPace() *outboxPace {
	p := &outboxPace{every: max(s.opt.RepublishAfter/4, 10*time.Millisecond), window: 2 * s.opt.RepublishAfter, sole: s.opt.SoleReplica}
	// What an earlier life of the process left may be younger than RepublishAfter at the start.
	p.fastUntil = time.Now().Add(p.window)
	return p
}

// next is the wait until the sweep after one made at now, which found tables or not.
func (p *outboxPace) next(now time.Time, found bool) time.Duration {
	if found {
		p.fastUntil = now.Add(p.window)
	}
	if !p.sole || now.Before(p.fastUntil) {
		return p.every
	}
	return soleSweep
}

// hint notes at now that the sole replica may have left a publication undone; it reports whether
// the next sweep must come sooner than planned.
func (p *outboxPace) hint(now time.Time) bool {
	slow := !now.Before(p.fastUntil)
	p.fastUntil = now.Add(p.window)
	return slow
}

// outboxMayHoldWork tells a sole replica's Run that a publication of its own may be missing from
// the bus or unmarked in the outbox. A shared replica sweeps at its steady pace anyway, so it is
// not woken (under load the marks' buffer may be full at every commit).
func (s *Server) outboxMayHoldWork() {
	if !s.opt.SoleReplica {
		return
	}
	select {
	case s.outboxHint <- struct{}{}:
	default:
	}
}

// resend publishes again, to the gateways and the stream, the events of evs the table t does not
// count as published. What fails is left to the outbox sweeper.
func (s *Server) resend(ctx context.Context, t store.Table, evs []*eventsv1.Event) {
	if s.pub == nil || len(evs) == 0 || evs[len(evs)-1].GetSequence() <= t.Published {
		return
	}
	if err := s.publishAgain(ctx, t.ID, evs); err != nil {
		s.metrics.publishFailures.Add(ctx, 1)
		s.log.WarnContext(ctx, "publishing a replayed action's events failed; the outbox sweeper will retry", slog.String("table", t.ID), slog.Any("error", err))
	}
}

// publishAgain publishes events read back from the log: as live updates without legal actions, and
// on the stream, where their ids make a second copy harmless.
func (s *Server) publishAgain(ctx context.Context, table string, evs []*eventsv1.Event) error {
	s.republishLive(ctx, table, evs)
	msgs, err := messages(s.subjects, evs)
	if err != nil {
		return err
	}
	return s.pub.Publish(ctx, msgs)
}

// Republish publishes again the events of tables committed before `before` whose publication was
// not confirmed, and confirms them.
func (s *Server) Republish(ctx context.Context, before time.Time) int {
	_, n := s.republish(ctx, before)
	return n
}

// republish is Republish that also says how many tables the outbox held (found; an outbox it
// could not read counts as one).
func (s *Server) republish(ctx context.Context, before time.Time) (found, n int) {
	ids, err := s.store.Unpublished(ctx, before, 100)
	if err != nil {
		s.log.WarnContext(ctx, "reading the outbox failed", slog.Any("error", err))
		return 1, 0
	}
	for _, id := range ids {
		t, _, err := s.store.Load(ctx, id, "")
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				_ = s.store.MarkPublished(ctx, []store.Mark{{TableID: id}})
			}
			continue
		}
		entries, err := s.store.Log(ctx, id, 0)
		if err != nil {
			continue
		}
		var evs []*eventsv1.Event
		for _, e := range entries {
			le := &rulesv1.LogEntry{}
			if proto.Unmarshal(e.Data, le) != nil {
				continue
			}
			for _, ev := range le.GetEvents() {
				if ev.GetSequence() > t.Published {
					evs = append(evs, ev)
				}
			}
		}
		// A commit answered ErrUnconfirmed may be on the primary only: its events go out once the
		// replicas have the table as read (or on a later sweep).
		if c, ok := s.store.(store.Confirmer); ok && c.Confirm(ctx, id, t.Token) != nil {
			continue
		}
		if s.publishAgain(ctx, id, evs) != nil {
			continue
		}
		if err := s.store.MarkPublished(ctx, []store.Mark{{TableID: id, From: t.Published + 1, Sequence: t.Sequence}}); err == nil {
			n++
		}
	}
	return len(ids), n
}
