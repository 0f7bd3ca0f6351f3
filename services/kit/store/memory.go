package store

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Memory is the in-process store, for `cardroom serve` on a machine without Redis and for tests.
// It has the same semantics as Redis, expiry included.
type Memory struct {
	mu        sync.Mutex
	tables    map[string]*memTable
	deadlines map[string]time.Time // claim time (deadline or lease end) per table
	outbox    map[string]time.Time
	now       func() time.Time
}

type memTable struct {
	t       Table
	log     entryLog
	ids     map[string]uint64
	expires time.Time
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{
		tables:    map[string]*memTable{},
		deadlines: map[string]time.Time{},
		outbox:    map[string]time.Time{},
		now:       time.Now,
	}
}

// get returns a live table, dropping it if it expired.
func (m *Memory) get(id string) *memTable {
	mt, ok := m.tables[id]
	if !ok {
		return nil
	}
	if !mt.expires.IsZero() && !m.now().Before(mt.expires) {
		delete(m.tables, id)
		delete(m.deadlines, id)
		delete(m.outbox, id)
		return nil
	}
	return mt
}

func (m *Memory) Create(_ context.Context, t Table, created Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.get(t.ID) != nil {
		return ErrExists
	}
	// The store keeps the caller's byte slices (see Store.Create) and never changes them.
	mt := &memTable{t: t, ids: map[string]uint64{}}
	mt.log.add(created)
	m.tables[t.ID] = mt
	if !t.Deadline.IsZero() {
		m.deadlines[t.ID] = t.Deadline
	}
	if t.Sequence > t.Published {
		m.outbox[t.ID] = m.now()
	}
	return nil
}

func (m *Memory) Load(_ context.Context, id, actionID string) (Table, *Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt := m.get(id)
	if mt == nil {
		return Table{}, nil, ErrNotFound
	}
	// The byte slices are shared: the store never changes them in place (a commit replaces them)
	// and callers must not either.
	t := mt.t
	if actionID != "" {
		if v, ok := mt.ids[actionID]; ok {
			e := cloneEntry(mt.log.at(v))
			return t, &e, nil
		}
	}
	return t, nil, nil
}

func (m *Memory) Commit(_ context.Context, c Commit) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt := m.get(c.TableID)
	if mt == nil {
		return ErrNotFound
	}
	if c.Entry.ActionID != "" {
		if _, ok := mt.ids[c.Entry.ActionID]; ok {
			return ErrDuplicate
		}
	}
	if mt.t.Version != c.From || c.Expect != 0 && mt.t.Token != c.Expect {
		return ErrConflict
	}
	// The store keeps the caller's byte slices (see Store.Commit) and never changes them.
	mt.t.Version = c.From + 1
	mt.t.State = c.State
	mt.t.Sequence = c.Sequence
	mt.t.Deadline = c.Deadline
	mt.t.Finished = c.Finished
	mt.t.Token = c.Token
	e := c.Entry
	e.Version = mt.t.Version
	mt.log.add(e)
	if e.ActionID != "" {
		mt.ids[e.ActionID] = e.Version
	}
	if c.Deadline.IsZero() || c.Finished {
		delete(m.deadlines, c.TableID)
	} else {
		m.deadlines[c.TableID] = c.Deadline
	}
	if mt.t.Sequence > mt.t.Published {
		m.outbox[c.TableID] = m.now()
	}
	if c.Finished {
		mt.expires = m.now().Add(c.Retain)
	}
	return nil
}

func (m *Memory) Log(_ context.Context, id string, from uint64) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt := m.get(id)
	if mt == nil {
		return nil, ErrNotFound
	}
	n := mt.log.len()
	if from >= n {
		return nil, nil
	}
	out := make([]Entry, 0, n-from)
	for v := from; v < n; v++ {
		out = append(out, cloneEntry(mt.log.at(v)))
	}
	return out, nil
}

func (m *Memory) ClaimDue(_ context.Context, now time.Time, lease time.Duration, limit int) ([]string, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	due := make([]string, 0)
	for id, at := range m.deadlines {
		if !at.After(now) && m.get(id) != nil {
			due = append(due, id)
		}
	}
	// Earliest first, as the sorted set in Redis does.
	slices.SortFunc(due, func(a, b string) int {
		if c := m.deadlines[a].Compare(m.deadlines[b]); c != 0 {
			return c
		}
		return compareStrings(a, b)
	})
	if len(due) > limit {
		due = due[:limit]
	}
	for _, id := range due {
		m.deadlines[id] = now.Add(lease)
	}
	var next time.Time
	for id, at := range m.deadlines {
		if m.get(id) != nil && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	return due, next, nil
}

func (m *Memory) Unpublished(_ context.Context, before time.Time, limit int) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for id, at := range m.outbox {
		if at.Before(before) && m.get(id) != nil {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (m *Memory) MarkPublished(_ context.Context, marks []Mark) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, mk := range marks {
		mt := m.get(mk.TableID)
		if mt == nil {
			continue
		}
		if mk.Sequence > mt.t.Published && mk.From <= mt.t.Published+1 {
			mt.t.Published = mk.Sequence
		}
		if mt.t.Published >= mt.t.Sequence {
			delete(m.outbox, mk.TableID)
		}
	}
	return nil
}

// entryLog is a table's log, kept in chunks of logChunk entries so that a long game's appends never
// copy the entries already kept. The first chunk grows as needed (short games stay small); later
// ones are made whole.
type entryLog struct {
	chunks [][]Entry
}

const logChunk = 256

func (l *entryLog) add(e Entry) {
	if k := len(l.chunks); k == 0 || len(l.chunks[k-1]) == logChunk {
		size := 0
		if k > 0 {
			size = logChunk
		}
		l.chunks = append(l.chunks, make([]Entry, 0, size))
	}
	k := len(l.chunks) - 1
	l.chunks[k] = append(l.chunks[k], e)
}

func (l *entryLog) len() uint64 {
	k := len(l.chunks)
	if k == 0 {
		return 0
	}
	return uint64(k-1)*logChunk + uint64(len(l.chunks[k-1]))
}

func (l *entryLog) at(v uint64) Entry { return l.chunks[v/logChunk][v%logChunk] }

func cloneEntry(e Entry) Entry {
	e.Data = slices.Clone(e.Data)
	return e
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Confirm implements Confirmer: a memory store has no replicas to wait for.
func (m *Memory) Confirm(context.Context, string, uint64) error { return nil }
