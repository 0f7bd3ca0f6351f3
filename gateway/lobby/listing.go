package lobby

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
)

// Listing is the public list a table appears in, if any. Only public tables are listed: a matched
// table always, a private one when its owner made it public. The lists are indexes kept in the same
// write that changes a table's state (CreateTable, UpdateTable), so that a list costs nothing while
// nobody reads it, and a read costs one page.
type Listing int

const (
	// ListNone: the table is in no public list (not public, or closed).
	ListNone Listing = iota
	// ListOpen: open tables waiting for players (they join by table id).
	ListOpen
	// ListLive: tables being played (starting or dealt), to spectate.
	ListLive
	// ListFinished: finished tables, to replay until they expire.
	ListFinished
)

func (l Listing) key() string {
	switch l {
	case ListOpen:
		return "open"
	case ListLive:
		return "live"
	case ListFinished:
		return "done"
	}
	return ""
}

// listings are the lists a table may be in, each kept per game and for every game.
var listings = []Listing{ListOpen, ListLive, ListFinished}

// Listing is the public list t belongs in.
func (t *Table) Listing() Listing {
	if !t.Public {
		return ListNone
	}
	switch t.State {
	case TableOpen:
		return ListOpen
	case TableStarting, TableDealt:
		return ListLive
	case TableFinished:
		return ListFinished
	}
	return ListNone
}

// listScore orders a list, newest first: an open table by its creation, a live one by its start,
// a finished one by its expiry (its end plus the retention).
func (t *Table) listScore() int64 {
	switch t.Listing() {
	case ListLive:
		if !t.StartedAt.IsZero() {
			return t.StartedAt.UnixMilli()
		}
	case ListFinished:
		if !t.Deadline.IsZero() {
			return t.Deadline.UnixMilli()
		}
	}
	return t.CreatedAt.UnixMilli()
}

// people are the ids of the persons (not bots) at t: present before the start, seated after.
func (t *Table) people() []string {
	var out []string
	for _, ps := range [][]Player{t.Players, t.Seats} {
		for _, p := range ps {
			if !p.Bot && !slices.Contains(out, p.ID) {
				out = append(out, p.ID)
			}
		}
	}
	return out
}

// Has reports whether player is at t now: present while it is open, seated once started.
func (t *Table) Has(player string) bool {
	if t.State == TableOpen {
		return slices.ContainsFunc(t.Players, func(p Player) bool { return p.ID == player && !p.Bot })
	}
	return t.SeatOf(player) >= 0
}

// MaxPlayerTables bounds each player's index of tables (TablesOf): the newest are kept.
const MaxPlayerTables = 100

// TableQuery asks for one page of a public list.
type TableQuery struct {
	Listing Listing
	// Game, when set, keeps the list to one game.
	Game string
	// After is where the previous page ended (zero: from the newest).
	After Cursor
	// Limit is the most tables of the page (at least 1).
	Limit int
}

// Cursor is a position in a list: the score and id of the last table of a page.
type Cursor struct {
	Score int64
	ID    string
}

// IsZero reports whether c is the start of a list.
func (c Cursor) IsZero() bool { return c.ID == "" }

// before reports whether a list entry (score, id) comes after the cursor (lists run from the
// highest score down, and within one score from the highest id down, as Redis' ZREVRANGE does).
func (c Cursor) before(score int64, id string) bool {
	if c.IsZero() {
		return true
	}
	return score < c.Score || score == c.Score && id < c.ID
}

// ErrBadCursor: a page token that no page of this store gave.
var ErrBadCursor = errors.New("lobby: bad page token")

// Token encodes c for a client (opaque, URL-safe).
func (c Cursor) Token() string {
	if c.IsZero() {
		return ""
	}
	b := binary.AppendVarint(nil, c.Score)
	b = append(b, c.ID...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseCursor decodes a Token; "" is the start of a list.
func ParseCursor(token string) (Cursor, error) {
	if token == "" {
		return Cursor{}, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return Cursor{}, ErrBadCursor
	}
	score, n := binary.Varint(b)
	if n <= 0 || n == len(b) || len(b)-n > 64 || strings.ContainsAny(string(b[n:]), " .*>") {
		return Cursor{}, ErrBadCursor
	}
	return Cursor{Score: score, ID: string(b[n:])}, nil
}

// TablePage is a page of a list; Next is where the following page starts (zero: no more).
type TablePage struct {
	Tables []Table
	Next   Cursor
}
