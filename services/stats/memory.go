package stats

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"google.golang.org/protobuf/proto"
)

// Memory is the aggregate store inside one process (`cardroom serve` without Redis, tests). It
// keeps the same shapes as Redis, including the order of equal ratings on a leaderboard.
type Memory struct {
	mu        sync.RWMutex
	position  uint64
	highWater int64
	ingest    map[string]int64
	games     map[string]map[string]int64
	tables    map[string]TableRecord
	done      map[string]int64 // done table → finish ms
	players   map[PlayerKey][]byte
	byPlayer  map[string]map[string]bool
	recent    map[string][][]byte
	boards    map[string]*board
	live      map[PlayerKey]int64
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{
		ingest: map[string]int64{}, games: map[string]map[string]int64{}, tables: map[string]TableRecord{},
		done: map[string]int64{}, players: map[PlayerKey][]byte{}, byPlayer: map[string]map[string]bool{},
		recent: map[string][][]byte{}, boards: map[string]*board{}, live: map[PlayerKey]int64{},
	}
}

var deterministic = proto.MarshalOptions{Deterministic: true}

func (m *Memory) Load(_ context.Context, keys Keys) (*State, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	st := &State{Position: m.position, HighWater: m.highWater, Tables: map[string]*TableRecord{}, Players: map[PlayerKey]*statsv1.PlayerGameRecord{}}
	for _, id := range keys.Tables {
		if t, ok := m.tables[id]; ok {
			t.Humans = slices.Clone(t.Humans)
			st.Tables[id] = &t
		}
	}
	for _, k := range keys.Players {
		if b, ok := m.players[k]; ok {
			r := &statsv1.PlayerGameRecord{}
			if err := proto.Unmarshal(b, r); err != nil {
				return nil, err
			}
			st.Players[k] = r
		}
	}
	return st, nil
}

func (m *Memory) Apply(_ context.Context, d *Delta) error {
	// Encode first: a failure must leave the store untouched.
	players := make(map[PlayerKey][]byte, len(d.Players))
	for k, r := range d.Players {
		b, err := deterministic.Marshal(r)
		if err != nil {
			return err
		}
		players[k] = b
	}
	recent := make([][]byte, len(d.Recent))
	for i, p := range d.Recent {
		b, err := deterministic.Marshal(p.Game)
		if err != nil {
			return err
		}
		recent[i] = b
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.position != d.From {
		return ErrConflict
	}
	m.position = d.To
	m.highWater = max(m.highWater, d.HighWater)
	for k, v := range d.Ingest {
		m.ingest[k] += v
	}
	for g, gd := range d.Games {
		c := m.games[g]
		if c == nil {
			c = map[string]int64{}
			m.games[g] = c
		}
		for f, v := range gd.Incr {
			c[f] += v
		}
		for f, v := range gd.Min {
			if cur, ok := c[f]; !ok || v < cur {
				c[f] = v
			}
		}
		for f, v := range gd.Max {
			if cur, ok := c[f]; !ok || v > cur {
				c[f] = v
			}
		}
	}
	for id, t := range d.Tables {
		rec := *t
		rec.Humans = slices.Clone(t.Humans)
		m.tables[id] = rec
		if t.Done {
			m.done[id] = t.Finished
		}
	}
	if d.PruneBefore > 0 {
		for id, f := range m.done {
			if f < d.PruneBefore {
				delete(m.done, id)
				delete(m.tables, id)
			}
		}
	}
	for k, b := range players {
		m.players[k] = b
		if m.byPlayer[k.Player] == nil {
			m.byPlayer[k.Player] = map[string]bool{}
		}
		m.byPlayer[k.Player][k.Game] = true
	}
	limit := max(d.RecentLimit, 1)
	for i, p := range d.Recent {
		l := append([][]byte{recent[i]}, m.recent[p.Player]...)
		if len(l) > limit {
			l = l[:limit]
		}
		m.recent[p.Player] = l
	}
	for k, v := range d.Board {
		b := m.boards[k.Game]
		if b == nil {
			b = &board{score: map[string]float64{}}
			m.boards[k.Game] = b
		}
		b.set(k.Player, v)
	}
	for k, v := range d.Live {
		n := m.live[k] + v
		if n <= 0 {
			delete(m.live, k)
		} else {
			m.live[k] = n
		}
	}
	return nil
}

func (m *Memory) Position(context.Context) (uint64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.position, nil
}

func (m *Memory) Games(context.Context) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.games))
	for g := range m.games {
		out = append(out, g)
	}
	sort.Strings(out)
	return out, nil
}

func (m *Memory) GameCounters(_ context.Context, game string) (map[string]int64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]int64, len(m.games[game]))
	for k, v := range m.games[game] {
		out[k] = v
	}
	return out, nil
}

func (m *Memory) PlayerRecords(_ context.Context, player string) ([]*statsv1.PlayerGameRecord, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	games := make([]string, 0, len(m.byPlayer[player]))
	for g := range m.byPlayer[player] {
		games = append(games, g)
	}
	sort.Strings(games)
	out := make([]*statsv1.PlayerGameRecord, 0, len(games))
	for _, g := range games {
		r := &statsv1.PlayerGameRecord{}
		if err := proto.Unmarshal(m.players[PlayerKey{Player: player, Game: g}], r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (m *Memory) Recent(_ context.Context, player string, n int) ([]*statsv1.RecentGame, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	l := m.recent[player]
	if n < len(l) {
		l = l[:n]
	}
	out := make([]*statsv1.RecentGame, 0, len(l))
	for _, b := range l {
		r := &statsv1.RecentGame{}
		if err := proto.Unmarshal(b, r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (m *Memory) Leaderboard(_ context.Context, game string, start, n int) ([]Ranked, int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	b := m.boards[game]
	if b == nil {
		return nil, 0, nil
	}
	start = max(start, 0)
	end := min(start+max(n, 0), len(b.rows))
	if start >= end {
		return nil, len(b.rows), nil
	}
	return slices.Clone(b.rows[start:end]), len(b.rows), nil
}

func (m *Memory) Rank(_ context.Context, game, player string) (int, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	b := m.boards[game]
	if b == nil {
		return 0, false, nil
	}
	s, ok := b.score[player]
	if !ok {
		return 0, false, nil
	}
	return b.find(Ranked{player, s}), true, nil
}

func (m *Memory) Live(context.Context) (*Live, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	l := &Live{Tables: map[string]int64{}, Players: map[string]int64{}}
	for k, v := range m.live {
		switch {
		case k.Player == "":
			l.Tables[k.Game] = v
		case k.Game == "":
			l.AllPlayers++
		default:
			l.Players[k.Game]++
		}
	}
	return l, nil
}

func (m *Memory) Ingest(context.Context) (map[string]int64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]int64, len(m.ingest))
	for k, v := range m.ingest {
		out[k] = v
	}
	return out, nil
}

func (m *Memory) Snapshot(context.Context) (*Snapshot, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	s := &Snapshot{
		Position: m.position, HighWater: m.highWater, Ingest: map[string]int64{}, Games: map[string]map[string]int64{},
		Tables: map[string]TableRecord{}, Players: map[PlayerKey]string{}, Recent: map[string][]string{},
		Boards: map[string][]Ranked{}, Online: map[PlayerKey]int64{},
	}
	for k, v := range m.ingest {
		s.Ingest[k] = v
	}
	for g, c := range m.games {
		cc := map[string]int64{}
		for k, v := range c {
			cc[k] = v
		}
		s.Games[g] = cc
	}
	for id, t := range m.tables {
		t.Humans = slices.Clone(t.Humans)
		s.Tables[id] = t
	}
	for k, b := range m.players {
		s.Players[k] = string(b)
	}
	for p, l := range m.recent {
		for _, b := range l {
			s.Recent[p] = append(s.Recent[p], string(b))
		}
	}
	for g, b := range m.boards {
		s.Boards[g] = slices.Clone(b.rows)
	}
	for k, v := range m.live {
		s.Online[k] = v
	}
	return s, nil
}

// board is a leaderboard ordered as Redis orders a sorted set read in reverse: rating descending,
// equal ratings by player id descending.
type board struct {
	rows  []Ranked
	score map[string]float64
}

func before(a, b Ranked) bool {
	if a.Rating != b.Rating {
		return a.Rating > b.Rating
	}
	return strings.Compare(a.Player, b.Player) > 0
}

func (b *board) find(r Ranked) int {
	return sort.Search(len(b.rows), func(i int) bool { return !before(b.rows[i], r) })
}

func (b *board) set(player string, rating float64) {
	if old, ok := b.score[player]; ok {
		i := b.find(Ranked{player, old})
		b.rows = slices.Delete(b.rows, i, i+1)
	}
	r := Ranked{player, rating}
	b.rows = slices.Insert(b.rows, b.find(r), r)
	b.score[player] = rating
}
