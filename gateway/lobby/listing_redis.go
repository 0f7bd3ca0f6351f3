package lobby

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// indexLua defines index(a), which the table scripts call after their write: it moves the table
// into the public list it now belongs in (out of the others) and into its people's indexes.
// ARGV[a..]: key prefix, table id, list ("" none), score, game, creation ms, people's index ttl
// ms, the number of people, then their ids (and after them, what a script's wrapper appends: see
// onceScript).
var indexLua = `
local function index(a)
  local base, id, list, score, game, created, keep = ARGV[a], ARGV[a+1], ARGV[a+2], ARGV[a+3], ARGV[a+4], ARGV[a+5], ARGV[a+6]
  for _, l in ipairs({'open', 'live', 'done'}) do
    if l ~= list then
      redis.call('ZREM', base .. 'ix:' .. l .. ':', id)
      redis.call('ZREM', base .. 'ix:' .. l .. ':' .. game, id)
    end
  end
  if list ~= '' then
    redis.call('ZADD', base .. 'ix:' .. list .. ':', score, id)
    redis.call('ZADD', base .. 'ix:' .. list .. ':' .. game, score, id)
  end
  for i = a + 8, a + 7 + tonumber(ARGV[a+7]) do
    local k = base .. 'pl:' .. ARGV[i]
    redis.call('ZADD', k, created, id)
    redis.call('ZREMRANGEBYRANK', k, 0, -` + maxPlayerTablesLua + `)
    redis.call('PEXPIRE', k, keep)
  end
end
`

var maxPlayerTablesLua = strconv.Itoa(MaxPlayerTables + 1)

// playerIndexTTL is how long a person's index of tables outlives its latest write: longer than
// any table record it names lives without a write.
const playerIndexTTL = 8 * 24 * time.Hour

// indexArgs are a table script's arguments followed by index's.
func (r *Redis) indexArgs(t *Table, args ...any) []any {
	args = append(args, r.prefix, t.ID, t.Listing().key(), t.listScore(), t.Game, t.CreatedAt.UnixMilli(),
		playerIndexTTL.Milliseconds())
	people := t.people()
	args = append(args, len(people))
	for _, p := range people {
		args = append(args, p)
	}
	return args
}

func (r *Redis) listKey(l Listing, game string) string {
	return r.prefix + "ix:" + l.key() + ":" + game
}

// loadMany loads the tables ids in one round trip; a missing one is absent from the map.
func (r *Redis) loadMany(ctx context.Context, ids []string) (map[string]Table, error) {
	pipe := r.rdb.Pipeline()
	cmds := make([]*redis.SliceCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HMGet(ctx, r.tableKey(id), "d", "v")
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, fmt.Errorf("load tables: %w", err)
	}
	out := make(map[string]Table, len(ids))
	for i, c := range cmds {
		res := c.Val()
		d, ok := res[0].(string)
		if !ok {
			continue
		}
		// Decoded here, not through r.decoded: a list's tables would push the tables being played
		// out of it.
		var t Table
		if err := json.Unmarshal([]byte(d), &t); err != nil {
			return nil, fmt.Errorf("decode table: %w", err)
		}
		v, _ := res[1].(string)
		t.Version, _ = strconv.ParseUint(v, 10, 64)
		out[ids[i]] = t
	}
	return out, nil
}

// listScript reads one batch of a list and the records of its tables in one round trip: ARGV max
// score, offset, count, table key prefix; the answer is, per entry, its id, score, record (false
// when expired) and version.
var listScript = redis.NewScript(`
local zs = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], '-inf', 'WITHSCORES', 'LIMIT', ARGV[2], ARGV[3])
local out = {}
for i = 1, #zs, 2 do
  local f = redis.call('HMGET', ARGV[4] .. zs[i], 'd', 'v')
  out[#out + 1] = zs[i]
  out[#out + 1] = zs[i + 1]
  out[#out + 1] = f[1]
  out[#out + 1] = f[2]
end
return out`)

func (r *Redis) ListTables(ctx context.Context, q TableQuery) (TablePage, error) {
	if q.Limit <= 0 || q.Listing.key() == "" {
		return TablePage{}, nil
	}
	key := r.listKey(q.Listing, q.Game)
	hi := "+inf"
	if !q.After.IsZero() {
		hi = strconv.FormatInt(q.After.Score, 10)
	}
	var page TablePage
	var gone []string
	var last Cursor // the page's last table's
	count := q.Limit + 1
	for offset := 0; ; offset += count {
		res, err := listScript.Run(ctx, r.rdb, []string{key}, hi, offset, count, r.prefix+"t:").Slice()
		if err != nil {
			return TablePage{}, fmt.Errorf("list tables: %w", err)
		}
		for i := 0; i+3 < len(res); i += 4 {
			id, _ := res[i].(string)
			score, _ := res[i+1].(string)
			f, _ := strconv.ParseFloat(score, 64)
			c := Cursor{Score: int64(f), ID: id}
			if !q.After.before(c.Score, c.ID) {
				continue
			}
			d, ok := res[i+2].(string)
			if !ok {
				gone = append(gone, id)
				continue
			}
			if len(page.Tables) == q.Limit {
				page.Next = last
				return page.drop(ctx, r, q, gone)
			}
			// Decoded here, not through r.decoded: a list's tables would push the tables being
			// played out of it.
			var t Table
			if err := json.Unmarshal([]byte(d), &t); err != nil {
				return TablePage{}, fmt.Errorf("decode table: %w", err)
			}
			v, _ := res[i+3].(string)
			t.Version, _ = strconv.ParseUint(v, 10, 64)
			page.Tables = append(page.Tables, t)
			last = c
		}
		if len(res) < 4*count {
			return page.drop(ctx, r, q, gone)
		}
	}
}

// drop takes the expired tables met by a read out of the lists it read (they are out of their
// game's list at that game's next read).
func (p TablePage) drop(ctx context.Context, r *Redis, q TableQuery, gone []string) (TablePage, error) {
	if len(gone) == 0 {
		return p, nil
	}
	members := make([]any, len(gone))
	for i, id := range gone {
		members[i] = id
	}
	pipe := r.rdb.Pipeline()
	pipe.ZRem(ctx, r.listKey(q.Listing, q.Game), members...)
	pipe.ZRem(ctx, r.listKey(q.Listing, ""), members...)
	if _, err := pipe.Exec(ctx); err != nil {
		return TablePage{}, fmt.Errorf("list tables: drop expired: %w", err)
	}
	return p, nil
}

func (r *Redis) TablesOf(ctx context.Context, player string, limit int) ([]Table, error) {
	limit = min(limit, MaxPlayerTables)
	if limit <= 0 {
		return nil, nil
	}
	key := r.prefix + "pl:" + player
	ids, err := r.rdb.ZRevRange(ctx, key, 0, int64(limit-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("tables of: %w", err)
	}
	tables, err := r.loadMany(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []Table
	var gone []any
	for _, id := range ids {
		if t, ok := tables[id]; ok {
			out = append(out, t)
		} else {
			gone = append(gone, id)
		}
	}
	if len(gone) > 0 {
		if err := r.rdb.ZRem(ctx, key, gone...).Err(); err != nil {
			return nil, fmt.Errorf("tables of: drop expired: %w", err)
		}
	}
	return out, nil
}
