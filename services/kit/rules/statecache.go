package rules

import (
	"bytes"
	"sync"

	"cardroom.dev/services/kit/engine"
)

// stateCache keeps, per table, the decoded state this replica last committed, so that the next
// action at that table skips decoding it. An entry serves only a load that finds the table at the
// entry's version with the very bytes the entry was encoded to: another replica may have moved the
// table on, and a table id may be reused after expiry. An action takes its table's entry out while
// it works on the state, so concurrent actions never share one; the state goes back only after its
// commit succeeded, or untouched when the action stopped before the game saw it. Anything else (a
// refusal, a lost compare-and-set) drops it, and the next load decodes from the store.
type stateCache struct {
	mu sync.Mutex
	m  map[string]cachedState
}

type cachedState struct {
	version uint64
	encoded []byte
	state   engine.State
	subj    *subjects
}

// maxCachedStates bounds the cache; past it a random entry makes room (tables in play refill it).
const maxCachedStates = 4096

// take returns the table's state (and subjects) if the cache holds it at version with these bytes,
// and removes the table's entry either way: the caller owns the state until it puts it back.
func (c *stateCache) take(id string, version uint64, encoded []byte) (engine.State, *subjects) {
	c.mu.Lock()
	e, ok := c.m[id]
	if ok {
		delete(c.m, id)
	}
	c.mu.Unlock()
	if !ok || e.version != version || !bytes.Equal(e.encoded, encoded) {
		return nil, nil
	}
	return e.state, e.subj
}

// put keeps st as the table's state at version, encoded as encoded (bytes nobody changes), with the
// table's subjects (nil: none made yet). The caller must not use st or subj afterwards.
func (c *stateCache) put(id string, version uint64, encoded []byte, st engine.State, subj *subjects) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.m[id]
	if ok && old.version > version {
		return // a later commit of this replica already put its state
	}
	if c.m == nil {
		c.m = make(map[string]cachedState)
	}
	if !ok && len(c.m) >= maxCachedStates {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[id] = cachedState{version: version, encoded: encoded, state: st, subj: subj}
}
