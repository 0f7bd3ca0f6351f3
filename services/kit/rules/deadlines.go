package rules

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"time"

	"cardroom.dev/services/kit/store"
)

// Turn deadlines: each commit stores the table's next deadline; Run claims the due tables
// (FireDue) and applies their timeouts, exactly one replica each.

// applyTimeout applies the engine's timeout to a loaded table and commits it.
func (s *Server) applyTimeout(ctx context.Context, l *loaded, now time.Time) error {
	evs, err := l.state.Timeout(now)
	if err != nil {
		return err
	}
	_, _, err = s.commit(ctx, l, &entryHead{by: byTimeout}, evs, now, nil)
	if err == nil {
		s.metrics.timeouts.Add(ctx, 1)
	}
	return err
}

// maxSweepWait bounds the time between two claims of due deadlines: a replica learns of deadlines
// other replicas committed, or left claimed when they died, at its next claim.
const maxSweepWait = time.Second

// soleSweep is the longest a sole replica (Options.SoleReplica) goes without claiming deadlines
// or sweeping its outbox: a safety net, since it hears of all its own work.
const soleSweep = 10 * time.Second

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
