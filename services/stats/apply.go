package stats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"

	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/kit/bus"
	"google.golang.org/protobuf/proto"
)

// applier applies batches of messages to a store: decode, load the records they touch, fold,
// apply with the position check. Messages at or below the store's position are skipped, so a
// redelivered batch changes nothing.
type applier struct {
	store Store
	agg   Aggregator
	log   *slog.Logger
	// subj names the subjects messages must be on (the bus's).
	subj bus.Subjects
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
		evs[i] = decode(m, a.subj)
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
		a.logRejections(ctx, todo)
		return to, nil
	}
	return 0, fmt.Errorf("apply batch: %w", ErrConflict)
}

// ApplyBatch applies msgs (in stream order, on bus.DefaultPrefix's subjects) to st with agg and
// returns the store's position: what the consumer does with each batch it reads. Messages at or
// below the position change nothing.
func ApplyBatch(ctx context.Context, st Store, agg Aggregator, msgs []Message, log *slog.Logger) (uint64, error) {
	if log == nil {
		log = slog.Default()
	}
	a := applier{store: st, agg: agg, log: log}
	return a.apply(ctx, msgs)
}

// cache holds, for one consumer session, the records the session has touched as they are after
// the last delta it computed. It lets the next batch be folded while the previous one is still
// being applied: records it holds may be ahead of the store, records it lacks are untouched by
// anything in flight, so reading them from the store is safe. Deltas still carry their From
// position, so a cache that went wrong can only cause a refused Apply, never a wrong aggregate.
type cache struct {
	pos       uint64
	highWater int64
	tables    map[string]*TableRecord
	players   map[PlayerKey]*statsv1.PlayerGameRecord
}

// cacheLimit bounds the records a session keeps; past it the cache is emptied between batches
// (once nothing is in flight).
const cacheLimit = 200_000

func newCache(st *State) *cache {
	return &cache{pos: st.Position, highWater: st.HighWater, tables: map[string]*TableRecord{}, players: map[PlayerKey]*statsv1.PlayerGameRecord{}}
}

func (c *cache) size() int { return len(c.tables) + len(c.players) }

// foldCached decodes msgs and folds those after the cache's position into a delta, reading from
// the store only the records the cache lacks. It returns nil when nothing is after the position.
func (a *applier) foldCached(ctx context.Context, c *cache, msgs []Message) (*Delta, []*event, error) {
	var evs []*event
	for _, m := range msgs {
		if m.Seq > c.pos {
			evs = append(evs, decode(m, a.subj))
		}
	}
	if len(evs) == 0 {
		return nil, nil, nil
	}
	keys := a.agg.keys(evs)
	var missing Keys
	for _, id := range keys.Tables {
		if c.tables[id] == nil {
			missing.Tables = append(missing.Tables, id)
		}
	}
	for _, k := range keys.Players {
		if c.players[k] == nil {
			missing.Players = append(missing.Players, k)
		}
	}
	st := &State{Position: c.pos, HighWater: c.highWater, Tables: map[string]*TableRecord{}, Players: map[PlayerKey]*statsv1.PlayerGameRecord{}}
	if len(missing.Tables)+len(missing.Players) > 0 {
		loaded, err := a.store.Load(ctx, missing)
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(st.Tables, loaded.Tables)
		maps.Copy(st.Players, loaded.Players)
	}
	for _, id := range keys.Tables {
		if t := c.tables[id]; t != nil {
			st.Tables[id] = t // never changed in place: the fold replaces table records
		}
	}
	for _, k := range keys.Players {
		if r := c.players[k]; r != nil {
			st.Players[k] = proto.CloneOf(r) // the fold changes player records in place
		}
	}
	d := a.agg.fold(st, evs, evs[len(evs)-1].seq)
	// Only records the fold has (in the delta, or loaded unchanged) are cached: a key the cache
	// lacks is read from the store next time.
	for _, id := range keys.Tables {
		if t := st.Tables[id]; t != nil {
			c.tables[id] = t
		}
	}
	for _, k := range keys.Players {
		if r := st.Players[k]; r != nil {
			c.players[k] = r
		}
	}
	c.pos, c.highWater = d.To, d.HighWater
	return d, evs, nil
}

// logRejections logs the rejected events of a committed batch: once, since a sequence commits once.
func (a *applier) logRejections(ctx context.Context, evs []*event) {
	for _, e := range evs {
		if e.kind == kindRejected {
			a.log.WarnContext(ctx, "event rejected", slog.Uint64("stream_seq", e.seq), slog.String("subject", e.subject),
				slog.String("reason", e.reason), slog.Any("error", e.err))
		}
	}
}
