package rules

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/store"
	"google.golang.org/protobuf/proto"
)

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

// markDelay bounds how long a confirmed publication waits to be written to the outbox with others
// (at most a quarter of the republication delay, so that the sweeper does not republish it).
const markDelay = 200 * time.Millisecond

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

// Run runs the background work of a replica until ctx ends: firing due deadlines, confirming
// publications in batches, and republishing what was committed but not confirmed.
func (s *Server) Run(ctx context.Context) error {
	acked := make(chan struct{})
	marked := make(chan struct{})
	s.running.Store(true)
	go func() {
		defer close(acked)
		s.runAcks(ctx)
	}()
	go func() {
		defer close(marked)
		s.runMarks(ctx, acked)
	}()
	defer func() {
		s.running.Store(false)
		<-marked
	}()
	sweep := time.NewTimer(0) // claim at once, then when due
	defer sweep.Stop()
	s.sweepAt.Store(sweeping)
	defer s.sweepAt.Store(0)
	sweeps := s.newOutboxPace()
	republish := time.NewTimer(sweeps.every)
	defer republish.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sweep.C:
			s.sweepAt.Store(sweeping)
			_, next, more := s.fireDue(ctx)
			s.scheduleSweep(sweep, next, more)
		case <-s.dueSoon:
			if h := s.dueHint.Swap(0); h != 0 && h < s.sweepAt.Load() {
				s.sweepAt.Store(h)
				sweep.Reset(time.Until(time.Unix(0, h)))
			}
		case <-republish.C:
			found, _ := s.republish(ctx, s.now().Add(-s.opt.RepublishAfter))
			republish.Reset(sweeps.next(time.Now(), found > 0))
		case <-s.outboxHint:
			if sweeps.hint(time.Now()) {
				republish.Reset(sweeps.every)
			}
		}
	}
}

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

// maxSweepWait bounds the time between two claims of due deadlines: a replica learns of deadlines
// other replicas committed, or left claimed when they died, at its next claim.
const maxSweepWait = time.Second

// soleSweep is the longest a sole replica (Options.SoleReplica) goes without claiming deadlines
// or sweeping its outbox: a safety net, since it hears of all its own work.
const soleSweep = 10 * time.Second

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

// sweeping is sweepAt while a claim runs: every deadline committed meanwhile is noted, since the
// claim may have read the store before it.
const sweeping = math.MaxInt64

// claimBatch is how many due tables one claim takes.
const claimBatch = 64

// FireDue claims the tables whose deadline has passed and applies their timeouts. Competing
// replicas claim different tables; the compare-and-set makes each timeout apply exactly once.
func (s *Server) FireDue(ctx context.Context) int {
	fired, _, _ := s.fireDue(ctx)
	return fired
}

// fireDue is FireDue that also returns the earliest deadline left in the store (zero: none or
// unknown) and whether more tables may be due than one claim took.
func (s *Server) fireDue(ctx context.Context) (fired int, next time.Time, more bool) {
	now := s.now()
	ids, next, err := s.store.ClaimDue(ctx, now, s.opt.Lease, claimBatch)
	if err != nil {
		s.log.WarnContext(ctx, "claiming deadlines failed", slog.Any("error", err))
		return 0, time.Time{}, false
	}
	for _, id := range ids {
		if s.fire(ctx, id) {
			fired++
		}
	}
	return fired, next, len(ids) == claimBatch
}

// scheduleSweep sets t for the next claim: at the store's next deadline, no sooner than
// SweepInterval and no later than maxSweepWait from now; after a full claim, SweepInterval.
func (s *Server) scheduleSweep(t *time.Timer, next time.Time, more bool) {
	now := s.now()
	wait := maxSweepWait
	if s.opt.SoleReplica {
		wait = soleSweep
	}
	switch {
	case more:
		wait = s.opt.SweepInterval
	case !next.IsZero():
		wait = min(wait, max(next.Sub(now), s.opt.SweepInterval))
	}
	s.sweepAt.Store(now.Add(wait).UnixNano())
	t.Reset(wait)
	// A deadline committed here while this claim ran may come before the time just chosen.
	if s.dueHint.Load() != 0 {
		select {
		case s.dueSoon <- struct{}{}:
		default:
		}
	}
}

// noteDeadline tells Run of a deadline this replica just committed, when it comes before the next
// planned claim.
func (s *Server) noteDeadline(dl time.Time) {
	if dl.IsZero() {
		return
	}
	n := dl.UnixNano()
	if at := s.sweepAt.Load(); at == 0 || n >= at {
		return
	}
	for {
		h := s.dueHint.Load()
		if h != 0 && h <= n {
			return
		}
		if s.dueHint.CompareAndSwap(h, n) {
			break
		}
	}
	select {
	case s.dueSoon <- struct{}{}:
	default:
	}
}

func (s *Server) fire(ctx context.Context, id string) bool {
	for range s.opt.MaxRetries {
		l, err := s.load(ctx, id, "", true)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				s.log.WarnContext(ctx, "loading a due table failed", slog.String("table", id), slog.Any("error", err))
			}
			return false
		}
		now := s.now()
		dl, ok := l.state.Deadline()
		if l.t.Finished || !ok || now.Before(dl) {
			s.keep(&l)
			return false // someone else applied it, or the table moved on
		}
		err = s.applyTimeout(ctx, &l, now)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			s.log.ErrorContext(ctx, "timeout failed", slog.String("table", id), slog.Any("error", err))
			return false
		}
		return true
	}
	return false
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
