package rules

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/store"
)

// Loading a table for a call, and the decoded states kept between calls (stateCache).

// loaded is a table read from the store and decoded.
type loaded struct {
	t     store.Table
	cfg   *gamev1.TableConfig
	state engine.State
	prior *store.Entry
	// cached: the state may come from and go back to the state cache (writers only).
	cached bool
	// subj: the table's bus subjects, kept with the state (nil: none made yet).
	subj *subjects
}

// load reads a table and decodes it. A writer (write true) may get the state this replica last
// committed instead of decoding it again; it must give the state back with keep or drop it.
func (s *Server) load(ctx context.Context, id, actionID string, write bool) (l loaded, err error) {
	if err := checkTableID(id); err != nil {
		return l, err
	}
	ctx, span := s.startSpan(ctx, "store.load")
	t, prior, err := s.store.Load(ctx, id, actionID)
	span.End()
	if err != nil {
		return l, err
	}
	cfg, err := s.configs.get(id, t.Config)
	if err != nil {
		return l, fmt.Errorf("decode config of %s: %w", id, err)
	}
	l = loaded{t: t, cfg: cfg, prior: prior, cached: write}
	if prior != nil {
		return l, nil
	}
	if write {
		if l.state, l.subj = s.states.take(id, t.Version, t.State); l.state != nil {
			return l, nil
		}
	}
	if l.state, err = s.eng.DecodeState(t.State); err != nil {
		return loaded{}, err
	}
	return l, nil
}

// keep puts back in the state cache a writer's state that the game has not changed since load.
func (s *Server) keep(l *loaded) {
	if l.cached && l.state != nil && !l.t.Finished {
		s.states.put(l.t, l.cfg, l.state, l.subj)
	}
}

// committed is the table's record as a commit of l's state, encoded as state, left it: version,
// events more, deadline dl, and the commit's write token.
func (l *loaded) committed(version uint64, state []byte, events int, dl time.Time, token uint64) store.Table {
	t := l.t
	t.Version, t.State, t.Sequence, t.Deadline, t.Token = version, state, l.t.Sequence+uint64(events), dl, token
	return t
}

// newToken picks a write token (store.Table.Token) at random, never 0.
func newToken() uint64 {
	for {
		if t := mrand.Uint64(); t != 0 {
			return t
		}
	}
}
