package stats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"cardroom.dev/services/kit/bus"
	"github.com/nats-io/nats.go/jetstream"
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
	target, err := b.LastSequence(ctx)
	if err != nil {
		return 0, err
	}
	if target == 0 {
		return 0, nil
	}
	cons, err := b.PublicOrdered(ctx)
	if err != nil {
		return 0, fmt.Errorf("rebuild consumer: %w", err)
	}
	info, err := bus.ConsumerInfo(ctx, cons)
	if err != nil {
		return 0, fmt.Errorf("rebuild consumer: %w", err)
	}
	if info.NumPending == 0 {
		return 0, nil
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(2 * opt.Batch))
	if err != nil {
		return 0, fmt.Errorf("rebuild consumer: %w", err)
	}
	defer it.Stop()
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
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return pos, fmt.Errorf("rebuild read: %w", err)
		}
		md, err := m.Metadata()
		if err != nil {
			return pos, fmt.Errorf("rebuild read: %w", err)
		}
		ss := md.Sequence.Stream
		if ss > target {
			return pos, flush()
		}
		batch = append(batch, Message{Subject: m.Subject(), Data: m.Data(), Seq: ss})
		done := ss == target || md.NumPending == 0
		if len(batch) >= opt.Batch || done {
			if err := flush(); err != nil {
				return pos, err
			}
		}
		if done {
			return pos, nil
		}
	}
}
