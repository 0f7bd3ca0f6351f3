package lobby

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
)

// memIndex is a sorted set in memory: entries from the highest score down, and within a score from
// the highest id down (the order of Redis' ZREVRANGE), so that a page is a binary search and a
// slice.
type memIndex struct {
	entries []memEntry
	score   map[string]int64
}

type memEntry struct {
	score int64
	id    string
}

func compareEntries(a, b memEntry) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(b.id, a.id)
}

func (x *memIndex) add(id string, score int64) {
	if x.score == nil {
		x.score = map[string]int64{}
	}
	if old, ok := x.score[id]; ok {
		if old == score {
			return
		}
		x.remove(id)
	}
	e := memEntry{score, id}
	i, _ := slices.BinarySearchFunc(x.entries, e, compareEntries)
	x.entries = slices.Insert(x.entries, i, e)
	x.score[id] = score
}

func (x *memIndex) remove(id string) {
	old, ok := x.score[id]
	if !ok {
		return
	}
	if i, found := slices.BinarySearchFunc(x.entries, memEntry{old, id}, compareEntries); found {
		x.entries = slices.Delete(x.entries, i, i+1)
	}
	delete(x.score, id)
}

// from is the index of the first entry after c.
func (x *memIndex) from(c Cursor) int {
	if c.IsZero() {
		return 0
	}
	i, found := slices.BinarySearchFunc(x.entries, memEntry{c.Score, c.ID}, compareEntries)
	if found {
		i++
	}
	return i
}

func listKey(l Listing, game string) string { return l.key() + ":" + game }

// index keeps the lists and the people's indexes in step with t (m.mu held).
func (m *Memory) index(t *Table) {
	if m.lists == nil {
		m.lists, m.mine = map[string]*memIndex{}, map[string]*memIndex{}
	}
	l, score := t.Listing(), t.listScore()
	for _, other := range listings {
		for _, k := range []string{listKey(other, ""), listKey(other, t.Game)} {
			x := m.lists[k]
			if other == l {
				if x == nil {
					x = &memIndex{}
					m.lists[k] = x
				}
				x.add(t.ID, score)
			} else if x != nil {
				x.remove(t.ID)
			}
		}
	}
	for _, p := range t.people() {
		x := m.mine[p]
		if x == nil {
			x = &memIndex{}
			m.mine[p] = x
		}
		x.add(t.ID, t.CreatedAt.UnixMilli())
		for len(x.entries) > MaxPlayerTables {
			x.remove(x.entries[len(x.entries)-1].id)
		}
	}
}

// loadLive is table id's record unless it expired (m.mu held).
func (m *Memory) loadLive(id string) (Table, bool, error) {
	r, ok := m.tables[id]
	if !m.live(r, ok) {
		return Table{}, false, nil
	}
	var t Table
	if err := json.Unmarshal(r.data, &t); err != nil {
		return Table{}, false, err
	}
	t.Version = r.version
	return t, true, nil
}

func (m *Memory) ListTables(_ context.Context, q TableQuery) (TablePage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	x := m.lists[listKey(q.Listing, q.Game)]
	if x == nil || q.Limit <= 0 {
		return TablePage{}, nil
	}
	var page TablePage
	var gone []string
	var last Cursor
	for i := x.from(q.After); i < len(x.entries); i++ {
		e := x.entries[i]
		t, ok, err := m.loadLive(e.id)
		if err != nil {
			return TablePage{}, err
		}
		if !ok {
			gone = append(gone, e.id)
			continue
		}
		if len(page.Tables) == q.Limit {
			page.Next = last
			break
		}
		page.Tables = append(page.Tables, t)
		last = Cursor{Score: e.score, ID: e.id}
	}
	for _, id := range gone {
		for _, x := range m.lists {
			x.remove(id)
		}
	}
	return page, nil
}

func (m *Memory) TablesOf(_ context.Context, player string, limit int) ([]Table, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	x := m.mine[player]
	if x == nil {
		return nil, nil
	}
	limit = min(limit, MaxPlayerTables)
	var out []Table
	for _, e := range slices.Clone(x.entries) {
		if len(out) >= limit {
			break
		}
		t, ok, err := m.loadLive(e.id)
		if err != nil {
			return nil, err
		}
		if !ok {
			x.remove(e.id)
			continue
		}
		out = append(out, t)
	}
	return out, nil
}
