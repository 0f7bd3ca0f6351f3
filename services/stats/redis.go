package stats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"github.com/redis/go-redis/v9"
	"google.golang.org/protobuf/proto"
)

// Redis is the aggregate store on Redis: one server, a Sentinel-managed primary or a Redis Cluster.
//
// Keys, under a prefix (e.g. "cardroom:stats:") followed by the hash tag "{stats}:" (the apply
// script writes keys it builds from the prefix, atomically, so they all hash to one slot: on a
// cluster, the aggregates live on one primary):
//
//	meta              hash: pos (last stream sequence applied), hw (newest finish, Unix ms)
//	ingest            hash: applied, ignored, duplicates, rejected, rejected:<reason>
//	games             set of game ids
//	g:<game>          hash of the game's counters (see GameCounters)
//	t:<table>         string: the table record (JSON)
//	done              sorted set: done tables by finish ms (for forgetting them)
//	pgames            set of game ids with player records
//	pg:<game>         hash: player → PlayerGameRecord (protobuf)
//	rc                hash: player → recent games, newest first ("<length>:<RecentGame protobuf>" frames)
//	lb:<game>         sorted set: player → displayed rating
//	live              hash: game → tables in play
//	on:<game>         hash: player → tables in play of that game
//	on:               hash: player → tables in play over all games
//
// Apply is one script call: it checks the position, applies every change and moves the position,
// atomically. Load is one pipelined round trip.
type Redis struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedis returns a store on rdb with keys under prefix, loading its script.
func NewRedis(ctx context.Context, rdb redis.UniversalClient, prefix string) (*Redis, error) {
	if err := applyScript.Load(ctx, rdb).Err(); err != nil {
		return nil, fmt.Errorf("load redis script: %w", err)
	}
	if strings.ContainsAny(prefix, "{}") {
		return nil, fmt.Errorf("stats store: prefix %q holds a brace, which would change the keys' hash slots", prefix)
	}
	return &Redis{rdb: rdb, prefix: prefix + Tag}, nil
}

// Tag follows the prefix in every key of the store: its hash tag.
const Tag = "{stats}:"

// applyScript: ARGV = prefix, from, to, high water, prune before, then operations, each a code
// followed by its arguments. Keys are relative to the prefix.
var applyScript = redis.NewScript(`
local p = ARGV[1]
local pos = redis.call('HGET', p .. 'meta', 'pos') or '0'
if pos ~= ARGV[2] then return 0 end
redis.call('HSET', p .. 'meta', 'pos', ARGV[3])
local hw = tonumber(redis.call('HGET', p .. 'meta', 'hw') or '0')
if tonumber(ARGV[4]) > hw then redis.call('HSET', p .. 'meta', 'hw', ARGV[4]) end
local i = 6
local n = #ARGV
while i <= n do
  local op = ARGV[i]
  if op == 'H' then
    local cnt = tonumber(ARGV[i+2])
    redis.call('HSET', p .. ARGV[i+1], unpack(ARGV, i+3, i+2+2*cnt))
    i = i + 3 + 2*cnt
  elseif op == 'N' then
    -- Counter hash: one read and one write for many fields. Modes: + add, 0 add and delete at
    -- zero or below, < keep the smaller, > keep the larger.
    local k = p .. ARGV[i+1]
    local cnt = tonumber(ARGV[i+2])
    local fields = {}
    for j = 0, cnt - 1 do fields[j+1] = ARGV[i+4+3*j] end
    local cur = redis.call('HMGET', k, unpack(fields))
    local set, del = {}, {}
    for j = 0, cnt - 1 do
      local mode, f, v = ARGV[i+3+3*j], ARGV[i+4+3*j], tonumber(ARGV[i+5+3*j])
      local c = cur[j+1] and tonumber(cur[j+1])
      local nv
      if mode == '+' or mode == '0' then nv = (c or 0) + v
      elseif mode == '<' then if c and c <= v then nv = nil else nv = v end
      else if c and c >= v then nv = nil else nv = v end end
      if mode == '0' and nv <= 0 then
        del[#del+1] = f
      elseif nv then
        set[#set+1] = f
        set[#set+1] = string.format('%.0f', nv)
      end
    end
    if #set > 0 then redis.call('HSET', k, unpack(set)) end
    if #del > 0 then redis.call('HDEL', k, unpack(del)) end
    i = i + 3 + 3*cnt
  elseif op == 'S' then
    local cnt = tonumber(ARGV[i+1])
    local kv = {}
    for j = 0, cnt - 1 do
      kv[2*j+1] = p .. ARGV[i+2+2*j]
      kv[2*j+2] = ARGV[i+3+2*j]
    end
    redis.call('MSET', unpack(kv))
    i = i + 2 + 2*cnt
  elseif op == 'A' then
    redis.call('SADD', p .. ARGV[i+1], ARGV[i+2]); i = i + 3
  elseif op == 'Z' then
    local cnt = tonumber(ARGV[i+2])
    redis.call('ZADD', p .. ARGV[i+1], unpack(ARGV, i+3, i+2+2*cnt))
    i = i + 3 + 2*cnt
  elseif op == 'R' then
    -- Recent games: per player one string of "<length>:<bytes>" frames, newest first. The new
    -- frames go in front of the first (limit - new) old ones: one read and one write for all.
    local k = p .. ARGV[i+1]
    local limit = tonumber(ARGV[i+2])
    local cnt = tonumber(ARGV[i+3])
    local players = {}
    for j = 0, cnt - 1 do players[j+1] = ARGV[i+4+3*j] end
    local cur = redis.call('HMGET', k, unpack(players))
    local set = {}
    for j = 0, cnt - 1 do
      local old = cur[j+1] or ''
      local keep = limit - tonumber(ARGV[i+5+3*j])
      local pos = 1
      while keep > 0 and pos <= #old do
        local c = string.find(old, ':', pos, true)
        pos = c + 1 + tonumber(string.sub(old, pos, c - 1))
        keep = keep - 1
      end
      set[#set+1] = players[j+1]
      set[#set+1] = ARGV[i+6+3*j] .. string.sub(old, 1, pos - 1)
    end
    redis.call('HSET', k, unpack(set))
    i = i + 4 + 3*cnt
  else
    return redis.error_reply('unknown op ' .. op)
  end
end
if ARGV[5] ~= '0' then
  local old = redis.call('ZRANGEBYSCORE', p .. 'done', '-inf', '(' .. ARGV[5])
  for _, id in ipairs(old) do redis.call('DEL', p .. 't:' .. id) end
  redis.call('ZREMRANGEBYSCORE', p .. 'done', '-inf', '(' .. ARGV[5])
end
return 1
`)

// grouped appends op (with key, unless empty) over pairs, in chunks of at most 1000 pairs.
func grouped(args []any, op, key string, pairs []string) []any {
	const chunk = 2000
	for len(pairs) > 0 {
		n := min(len(pairs), chunk)
		args = append(args, op)
		if key != "" {
			args = append(args, key)
		}
		args = append(args, strconv.Itoa(n/2))
		for _, v := range pairs[:n] {
			args = append(args, v)
		}
		pairs = pairs[n:]
	}
	return args
}

// counters appends counter-hash operations (mode, field, value triples) in chunks.
func counters(args []any, key string, triples []string) []any {
	const chunk = 3 * 1000
	for len(triples) > 0 {
		n := min(len(triples), chunk)
		args = append(args, "N", key, strconv.Itoa(n/3))
		for _, v := range triples[:n] {
			args = append(args, v)
		}
		triples = triples[n:]
	}
	return args
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func (r *Redis) Apply(ctx context.Context, d *Delta) error {
	args := make([]any, 0, 64)
	args = append(args, r.prefix, strconv.FormatUint(d.From, 10), strconv.FormatUint(d.To, 10), itoa(d.HighWater), itoa(d.PruneBefore))
	var ingest []string
	for k, v := range d.Ingest {
		ingest = append(ingest, "+", k, itoa(v))
	}
	args = counters(args, "ingest", ingest)
	for g, gd := range d.Games {
		args = append(args, "A", "games", g)
		var c []string
		for f, v := range gd.Incr {
			c = append(c, "+", f, itoa(v))
		}
		for f, v := range gd.Min {
			c = append(c, "<", f, itoa(v))
		}
		for f, v := range gd.Max {
			c = append(c, ">", f, itoa(v))
		}
		args = counters(args, "g:"+g, c)
	}
	// Commands with many arguments are grouped (chunks keep Lua's unpack within its stack).
	var tables, done []string
	for id, t := range d.Tables {
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("encode table record: %w", err)
		}
		tables = append(tables, "t:"+id, string(b))
		if t.Done {
			done = append(done, itoa(t.Finished), id)
		}
	}
	args = grouped(args, "S", "", tables)
	args = grouped(args, "Z", "done", done)
	records := map[string][]string{}
	for k, rec := range d.Players {
		b, err := deterministic.Marshal(rec)
		if err != nil {
			return fmt.Errorf("encode player record: %w", err)
		}
		records[k.Game] = append(records[k.Game], k.Player, string(b))
	}
	for g, pairs := range records {
		args = append(args, "A", "pgames", g)
		args = grouped(args, "H", "pg:"+g, pairs)
	}
	limit := max(d.RecentLimit, 1)
	pushes := map[string][]string{}
	var order []string
	for _, p := range d.Recent {
		b, err := deterministic.Marshal(p.Game)
		if err != nil {
			return fmt.Errorf("encode recent game: %w", err)
		}
		if _, ok := pushes[p.Player]; !ok {
			order = append(order, p.Player)
		}
		pushes[p.Player] = append(pushes[p.Player], string(b))
	}
	var recent []string
	for _, p := range order {
		l := pushes[p]
		var sb strings.Builder
		n := 0
		for i := len(l) - 1; i >= 0 && n < limit; i-- {
			sb.WriteString(strconv.Itoa(len(l[i])))
			sb.WriteByte(':')
			sb.WriteString(l[i])
			n++
		}
		recent = append(recent, p, strconv.Itoa(n), sb.String())
	}
	for len(recent) > 0 {
		n := min(len(recent), 3*1000)
		args = append(args, "R", "rc", strconv.Itoa(limit), strconv.Itoa(n/3))
		for _, v := range recent[:n] {
			args = append(args, v)
		}
		recent = recent[n:]
	}
	boards := map[string][]string{}
	for k, v := range d.Board {
		boards[k.Game] = append(boards[k.Game], ftoa(v), k.Player)
	}
	for g, pairs := range boards {
		args = grouped(args, "Z", "lb:"+g, pairs)
	}
	live := map[string][]string{}
	for k, v := range d.Live {
		if k.Player == "" {
			live["live"] = append(live["live"], "0", k.Game, itoa(v))
		} else {
			live["on:"+k.Game] = append(live["on:"+k.Game], "0", k.Player, itoa(v))
		}
	}
	for key, c := range live {
		args = counters(args, key, c)
	}
	// The meta key routes the call to its slot's node (every key of the store is in that slot).
	res, err := applyScript.Run(ctx, r.rdb, []string{r.prefix + "meta"}, args...).Int()
	if err != nil {
		return fmt.Errorf("apply aggregates: %w", err)
	}
	if res == 0 {
		return ErrConflict
	}
	return nil
}

func (r *Redis) Load(ctx context.Context, keys Keys) (*State, error) {
	pipe := r.rdb.Pipeline()
	meta := pipe.HMGet(ctx, r.prefix+"meta", "pos", "hw")
	var tables *redis.SliceCmd
	if len(keys.Tables) > 0 {
		ks := make([]string, len(keys.Tables))
		for i, id := range keys.Tables {
			ks[i] = r.prefix + "t:" + id
		}
		tables = pipe.MGet(ctx, ks...)
	}
	byGame := map[string][]string{}
	for _, k := range keys.Players {
		byGame[k.Game] = append(byGame[k.Game], k.Player)
	}
	players := make(map[string]*redis.SliceCmd, len(byGame))
	for g, ps := range byGame {
		players[g] = pipe.HMGet(ctx, r.prefix+"pg:"+g, ps...)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("load aggregates: %w", err)
	}
	st := &State{Tables: map[string]*TableRecord{}, Players: map[PlayerKey]*statsv1.PlayerGameRecord{}}
	var err error
	if st.Position, st.HighWater, err = parseMeta(meta.Val()); err != nil {
		return nil, err
	}
	if tables != nil {
		for i, v := range tables.Val() {
			s, ok := v.(string)
			if !ok {
				continue
			}
			t := &TableRecord{}
			if err := json.Unmarshal([]byte(s), t); err != nil {
				return nil, fmt.Errorf("decode table record: %w", err)
			}
			st.Tables[keys.Tables[i]] = t
		}
	}
	for g, c := range players {
		for i, v := range c.Val() {
			s, ok := v.(string)
			if !ok {
				continue
			}
			rec := &statsv1.PlayerGameRecord{}
			if err := proto.Unmarshal([]byte(s), rec); err != nil {
				return nil, fmt.Errorf("decode player record: %w", err)
			}
			st.Players[PlayerKey{Player: byGame[g][i], Game: g}] = rec
		}
	}
	return st, nil
}

func parseMeta(v []any) (uint64, int64, error) {
	var pos uint64
	var hw int64
	var err error
	if s, ok := v[0].(string); ok {
		if pos, err = strconv.ParseUint(s, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("stats position %q: %w", s, err)
		}
	}
	if s, ok := v[1].(string); ok {
		if hw, err = strconv.ParseInt(s, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("stats high water %q: %w", s, err)
		}
	}
	return pos, hw, nil
}

func (r *Redis) Position(ctx context.Context) (uint64, error) {
	v, err := r.rdb.HMGet(ctx, r.prefix+"meta", "pos", "hw").Result()
	if err != nil {
		return 0, fmt.Errorf("stats position: %w", err)
	}
	pos, _, err := parseMeta(v)
	return pos, err
}

func (r *Redis) Games(ctx context.Context) ([]string, error) {
	gs, err := r.rdb.SMembers(ctx, r.prefix+"games").Result()
	if err != nil {
		return nil, fmt.Errorf("games: %w", err)
	}
	sort.Strings(gs)
	return gs, nil
}

func (r *Redis) counters(ctx context.Context, key string) (map[string]int64, error) {
	h, err := r.rdb.HGetAll(ctx, r.prefix+key).Result()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	out := make(map[string]int64, len(h))
	for k, v := range h {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("counter %s %s: %w", key, k, err)
		}
		out[k] = n
	}
	return out, nil
}

func (r *Redis) GameCounters(ctx context.Context, game string) (map[string]int64, error) {
	return r.counters(ctx, "g:"+game)
}

func (r *Redis) Ingest(ctx context.Context) (map[string]int64, error) {
	return r.counters(ctx, "ingest")
}

// recordGames lists the games with player records, sorted.
func (r *Redis) recordGames(ctx context.Context) ([]string, error) {
	gs, err := r.rdb.SMembers(ctx, r.prefix+"pgames").Result()
	if err != nil {
		return nil, fmt.Errorf("games: %w", err)
	}
	sort.Strings(gs)
	return gs, nil
}

func (r *Redis) PlayerRecords(ctx context.Context, player string) ([]*statsv1.PlayerGameRecord, error) {
	games, err := r.recordGames(ctx)
	if err != nil {
		return nil, err
	}
	pipe := r.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(games))
	for i, g := range games {
		cmds[i] = pipe.HGet(ctx, r.prefix+"pg:"+g, player)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("player records: %w", err)
	}
	var out []*statsv1.PlayerGameRecord
	for _, c := range cmds {
		b, err := c.Bytes()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("player records: %w", err)
		}
		rec := &statsv1.PlayerGameRecord{}
		if err := proto.Unmarshal(b, rec); err != nil {
			return nil, fmt.Errorf("decode player record: %w", err)
		}
		out = append(out, rec)
	}
	return out, nil
}

func (r *Redis) Recent(ctx context.Context, player string, n int) ([]*statsv1.RecentGame, error) {
	if n <= 0 {
		return nil, nil
	}
	v, err := r.rdb.HGet(ctx, r.prefix+"rc", player).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recent games: %w", err)
	}
	l, err := frames(v)
	if err != nil {
		return nil, err
	}
	l = l[:min(n, len(l))]
	out := make([]*statsv1.RecentGame, 0, len(l))
	for _, s := range l {
		g := &statsv1.RecentGame{}
		if err := proto.Unmarshal([]byte(s), g); err != nil {
			return nil, fmt.Errorf("decode recent game: %w", err)
		}
		out = append(out, g)
	}
	return out, nil
}

// frames splits "<length>:<bytes>" frames.
func frames(s string) ([]string, error) {
	var out []string
	for len(s) > 0 {
		c := strings.IndexByte(s, ':')
		if c < 0 {
			return nil, errors.New("recent games: bad frame")
		}
		n, err := strconv.Atoi(s[:c])
		if err != nil || n < 0 || c+1+n > len(s) {
			return nil, errors.New("recent games: bad frame")
		}
		out = append(out, s[c+1:c+1+n])
		s = s[c+1+n:]
	}
	return out, nil
}

func (r *Redis) Leaderboard(ctx context.Context, game string, start, n int) ([]Ranked, int, error) {
	key := r.prefix + "lb:" + game
	pipe := r.rdb.Pipeline()
	total := pipe.ZCard(ctx, key)
	var rows *redis.ZSliceCmd
	start = max(start, 0)
	if n > 0 {
		rows = pipe.ZRevRangeWithScores(ctx, key, int64(start), int64(start+n-1))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, 0, fmt.Errorf("leaderboard: %w", err)
	}
	var out []Ranked
	if rows != nil {
		for _, z := range rows.Val() {
			out = append(out, Ranked{Player: z.Member.(string), Rating: z.Score})
		}
	}
	return out, int(total.Val()), nil
}

func (r *Redis) Rank(ctx context.Context, game, player string) (int, bool, error) {
	n, err := r.rdb.ZRevRank(ctx, r.prefix+"lb:"+game, player).Result()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("rank: %w", err)
	}
	return int(n), true, nil
}

func (r *Redis) Live(ctx context.Context) (*Live, error) {
	tables, err := r.counters(ctx, "live")
	if err != nil {
		return nil, err
	}
	l := &Live{Tables: map[string]int64{}, Players: map[string]int64{}}
	games, err := r.Games(ctx)
	if err != nil {
		return nil, err
	}
	for g := range tables {
		games = append(games, g)
	}
	pipe := r.rdb.Pipeline()
	lens := map[string]*redis.IntCmd{}
	for _, g := range games {
		lens[g] = pipe.HLen(ctx, r.prefix+"on:"+g)
	}
	all := pipe.HLen(ctx, r.prefix+"on:")
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	for g, v := range tables {
		l.Tables[g] = v
	}
	for g, c := range lens {
		if c.Val() > 0 {
			l.Players[g] = c.Val()
		}
	}
	l.AllPlayers = all.Val()
	return l, nil
}

// scan lists the keys under the prefix matching pattern (relative), without the prefix.
func (r *Redis) scan(ctx context.Context, pattern string) ([]string, error) {
	var out []string
	var mu sync.Mutex
	scan := func(ctx context.Context, node redis.UniversalClient) error {
		it := node.Scan(ctx, 0, r.prefix+pattern, 1000).Iterator()
		for it.Next(ctx) {
			mu.Lock()
			out = append(out, strings.TrimPrefix(it.Val(), r.prefix))
			mu.Unlock()
		}
		return it.Err()
	}
	var err error
	if c, ok := r.rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return scan(ctx, node) })
	} else {
		err = scan(ctx, r.rdb)
	}
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	return out, nil
}

func (r *Redis) Snapshot(ctx context.Context) (*Snapshot, error) {
	s := &Snapshot{
		Games: map[string]map[string]int64{}, Tables: map[string]TableRecord{}, Players: map[PlayerKey]string{},
		Recent: map[string][]string{}, Boards: map[string][]Ranked{}, Online: map[PlayerKey]int64{},
	}
	v, err := r.rdb.HMGet(ctx, r.prefix+"meta", "pos", "hw").Result()
	if err != nil {
		return nil, err
	}
	if s.Position, s.HighWater, err = parseMeta(v); err != nil {
		return nil, err
	}
	if s.Ingest, err = r.counters(ctx, "ingest"); err != nil {
		return nil, err
	}
	games, err := r.Games(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range games {
		if s.Games[g], err = r.GameCounters(ctx, g); err != nil {
			return nil, err
		}
	}
	tks, err := r.scan(ctx, "t:*")
	if err != nil {
		return nil, err
	}
	for _, k := range tks {
		b, err := r.rdb.Get(ctx, r.prefix+k).Bytes()
		if err != nil {
			return nil, err
		}
		var t TableRecord
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, err
		}
		s.Tables[strings.TrimPrefix(k, "t:")] = t
	}
	pgames, err := r.recordGames(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range pgames {
		h, err := r.rdb.HGetAll(ctx, r.prefix+"pg:"+g).Result()
		if err != nil {
			return nil, err
		}
		for p, b := range h {
			s.Players[PlayerKey{Player: p, Game: g}] = b
		}
	}
	rc, err := r.rdb.HGetAll(ctx, r.prefix+"rc").Result()
	if err != nil {
		return nil, err
	}
	for p, v := range rc {
		l, err := frames(v)
		if err != nil {
			return nil, err
		}
		if len(l) > 0 {
			s.Recent[p] = l
		}
	}
	lbs, err := r.scan(ctx, "lb:*")
	if err != nil {
		return nil, err
	}
	for _, k := range lbs {
		g := strings.TrimPrefix(k, "lb:")
		rows, _, err := r.Leaderboard(ctx, g, 0, 1<<30)
		if err != nil {
			return nil, err
		}
		s.Boards[g] = rows
	}
	live, err := r.counters(ctx, "live")
	if err != nil {
		return nil, err
	}
	for g, v := range live {
		s.Online[PlayerKey{Game: g}] = v
	}
	ons, err := r.scan(ctx, "on:*")
	if err != nil {
		return nil, err
	}
	for _, k := range ons {
		c, err := r.counters(ctx, k)
		if err != nil {
			return nil, err
		}
		g := strings.TrimPrefix(k, "on:")
		for p, v := range c {
			s.Online[PlayerKey{Game: g, Player: p}] = v
		}
	}
	return s, nil
}

// Clear deletes every key under the store's prefix: the aggregates and their position. Stop the
// consumer first; `cardroom stats rebuild` uses it to rebuild in place.
func (r *Redis) Clear(ctx context.Context) error {
	keys, err := r.scan(ctx, "*")
	if err != nil {
		return err
	}
	for i := 0; i < len(keys); i += 500 {
		batch := keys[i:min(i+500, len(keys))]
		full := make([]string, len(batch))
		for j, k := range batch {
			full[j] = r.prefix + k
		}
		if err := r.rdb.Del(ctx, full...).Err(); err != nil {
			return fmt.Errorf("clear aggregates: %w", err)
		}
	}
	return nil
}
