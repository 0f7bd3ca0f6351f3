package stats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// applier applies batches of messages to a store: decode, load the records they touch, fold,
// apply with the position check. Messages at or below the store's position are skipped, so a
// redelivered batch changes nothing.
type applier struct {
	store Store
	agg   Aggregator
	log   *slog.Logger
}

// maxConflicts bounds how often one batch is recomputed after ErrConflict.
const maxConflicts = 3

// apply applies msgs (in stream order) and returns the store's position afterwards.
func (a *applier) apply(ctx context.Context, msgs []Message) (uint64, error) {
	if len(msgs) == 0 {
		return a.store.Position(ctx)
	}
	evs := make([]*event, len(msgs))
	for i, m := range msgs {
		evs[i] = decode(m)
	}
	keys := a.agg.keys(evs)
	for range maxConflicts {
		st, err := a.store.Load(ctx, keys)
		if err != nil {
			return 0, err
		}
		todo := evs
		for len(todo) > 0 && todo[0].seq <= st.Position {
			todo = todo[1:]
		}
		if len(todo) == 0 {
			return st.Position, nil
		}
		to := todo[len(todo)-1].seq
		d := a.agg.fold(st, todo, to)
		err = a.store.Apply(ctx, d)
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return 0, err
		}
		// Logged once: after the commit, which happens once per sequence.
		for _, e := range todo {
			if e.kind == kindRejected {
				a.log.WarnContext(ctx, "event rejected", slog.Uint64("stream_seq", e.seq), slog.String("subject", e.subject),
					slog.String("reason", e.reason), slog.Any("error", e.err))
			}
		}
		return to, nil
	}
	return 0, fmt.Errorf("apply batch: %w", ErrConflict)
}

// ApplyBatch applies msgs (in stream order) to st with agg and returns the store's position: what
// the consumer does with each batch it reads. Messages at or below the position change nothing.
func ApplyBatch(ctx context.Context, st Store, agg Aggregator, msgs []Message, log *slog.Logger) (uint64, error) {
	if log == nil {
		log = slog.Default()
	}
	a := applier{store: st, agg: agg, log: log}
	return a.apply(ctx, msgs)
}
