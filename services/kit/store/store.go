// Package store keeps tables: their configuration, engine state, version, action log, deadlines and
// the outbox of events not yet confirmed published. One interface, two implementations (Memory and
// Redis), one conformance suite (storetest) that both pass.
//
// Every write is a compare-and-set on the table's version, atomic with the log append, the
// idempotency record of the action id, the deadline index and the outbox.
package store

import (
	"context"
	"errors"
	"time"
)

var (
	// ErrNotFound: no such table (never created, or expired after it finished).
	ErrNotFound = errors.New("store: table not found")
	// ErrExists: a table with that id already exists.
	ErrExists = errors.New("store: table already exists")
	// ErrConflict: the table's version is not the one the commit was computed from.
	ErrConflict = errors.New("store: version conflict")
	// ErrDuplicate: the action id was already applied; the commit wrote nothing.
	ErrDuplicate = errors.New("store: action id already applied")
)

// Table is a table's record.
type Table struct {
	ID string
	// Config is the encoded table configuration (cardroom.game.v1.TableConfig with its seed).
	Config []byte
	// State is the engine's encoded state.
	State []byte
	// Version counts applied actions.
	Version uint64
	// Sequence is the last event sequence committed (0 before any event).
	Sequence uint64
	// Published is the last event sequence confirmed published on the bus.
	Published uint64
	// Deadline is when the table's engine stops waiting (zero: none).
	Deadline  time.Time
	Finished  bool
	CreatedAt time.Time
	// Token names the table's last write: the one Create was given, then each Commit's Token. A
	// writer that picks tokens at random (see Commit.Expect) can tell its own last write from any
	// other that left the table at the same version, such as a table id reused after expiry or a
	// store that lost writes and was played forward again.
	Token uint64
}

// Entry is one log record: the table version it produced and its encoded content
// (cardroom.rules.v1.LogEntry). Version 0 is the creation record.
type Entry struct {
	Version  uint64
	ActionID string
	Data     []byte
}

// Commit is one action's write.
type Commit struct {
	TableID string
	// From is the version the action was validated against; the commit writes version From+1.
	From     uint64
	State    []byte
	Entry    Entry
	Sequence uint64
	Deadline time.Time
	Finished bool
	// Retain is how long a finished table (state and log) is kept before it expires.
	Retain time.Duration
	// Token becomes the table's Token.
	Token uint64
	// Expect, when not 0, must be the table's Token as well as From its version: ErrConflict
	// otherwise, with nothing written.
	Expect uint64
}

// Store is the table store.
type Store interface {
	// Create writes a new table with its creation entry (version 0). ErrExists if the id is taken.
	// The store may keep t's and created's byte slices: the caller must not change them afterwards.
	Create(ctx context.Context, t Table, created Entry) error
	// Load reads a table. When actionID is not empty and that action was already applied, its log
	// entry is returned too, so a retry is answered without a second read. The returned byte slices
	// belong to the store: read them, never change them.
	Load(ctx context.Context, id, actionID string) (Table, *Entry, error)
	// Commit applies one action's write. ErrConflict when the version moved on; ErrDuplicate (with
	// nothing written) when the action id was already applied; ErrNotFound. The store may keep c's
	// byte slices (State, Entry.Data): the caller must not change them afterwards.
	Commit(ctx context.Context, c Commit) error
	// Log returns the entries from version from (0 includes the creation entry) on.
	Log(ctx context.Context, id string, from uint64) ([]Entry, error)
	// ClaimDue returns up to limit tables whose deadline is not after now, and hides each from other
	// claimers for lease: competing replicas each get a different table. A claimed table stays in
	// the index until a commit moves or removes its deadline, so a crashed claimer's tables come back
	// after the lease. next is the earliest deadline left in the index after the claim (claimed
	// tables count at now+lease; zero when there is none): a claimer need not look before then.
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) (ids []string, next time.Time, err error)
	// Unpublished returns up to limit tables whose last commit is older than before and whose events
	// are not all confirmed published.
	Unpublished(ctx context.Context, before time.Time, limit int) ([]string, error)
	// MarkPublished records that events are on the bus. A mark moves the table's Published up to its
	// Sequence only when nothing below it is still unconfirmed (From <= Published+1); otherwise it
	// changes nothing and the table stays in the outbox until the sweeper republishes from
	// Published+1.
	MarkPublished(ctx context.Context, marks []Mark) error
}

// Confirmer is a store whose writes may be answered before a replica has them (a Redis store that
// waits for replicas: RedisOptions.WaitReplicas). What is read from it and then published — by the
// outbox sweeper, which republishes the events of commits whose answer may have been ErrUnconfirmed
// — is confirmed first, so that no event goes out that a failover could take back.
type Confirmer interface {
	// Confirm returns nil once the store's replicas have table id as a read found it, its last
	// write being token (Table.Token); ErrConflict when the table was written since (read it
	// again); ErrNotFound; ErrUnconfirmed when they do not have it in time. A store that does not
	// wait for replicas returns nil at once.
	Confirm(ctx context.Context, id string, token uint64) error
}

// Mark says a table's events From..Sequence are published. From 0 stands for "every event up to
// Sequence", as after a republication from the start.
type Mark struct {
	TableID  string
	From     uint64
	Sequence uint64
}
