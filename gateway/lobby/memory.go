package lobby

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"
)

// Memory is the in-process Store, for `cardroom serve` without Redis and for tests. Records are
// kept encoded, so callers never share memory with the store.
type Memory struct {
	mu       sync.Mutex
	now      func() time.Time
	tables   map[string]memRecord
	codes    map[string]string
	tickets  map[string]memRecord
	queues   map[string][]string // pool → ticket ids in queue order
	presence map[string]map[int]time.Time
	drive    map[string]memLease
	matches  map[string]Match
	onces    map[string]memOnce
	swept    time.Time
	// lists are the public lists (listKey → index), mine each person's tables.
	lists, mine map[string]*memIndex
}

type memOnce struct {
	once    Once
	expires time.Time
}

type memRecord struct {
	data    []byte
	version uint64
	state   TicketState
	table   string
	expires time.Time
}

type memLease struct {
	owner string
	until time.Time
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{
		now: time.Now, tables: map[string]memRecord{}, codes: map[string]string{}, tickets: map[string]memRecord{},
		queues: map[string][]string{}, presence: map[string]map[int]time.Time{}, drive: map[string]memLease{},
		matches: map[string]Match{}, onces: map[string]memOnce{},
	}
}

func (m *Memory) live(r memRecord, ok bool) bool {
	return ok && (r.expires.IsZero() || m.now().Before(r.expires))
}

func (m *Memory) CreateTable(_ context.Context, t Table, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.createTable(t, ttl)
}

// once returns the live record of key, forgetting the expired ones now and then.
func (m *Memory) once(key string) (Once, bool) {
	now := m.now()
	if now.Sub(m.swept) > time.Minute {
		for k, o := range m.onces {
			if !now.Before(o.expires) {
				delete(m.onces, k)
			}
		}
		m.swept = now
	}
	o, ok := m.onces[key]
	if !ok || !now.Before(o.expires) {
		return Once{}, false
	}
	return o.once, true
}

func (m *Memory) CreateTableOnce(_ context.Context, t Table, ttl time.Duration, once Once, keep time.Duration) (Once, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if prior, ok := m.once(once.Key); ok {
		return prior, true, nil
	}
	if err := m.createTable(t, ttl); err != nil {
		return Once{}, false, err
	}
	m.onces[once.Key] = memOnce{once: once, expires: m.now().Add(keep)}
	return Once{}, false, nil
}

func (m *Memory) createTable(t Table, ttl time.Duration) error {
	if r, ok := m.tables[t.ID]; m.live(r, ok) {
		return ErrExists
	}
	if t.InviteCode != "" {
		if id, ok := m.codes[t.InviteCode]; ok {
			if r, ok := m.tables[id]; m.live(r, ok) {
				return ErrExists
			}
		}
		m.codes[t.InviteCode] = t.ID
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	r := memRecord{data: data, version: 1}
	if ttl > 0 {
		r.expires = m.now().Add(ttl)
	}
	m.tables[t.ID] = r
	m.own(t.ID, t.State)
	m.index(&t)
	return nil
}

// own keeps the owned set in step with a table's state.
func (m *Memory) own(id string, st TableState) {
	if !st.Owned() {
		delete(m.drive, id)
		return
	}
	if _, ok := m.drive[id]; !ok {
		m.drive[id] = memLease{}
	}
}

func (m *Memory) LoadTable(_ context.Context, id string) (Table, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.tables[id]
	if !m.live(r, ok) {
		return Table{}, ErrNotFound
	}
	var t Table
	if err := json.Unmarshal(r.data, &t); err != nil {
		return Table{}, err
	}
	t.Version = r.version
	return t, nil
}

func (m *Memory) TableByCode(_ context.Context, code string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.codes[code]
	if !ok {
		return "", ErrNotFound
	}
	if r, ok := m.tables[id]; !m.live(r, ok) {
		return "", ErrNotFound
	}
	return id, nil
}

func (m *Memory) UpdateTable(_ context.Context, t Table, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.tables[t.ID]
	if !m.live(r, ok) {
		return ErrNotFound
	}
	if r.version != t.Version {
		return ErrConflict
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	r = memRecord{data: data, version: t.Version + 1}
	if ttl > 0 {
		r.expires = m.now().Add(ttl)
	}
	m.tables[t.ID] = r
	m.own(t.ID, t.State)
	m.index(&t)
	return nil
}

func (m *Memory) CreateTicket(_ context.Context, t Ticket) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.createTicket(t)
}

func (m *Memory) CreateTicketOnce(_ context.Context, t Ticket, once Once, keep time.Duration) (Once, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if prior, ok := m.once(once.Key); ok {
		return prior, true, nil
	}
	if err := m.createTicket(t); err != nil {
		return Once{}, false, err
	}
	m.onces[once.Key] = memOnce{once: once, expires: m.now().Add(keep)}
	return Once{}, false, nil
}

func (m *Memory) createTicket(t Ticket) error {
	if r, ok := m.tickets[t.ID]; m.live(r, ok) {
		return ErrExists
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	m.tickets[t.ID] = memRecord{data: data, version: 1, state: t.State}
	m.queue(t.Pool, t.ID, t.State)
	return nil
}

func (m *Memory) queue(pool, id string, st TicketState) {
	q := slices.DeleteFunc(m.queues[pool], func(x string) bool { return x == id })
	if st == TicketQueued {
		q = append(q, id)
	}
	if len(q) == 0 {
		delete(m.queues, pool)
	} else {
		m.queues[pool] = q
	}
}

func (m *Memory) ticket(id string) (Ticket, bool, error) {
	r, ok := m.tickets[id]
	if !m.live(r, ok) {
		return Ticket{}, false, nil
	}
	var t Ticket
	if err := json.Unmarshal(r.data, &t); err != nil {
		return Ticket{}, false, err
	}
	t.Version, t.State, t.TableID = r.version, r.state, r.table
	return t, true, nil
}

func (m *Memory) LoadTicket(_ context.Context, id string) (Ticket, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok, err := m.ticket(id)
	if err == nil && !ok {
		err = ErrNotFound
	}
	return t, err
}

func (m *Memory) UpdateTicket(_ context.Context, t Ticket, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.tickets[t.ID]
	if !m.live(r, ok) {
		return ErrNotFound
	}
	if r.version != t.Version {
		return ErrConflict
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	r = memRecord{data: data, version: t.Version + 1, state: t.State, table: t.TableID}
	if ttl > 0 {
		r.expires = m.now().Add(ttl)
	}
	m.tickets[t.ID] = r
	m.queue(t.Pool, t.ID, t.State)
	return nil
}

func (m *Memory) Pools(context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.queues))
	for p := range m.queues {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

func (m *Memory) Waiting(_ context.Context, pool string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, id := range m.queues[pool] {
		t, ok, err := m.ticket(id)
		if err != nil {
			return 0, err
		}
		if ok {
			n += len(t.Players)
		}
	}
	return n, nil
}

func (m *Memory) ClaimMatch(_ context.Context, pool, tableID string, now time.Time) (Match, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var cs []candidate
	for _, id := range m.queues[pool] {
		t, ok, err := m.ticket(id)
		if err != nil {
			return Match{}, false, err
		}
		if !ok {
			continue
		}
		cs = append(cs, candidate{id: id, size: len(t.Players), min: t.MinSeats, max: t.MaxSeats, bots: t.BotsMayFill,
			deadline: t.QueuedAt.Add(t.MaxWait).UnixMilli()})
		if len(cs) == maxCandidates {
			break
		}
	}
	ids, seats, ok := pick(cs, now.UnixMilli())
	if !ok {
		return Match{}, false, nil
	}
	for _, id := range ids {
		r := m.tickets[id]
		r.state, r.table, r.version = TicketMatched, tableID, r.version+1
		m.tickets[id] = r
		m.queue(pool, id, TicketMatched)
	}
	match := Match{TableID: tableID, Tickets: ids, Seats: seats}
	m.matches[tableID] = match
	if _, ok := m.drive[tableID]; !ok {
		m.drive[tableID] = memLease{}
	}
	return match, true, nil
}

func (m *Memory) LoadMatch(_ context.Context, tableID string) (Match, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	match, ok := m.matches[tableID]
	if !ok {
		return Match{}, ErrNotFound
	}
	match.Tickets = slices.Clone(match.Tickets)
	return match, nil
}

func (m *Memory) Touch(_ context.Context, table string, seat int, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.presence[table]
	if p == nil {
		p = map[int]time.Time{}
		m.presence[table] = p
	}
	if now.After(p[seat]) {
		p[seat] = now
	}
	return nil
}

func (m *Memory) Presence(_ context.Context, table string) (map[int]time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[int]time.Time{}
	for k, v := range m.presence[table] {
		out[k] = v
	}
	return out, nil
}

func (m *Memory) AddDrive(_ context.Context, table string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.drive[table]; !ok {
		m.drive[table] = memLease{}
	}
	return nil
}

func (m *Memory) DropDrive(_ context.Context, table string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.drive, table)
	delete(m.presence, table)
	delete(m.matches, table)
	return nil
}

func (m *Memory) ClaimDrive(_ context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for id, l := range m.drive {
		if len(out) == limit {
			break
		}
		if l.until.After(now) {
			continue
		}
		m.drive[id] = memLease{owner: owner, until: now.Add(lease)}
		out = append(out, id)
	}
	slices.Sort(out)
	return out, nil
}

func (m *Memory) RenewDrive(_ context.Context, owner string, tables []string, now time.Time, lease time.Duration) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, id := range tables {
		l, ok := m.drive[id]
		if !ok || l.owner != owner {
			continue
		}
		m.drive[id] = memLease{owner: owner, until: now.Add(lease)}
		out = append(out, id)
	}
	return out, nil
}

// maxCandidates bounds how many queued tickets one claim considers.
const maxCandidates = 200
