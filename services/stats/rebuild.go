package stats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"cardroom.dev/services/kit/bus"
)

// ErrNotEmpty is returned by Rebuild when the destination store already holds aggregates.
var ErrNotEmpty = errors.New("stats: rebuild needs an empty aggregate store")

// RebuildOptions configure Rebuild.
type RebuildOptions struct {
	// Batch is the most messages applied in one store call (default 1000).
	Batch      int
	Aggregator *Aggregator
	Logger     *slog.Logger
}

// Rebuild recomputes every aggregate from the start of b's stream into dst, which must be empty,
// up to the last message the stream held when Rebuild started. It returns the stream sequence the
// aggregates then reflect: a Consumer on dst continues from there. Applying the same events
// through the same fold, it gives exactly the aggregates the live consumer has at that sequence.
func Rebuild(ctx context.Context, b *bus.Bus, dst Store, opt RebuildOptions) (uint64, error) {
	if opt.Batch <= 0 {
		opt.Batch = 1000
	}
	agg := DefaultAggregator
	if opt.Aggregator != nil {
		agg = *opt.Aggregator
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if pos, err := dst.Position(ctx); err != nil {
		return 0, err
	} else if pos != 0 {
		return 0, fmt.Errorf("%w: it is at stream sequence %d", ErrNotEmpty, pos)
	}
	ap := applier{store: dst, agg: agg, log: opt.Logger, subj: b.Subjects()}
	var pos uint64
	batch := make([]Message, 0, opt.Batch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		p, err := ap.apply(ctx, batch)
		if err != nil {
			return err
		}
		pos = p
		batch = batch[:0]
		return nil
	}
	err := b.ReadPublic(ctx, bus.ReadFrom{}, 2*opt.Batch, func(m bus.Received) error {
		batch = append(batch, Message{Subject: m.Subject, Data: m.Data, Seq: m.StreamSeq})
		if len(batch) >= opt.Batch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return pos, fmt.Errorf("rebuild: %w", err)
	}
	return pos, flush()
}
