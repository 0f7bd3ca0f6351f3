package stats

import (
	"context"
	"errors"

	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
)

// ErrConflict is returned by Store.Apply when the store's position is not the delta's From: another
// writer moved it, or the delta was computed from stale records. The caller reloads and retries.
var ErrConflict = errors.New("stats: aggregate store position moved")

// Store keeps the aggregates. Apply changes them only as a whole, together with the stream
// position they reflect, so every event's effect lands exactly once. Two implementations pass
// one conformance suite (storetest): Memory (inside `cardroom serve`) and Redis.
type Store interface {
	// Load returns the position, the high-water finish time and the records named by keys
	// (absent ones are left out of the maps).
	Load(ctx context.Context, keys Keys) (*State, error)
	// Apply applies d atomically if the store's position is d.From, and moves it to d.To;
	// otherwise it changes nothing and returns ErrConflict.
	Apply(ctx context.Context, d *Delta) error
	// Position is the last stream sequence applied (0: none).
	Position(ctx context.Context) (uint64, error)

	// Games lists every game with counters, sorted.
	Games(ctx context.Context) ([]string, error)
	// GameCounters returns one game's counters (empty when unknown).
	GameCounters(ctx context.Context, game string) (map[string]int64, error)
	// PlayerRecords returns a player's records, sorted by game.
	PlayerRecords(ctx context.Context, player string) ([]*statsv1.PlayerGameRecord, error)
	// Recent returns up to n of a player's most recent games, newest first.
	Recent(ctx context.Context, player string, n int) ([]*statsv1.RecentGame, error)
	// Leaderboard returns n entries of a game's leaderboard from 0-based position start (best
	// first; equal ratings in descending player id order), and the number of players on it.
	Leaderboard(ctx context.Context, game string, start, n int) ([]Ranked, int, error)
	// Rank is a player's 0-based position on a game's leaderboard; ok is false when absent.
	Rank(ctx context.Context, game, player string) (rank int, ok bool, err error)
	// Live returns the tables in play and players online.
	Live(ctx context.Context) (*Live, error)
	// Ingest returns the ingest counters (applied, ignored, duplicates, rejected, rejected:<reason>).
	Ingest(ctx context.Context) (map[string]int64, error)
	// Snapshot returns every aggregate, for comparisons (tests, rebuild checks).
	Snapshot(ctx context.Context) (*Snapshot, error)
}

// PlayerKey names one player's record in one game.
type PlayerKey struct{ Player, Game string }

// Keys are the records a batch of events reads.
type Keys struct {
	Tables  []string
	Players []PlayerKey
}

// TableRecord is what the aggregates remember of a table: whether it is in play (and who sits at
// it) or done. Done tables are forgotten some time after they finish (Aggregator.TableMemory).
type TableRecord struct {
	Game string `json:"g"`
	Done bool   `json:"d,omitempty"`
	// Humans are the distinct human player ids seated, while in play.
	Humans []string `json:"h,omitempty"`
	// Finished is the finish time in Unix milliseconds, once done.
	Finished int64 `json:"f,omitempty"`
}

// State is what Load returns.
type State struct {
	Position uint64
	// HighWater is the newest finish time applied (Unix ms).
	HighWater int64
	Tables    map[string]*TableRecord
	Players   map[PlayerKey]*statsv1.PlayerGameRecord
}

// Delta is the effect of a batch of events.
type Delta struct {
	From, To  uint64
	HighWater int64
	// PruneBefore forgets done tables that finished before it (Unix ms; 0: none), after Tables.
	PruneBefore int64
	// Ingest counters to add.
	Ingest map[string]int64
	// Games holds each game's counter changes.
	Games map[string]*GameDelta
	// Tables and Players are records to write (whole).
	Tables  map[string]*TableRecord
	Players map[PlayerKey]*statsv1.PlayerGameRecord
	// Recent games to push, in order, per player (each list is then cut to RecentLimit).
	Recent      []RecentPush
	RecentLimit int
	// Board sets leaderboard ratings.
	Board map[PlayerKey]float64
	// Live changes: {game, ""} counts tables in play; {game, player} and {"", player} count a
	// player's tables in play (per game and over all games); a count reaching 0 is removed.
	Live map[PlayerKey]int64
}

// RecentPush adds a game to the front of a player's recent games.
type RecentPush struct {
	Player string
	Game   *statsv1.RecentGame
}

// GameDelta changes one game's counters.
type GameDelta struct {
	Incr     map[string]int64
	Min, Max map[string]int64
}

func newGameDelta() *GameDelta {
	return &GameDelta{Incr: map[string]int64{}, Min: map[string]int64{}, Max: map[string]int64{}}
}

func (d *GameDelta) incr(field string, n int64) { d.Incr[field] += n }

func (d *GameDelta) min(field string, v int64) {
	if cur, ok := d.Min[field]; !ok || v < cur {
		d.Min[field] = v
	}
}

func (d *GameDelta) max(field string, v int64) {
	if cur, ok := d.Max[field]; !ok || v > cur {
		d.Max[field] = v
	}
}

// Empty reports whether d changes nothing but the position.
func (d *Delta) Empty() bool {
	return len(d.Ingest) == 0 && len(d.Games) == 0 && len(d.Tables) == 0 && len(d.Players) == 0 &&
		len(d.Recent) == 0 && len(d.Board) == 0 && len(d.Live) == 0 && d.PruneBefore == 0
}

// Ranked is one leaderboard row.
type Ranked struct {
	Player string
	Rating float64
}

// Live is what is in play now.
type Live struct {
	// Tables and Players are per game.
	Tables  map[string]int64
	Players map[string]int64
	// AllPlayers counts distinct players over all games.
	AllPlayers int64
}

// Snapshot is every aggregate in a canonical form: two stores with the same aggregates give
// snapshots that are reflect.DeepEqual. Records are deterministic protobuf encodings.
type Snapshot struct {
	Position  uint64
	HighWater int64
	Ingest    map[string]int64
	Games     map[string]map[string]int64
	Tables    map[string]TableRecord
	Players   map[PlayerKey]string
	Recent    map[string][]string
	Boards    map[string][]Ranked
	// Online is each live hash: {game, ""} → tables in play, {game, player}, {"", player} → tables.
	Online map[PlayerKey]int64
}
