// Package lobby keeps what the gateway knows about people at tables: private and matched tables
// with their players, seats and place in their lifecycle, matchmaking tickets and their queues,
// seat presence, and which gateway replica owns which table's lifecycle. One interface, two
// implementations (Memory and Redis), one conformance suite (lobbytest).
//
// Records change by compare-and-set on their version; the matchmaking claim and the leases are
// single atomic operations (Lua scripts in Redis), so any replica may do any of it. A table
// remembers the request ids of the changes made to it (Table.Requests) in its record, so a change
// and its id are written in one compare-and-set: a retried request finds both or neither.
//
// A table whose state has work to be done by someone (TableState.Owned: starting, dealt, closing)
// is in the owned set in the same write that gives it that state, and leaves it in the write that
// ends it; a matched table is in the set from the claim of its tickets, before its record exists.
// Each member is held by one replica at a time under a lease (ClaimDrive, RenewDrive), and that
// replica alone carries out the table's transitions: a dead replica's tables are claimed by
// another once its lease runs out.
package lobby

import (
	"context"
	"errors"
	"fmt"
	"time"
)

var (
	ErrNotFound = errors.New("lobby: not found")
	ErrExists   = errors.New("lobby: already exists")
	ErrConflict = errors.New("lobby: version conflict")
)

// TableState is where a table is in its life.
type TableState int

// The states' values are stored: new ones go at the end.
const (
	// TableOpen: a private table taking players, until its owner starts it (or it expires).
	TableOpen TableState = iota + 1
	// TableDealt: the rules service has the table (the API calls it TABLE_STATE_PLAYING); its
	// owner plays its bots and absent seats and learns its end from its TableFinished event.
	TableDealt
	// TableFinished: over; the record expires after the retention.
	TableFinished
	// TableClosed: closed before it was dealt (its owner left, or its start was given up).
	TableClosed
	// TableStarting: the start is recorded with its seats and not dealt yet; its owner deals it
	// (by its Deadline, or gives the start up).
	TableStarting
	// TableClosing: a matched table that will not be dealt; its owner sends its tickets back to
	// the queue (or cancels them, with Refused, when the game refused the table), then closes it.
	TableClosing
)

// Owned reports whether a table in state st has work its lifecycle's owner must do.
func (st TableState) Owned() bool {
	return st == TableStarting || st == TableDealt || st == TableClosing
}

func (st TableState) String() string {
	switch st {
	case TableOpen:
		return "open"
	case TableDealt:
		return "dealt"
	case TableFinished:
		return "finished"
	case TableClosed:
		return "closed"
	case TableStarting:
		return "starting"
	case TableClosing:
		return "closing"
	}
	return fmt.Sprintf("TableState(%d)", int(st))
}

// Player is a person or a bot at a table or on a ticket.
type Player struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Bot  bool   `json:"bot,omitempty"`
	// Level is a bot's level, the number of a cardroom.game.v1.BotLevel (0, in records written
	// before bots had levels: normal). 0 for a person.
	Level int `json:"level,omitempty"`
}

// Table is a table as the gateway keeps it.
type Table struct {
	ID       string     `json:"id"`
	Game     string     `json:"game"`
	Owner    string     `json:"owner,omitempty"`
	State    TableState `json:"state"`
	Capacity int        `json:"capacity"`
	// Players present before the start, in order of arrival.
	Players []Player `json:"players,omitempty"`
	// Seats in seat order once started.
	Seats      []Player `json:"seats,omitempty"`
	InviteCode string   `json:"code,omitempty"`
	// Options is the encoded google.protobuf.Any of the game's options.
	Options   []byte        `json:"options,omitempty"`
	PerAction time.Duration `json:"per_action,omitempty"`
	// Takeover is the level (a cardroom.game.v1.BotLevel number; 0: normal) a bot plays a seated
	// player's seat at while they are absent.
	Takeover  int       `json:"takeover,omitempty"`
	CreatedAt time.Time `json:"created"`
	// Deadline is when the table's present state ends unless something happens first: an open,
	// dealt, finished or closed table's record expires then; a starting table's owner gives the
	// start up then if the deal has not been made.
	Deadline time.Time `json:"deadline,omitzero"`
	// Tickets are a matched table's tickets (nil for a private table).
	Tickets []string `json:"tickets,omitempty"`
	// Refusal is, after a deal the game refused, its answer (an encoded google.rpc.Status).
	Refusal []byte `json:"refusal,omitempty"`
	// Public tables are listed (ListTables): matched tables always, private ones when their owner
	// asks.
	Public bool `json:"public,omitempty"`
	// StartedAt is when the table's seats were fixed (zero before), FinishedAt when it ended.
	StartedAt  time.Time `json:"started,omitzero"`
	FinishedAt time.Time `json:"finished,omitzero"`
	// Requests are the latest requests applied under a client's request id, oldest first (at most
	// MaxRequests). They are written with the change they made, in the same compare-and-set, so a
	// retry that finds its id here finds that change too.
	Requests []Request `json:"req,omitempty"`
	// Version counts writes (compare-and-set).
	Version uint64 `json:"-"`
}

// Request is a request applied to a table under a client's request id.
type Request struct {
	ID string `json:"id"`
	// Call identifies what was asked (the method and its arguments, e.g. "AddBots:3"): the same id
	// with another call is a client's mistake, not a retry.
	Call string `json:"call"`
}

// MaxRequests bounds the request ids a table remembers; past it the oldest are forgotten.
const MaxRequests = 64

// Request is the request applied to t under id, if t remembers one.
func (t *Table) Request(id string) (Request, bool) {
	for _, r := range t.Requests {
		if r.ID == id {
			return r, true
		}
	}
	return Request{}, false
}

// Remember records that r was applied to t (by the write that carries this change), forgetting the
// oldest past MaxRequests.
func (t *Table) Remember(r Request) {
	t.Requests = append(t.Requests, r)
	if n := len(t.Requests) - MaxRequests; n > 0 {
		t.Requests = append(t.Requests[:0:0], t.Requests[n:]...)
	}
}

// SeatOf is the seat of player, or -1.
func (t *Table) SeatOf(player string) int {
	for i, p := range t.Seats {
		if p.ID == player && !p.Bot {
			return i
		}
	}
	return -1
}

// TicketState is where a ticket is.
type TicketState int

const (
	TicketForming TicketState = iota + 1
	TicketQueued
	TicketMatched
	TicketCancelled
)

// Ticket is a party's request for a game with strangers.
type Ticket struct {
	ID string `json:"id"`
	// Pool groups the tickets that may play together: same game, options and time limits.
	Pool        string        `json:"pool"`
	Game        string        `json:"game"`
	Players     []Player      `json:"players"`
	PartySize   int           `json:"party"`
	MinSeats    int           `json:"min"`
	MaxSeats    int           `json:"max"`
	BotsMayFill bool          `json:"bots,omitempty"`
	MaxWait     time.Duration `json:"max_wait"`
	Options     []byte        `json:"options,omitempty"`
	PerAction   time.Duration `json:"per_action,omitempty"`
	// BotLevel is the level (a cardroom.game.v1.BotLevel number; 0: normal) of the bots filling the
	// table when this is its oldest ticket.
	BotLevel  int       `json:"bot_level,omitempty"`
	CreatedAt time.Time `json:"created"`
	// QueuedAt is when the full party entered the queue.
	QueuedAt time.Time `json:"queued,omitzero"`
	// Refused, on a cancelled ticket, is why the game refused the table it was matched to.
	Refused string `json:"refused,omitempty"`
	// State and TableID are kept beside the record: the matcher changes them atomically.
	State   TicketState `json:"-"`
	TableID string      `json:"-"`
	Version uint64      `json:"-"`
}

// Match is a group of queued tickets claimed together for one table.
type Match struct {
	TableID string
	Tickets []string
	// Seats is the table's number of seats; seats no ticket's player takes go to bots.
	Seats int
}

// Once is what a client's request id for a call that creates a table or a ticket is recorded
// with, in the same write as the record it created: a retry finds both or neither.
type Once struct {
	// Key names the request: its player and request id.
	Key string
	// Call is a digest of the request's other fields: the same key with another call is a
	// client's mistake, not a retry.
	Call string
	// ID is the table or ticket the request created.
	ID string
}

// Store is the lobby store.
type Store interface {
	// CreateTable writes a new table and its invite code (if any), expiring after ttl (0: never).
	// ErrExists if the id or code is taken. A table in an owned state enters the owned set.
	CreateTable(ctx context.Context, t Table, ttl time.Duration) error
	// CreateTableOnce is CreateTable under a request id: unless once.Key is recorded, it writes the
	// table and records once (forgotten after keep) in one write. When once.Key is recorded, it
	// writes nothing and returns the recorded Once with found true. ErrExists as CreateTable's, with
	// nothing recorded.
	CreateTableOnce(ctx context.Context, t Table, ttl time.Duration, once Once, keep time.Duration) (prior Once, found bool, err error)
	LoadTable(ctx context.Context, id string) (Table, error)
	// TableByCode is the id of the table with that invite code.
	TableByCode(ctx context.Context, code string) (string, error)
	// UpdateTable writes t if the stored version is still t.Version (ErrConflict otherwise), as
	// version t.Version+1. A positive ttl makes the table (and its code) expire after it. In the
	// same write the table enters the owned set if its new state is owned (keeping its lease if it
	// is there already), or leaves it (with its lease) if not.
	//
	// CreateTable and UpdateTable also keep, in the same write, the public lists (t.Listing) and
	// each person's index of their tables (TablesOf).
	UpdateTable(ctx context.Context, t Table, ttl time.Duration) error
	// ListTables is a page of a public list, newest first. Tables whose records have expired are
	// left out (and out of the list from then on).
	ListTables(ctx context.Context, q TableQuery) (TablePage, error)
	// TablesOf is, newest first by creation, up to limit (at most MaxPlayerTables) of the tables
	// player has been at and that have not expired; they may have left one since (Table.Has).
	TablesOf(ctx context.Context, player string, limit int) ([]Table, error)

	// CreateTicket writes a new ticket (State Forming or Queued; a queued one enters its pool's queue).
	CreateTicket(ctx context.Context, t Ticket) error
	// CreateTicketOnce is CreateTicket under a request id, as CreateTableOnce is CreateTable's.
	CreateTicketOnce(ctx context.Context, t Ticket, once Once, keep time.Duration) (prior Once, found bool, err error)
	LoadTicket(ctx context.Context, id string) (Ticket, error)
	// UpdateTicket writes t if the stored version is still t.Version, as version t.Version+1, and
	// puts it in or out of its pool's queue according to its state. A positive ttl makes it expire.
	UpdateTicket(ctx context.Context, t Ticket, ttl time.Duration) error
	// Pools lists the pools with queued tickets.
	Pools(ctx context.Context) ([]string, error)
	// Waiting is how many players are queued in pool.
	Waiting(ctx context.Context, pool string) (int, error)
	// ClaimMatch atomically takes, oldest first, queued tickets of pool that fit one table and marks
	// them matched to tableID; ok is false when no group is ready at now. A group is ready when it
	// fills the seat range the tickets share, or when its oldest ticket has waited its longest wait
	// and either enough players are there or every ticket lets bots fill the table. The same
	// operation records the match (LoadMatch) and puts tableID in the owned set, free to claim, so
	// that the table has an owner before its record exists.
	ClaimMatch(ctx context.Context, pool, tableID string, now time.Time) (m Match, ok bool, err error)
	// LoadMatch is the match claimed for tableID (ErrNotFound: none, or forgotten with DropDrive).
	LoadMatch(ctx context.Context, tableID string) (Match, error)

	// Touch records that a seat's player was present at now.
	Touch(ctx context.Context, table string, seat int, now time.Time) error
	// Presence is when each seat of table was last seen present.
	Presence(ctx context.Context, table string) (map[int]time.Time, error)

	// AddDrive puts table in the owned set, free to claim (table writes do so for owned states).
	AddDrive(ctx context.Context, table string) error
	// DropDrive takes table out of the owned set and forgets its presence and match records.
	DropDrive(ctx context.Context, table string) error
	// ClaimDrive gives owner up to limit tables of the owned set nobody holds (never claimed or
	// lease expired) for lease.
	ClaimDrive(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]string, error)
	// RenewDrive extends owner's leases on tables and returns those it still holds.
	RenewDrive(ctx context.Context, owner string, tables []string, now time.Time, lease time.Duration) ([]string, error)
}

// pick chooses, oldest first, the tickets that can share a table. It is the matching rule; the
// Redis script implements the same. Candidates are in queue order.
type candidate struct {
	id       string
	size     int
	min, max int
	bots     bool
	deadline int64 // ms: queued + max wait
}

func pick(cs []candidate, nowMS int64) (ids []string, seats int, ok bool) {
	if len(cs) == 0 {
		return nil, 0, false
	}
	lo, hi, n, bots := cs[0].min, cs[0].max, 0, true
	var group []string
	for _, c := range cs {
		nlo, nhi := max(lo, c.min), min(hi, c.max)
		if nlo > nhi || n+c.size > nhi {
			continue
		}
		lo, hi, n = nlo, nhi, n+c.size
		bots = bots && c.bots
		group = append(group, c.id)
		if n == hi {
			return group, n, true
		}
	}
	if nowMS < cs[0].deadline {
		return nil, 0, false
	}
	if n >= lo {
		return group, n, true
	}
	if bots {
		return group, lo, true
	}
	return nil, 0, false
}
