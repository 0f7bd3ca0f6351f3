// Package export writes the public event stream as Parquet tables for analysts (cardroom events
// export): one table per event kind, partitioned by game and day, resumable from where the last
// run stopped with no gap and no duplicate. docs/events.md describes the tables and the queries
// that read them.
package export

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"cardroom.dev/services/kit/bus"
)

// Options configure Run.
type Options struct {
	// Dir is the export directory.
	Dir string
	// From is the stream sequence a new export starts from (0: the stream's first message).
	From uint64
	// Since, when not zero, starts a new export at the first message stored at or after it.
	Since time.Time
	// Batch is how many messages a commit holds at most (default 500,000): the part files of a
	// commit are visible, and the position recorded, when it ends.
	Batch int
	// SkipLost lets a run continue when the stream no longer holds the messages after the
	// recorded position (they aged out of the stream): those are skipped, and the export has a
	// gap. Without it, such a run fails and exports nothing.
	SkipLost bool
	Logger   *slog.Logger
}

// ErrResume is returned for a start (From, Since) given to a directory that already holds an
// export: it continues from its own position.
var ErrResume = errors.New("export: the directory already holds an export, which continues from where it stopped")

// ErrLost is returned when the messages after the recorded position are gone from the stream.
var ErrLost = errors.New("export: the stream no longer holds the messages after the export's position")

// Summary says what a run did.
type Summary struct {
	// From and Next are the first stream sequence the run read and the one the next run starts
	// from (equal when there was nothing to read).
	From, Next uint64
	// Messages, Rows and Skipped are the run's counts.
	Messages, Rows, Skipped uint64
	// Lost counts the messages skipped because the stream no longer held them (SkipLost).
	Lost    uint64
	Elapsed time.Duration
}

// Run exports b's public events into opt.Dir, from the directory's position (or opt's start for
// a new export) up to the last message the stream held when Run started, then returns.
func Run(ctx context.Context, b *bus.Bus, opt Options) (Summary, error) {
	start := time.Now()
	if opt.Batch <= 0 {
		opt.Batch = 500_000
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	w, found, err := Open(opt.Dir, b.Stream())
	if err != nil {
		return Summary{}, err
	}
	if found && (opt.From > 0 || !opt.Since.IsZero()) {
		return Summary{}, fmt.Errorf("%w (stream sequence %d): give no start", ErrResume, w.State().Next)
	}
	first, last, err := b.SequenceRange(ctx)
	if err != nil {
		return Summary{}, err
	}
	from, since := max(opt.From, 1), opt.Since
	if found {
		from, since = max(w.State().Next, 1), time.Time{}
	}
	sum := Summary{From: from, Next: from}
	if since.IsZero() && first > from {
		if found && !opt.SkipLost {
			return sum, fmt.Errorf("%w: it is at %d, the stream starts at %d (pass --skip-lost to go on with a gap)", ErrLost, from, first)
		}
		if found {
			sum.Lost = first - from
			log.Warn("export: messages lost from the stream are skipped", slog.Uint64("from", from), slog.Uint64("stream_first", first))
		}
		from = first
		sum.From = from
	}
	if last == 0 || (since.IsZero() && from > last) {
		sum.Elapsed = time.Since(start)
		return sum, nil
	}
	base := w.State()
	inBatch := 0
	started := false
	var writeErr error // the export's own failure, returned as it is
	err = b.ReadPublic(ctx, bus.ReadFrom{Seq: from, Since: since}, 2000, func(m bus.Received) error {
		seq := m.StreamSeq
		if seq > last {
			return errPastEnd
		}
		if !started && !since.IsZero() {
			sum.From = seq
		}
		started = true
		if writeErr = w.Add(Message{Seq: seq, Subject: m.Subject, Data: m.Data}); writeErr != nil {
			return writeErr
		}
		inBatch++
		if inBatch >= opt.Batch {
			if writeErr = w.Commit(); writeErr != nil {
				return writeErr
			}
			inBatch = 0
			log.Debug("export: committed", slog.Uint64("next", w.State().Next))
		}
		return nil
	})
	if err == nil || errors.Is(err, errPastEnd) {
		if inBatch == 0 {
			return summarize(sum, base, w.State(), start), nil
		}
		if writeErr = w.Commit(); writeErr == nil {
			log.Debug("export: committed", slog.Uint64("next", w.State().Next))
			return summarize(sum, base, w.State(), start), nil
		}
	}
	w.Abort()
	if writeErr != nil {
		return summarize(sum, base, w.State(), start), writeErr
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return summarize(sum, base, w.State(), start), fmt.Errorf("export: %w", err)
}

// errPastEnd ends a read at the last message the stream held when Run started.
var errPastEnd = errors.New("past the stream's end at the start")

func summarize(sum Summary, before, after State, start time.Time) Summary {
	if after.Next > 0 {
		sum.Next = after.Next
	}
	sum.Messages = after.Messages - before.Messages
	sum.Rows = after.Rows - before.Rows
	sum.Skipped = after.Skipped - before.Skipped
	sum.Elapsed = time.Since(start)
	return sum
}
