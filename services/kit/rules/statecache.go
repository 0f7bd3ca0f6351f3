package rules

import (
	"bytes"
	"sync"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/store"
)

// stateCache keeps, per table, the decoded state this replica last committed, with the table's
// record as that commit left it and its decoded configuration, so that the next action at that table
// skips decoding it and, usually, reading the store at all.
//
// An entry serves a load (take) only when the load finds the table at the entry's version with the
// very bytes the entry was encoded to: another replica may have moved the table on, and a table id
// may be reused after expiry. It serves an action without a load (takeForCommit) only through a
// commit from the entry's version that also expects the entry's write token (store.Commit.Expect):
// the store then holds exactly the write this replica made or read, so the state is current; any
// other write since — by another replica, or to a table re-created under the same id — makes the
// commit a conflict, and the action is judged again after a load.
//
// An action takes its table's entry out while it works on the state, so concurrent actions never
// share one; the state goes back only after its commit succeeded, or untouched when the action
// stopped before the game changed it. Anything else (a refusal, a lost compare-and-set) drops it,
// and the next load decodes from the store.
type stateCache struct {
	mu sync.Mutex
	m  map[string]cachedState
}

type cachedState struct {
	// t is the table's record at the state's version: t.State is the state's encoding (bytes nobody
	// changes) and t.Token the write that left it (0: unknown). t.Published is not kept current.
	t     store.Table
	cfg   *gamev1.TableConfig
	state engine.State
	subj  *subjects
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
	if !ok || e.t.Version != version || !bytes.Equal(e.t.State, encoded) {
		return nil, nil
	}
	return e.state, e.subj
}

// takeForCommit removes and returns the table's entry if it knows the write that left the table at
// its version, so that a commit from it can expect that write instead of reading the table first.
// An entry that does not (kept after creating the table) stays for take. The caller owns the
// entry's state until it puts it back.
func (c *stateCache) takeForCommit(id string) (cachedState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || e.t.Token == 0 || e.t.Finished {
		return cachedState{}, false
	}
	delete(c.m, id)
	return e, true
}

// put keeps st as the state of table t (at t.Version, encoded as t.State), with its decoded
// configuration and its subjects (nil: none made yet). The caller must not use st or subj
// afterwards.
func (c *stateCache) put(t store.Table, cfg *gamev1.TableConfig, st engine.State, subj *subjects) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.m[t.ID]
	if ok && old.t.Version > t.Version {
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
	c.m[t.ID] = cachedState{t: t, cfg: cfg, state: st, subj: subj}
}
