package accounts

import (
	"context"
	"sync"
)

// Memory keeps accounts in the process (the all-in-one `cardroom serve` without Redis): they last
// as long as it runs.
type Memory struct {
	mu      sync.Mutex
	creds   map[Kind]map[string]Credential
	players map[string]Player
	names   map[string]string // folded display name → player (ClaimName)
	vis     map[string]Visibility
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{creds: map[Kind]map[string]Credential{}, players: map[string]Player{}}
}

func (m *Memory) Create(_ context.Context, c Credential, p Player) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.creds[c.Kind][c.ID]; ok {
		return ErrExists
	}
	if m.creds[c.Kind] == nil {
		m.creds[c.Kind] = map[string]Credential{}
	}
	m.creds[c.Kind][c.ID] = c
	m.players[p.ID] = p
	return nil
}

func (m *Memory) Credential(_ context.Context, kind Kind, id string) (Credential, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.creds[kind][id]
	if !ok {
		return Credential{}, ErrNotFound
	}
	return c, nil
}

func (m *Memory) Player(_ context.Context, id string) (Player, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.players[id]
	if !ok {
		return Player{}, ErrNotFound
	}
	return p, nil
}

func (m *Memory) Rename(_ context.Context, id, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.players[id]
	if !ok {
		return ErrNotFound
	}
	p.DisplayName = name
	m.players[id] = p
	return nil
}
