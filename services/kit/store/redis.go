package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is the table store on a Redis server (standalone or replicated primary; the scripts touch
// global indexes beside a table's keys, so Redis Cluster is not supported).
//
// Keys, under a prefix: t:{id} (hash: cfg, s state, v version, q sequence, p published, d deadline
// ms, fin, ct created ms, w token of the last write), t:{id}:log (list; index = version), t:{id}:ids (hash: action id →
// version), deadlines (sorted set by ms), outbox (sorted set by commit ms).
//
// A read is one script call and a commit is one script call: an action costs two round trips, or
// one when the writer commits from a state it kept, checked by Commit.Expect, without reading.
type Redis struct {
	rdb    redis.UniversalClient
	prefix string
	// deadlines and outbox are the global index keys.
	deadlines, outbox string
}

// NewRedis returns a store on rdb with keys under prefix (e.g. "cardroom:"), loading its scripts.
func NewRedis(ctx context.Context, rdb redis.UniversalClient, prefix string) (*Redis, error) {
	for _, s := range []*redis.Script{createScript, loadScript, commitScript, claimScript, markScript} {
		if err := s.Load(ctx, rdb).Err(); err != nil {
			return nil, fmt.Errorf("load redis script: %w", err)
		}
	}
	return &Redis{rdb: rdb, prefix: prefix, deadlines: prefix + "deadlines", outbox: prefix + "outbox"}, nil
}

func (r *Redis) keys(id string) []string {
	t := r.prefix + "t:{" + id + "}"
	return []string{t, t + ":log", t + ":ids", r.deadlines, r.outbox}
}

// tableKeys is keys(id)[:3]: the table's own keys.
func (r *Redis) tableKeys(id string) []string {
	t := r.prefix + "t:{" + id + "}"
	return []string{t, t + ":log", t + ":ids"}
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'cfg', ARGV[2], 's', ARGV[3], 'v', 0, 'q', ARGV[4], 'p', 0, 'd', ARGV[5], 'fin', 0, 'ct', ARGV[6], 'w', ARGV[8])
redis.call('RPUSH', KEYS[2], ARGV[7])
if ARGV[5] ~= '0' then redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1]) end
if ARGV[4] ~= '0' then redis.call('ZADD', KEYS[5], ARGV[6], ARGV[1]) end
return 1
`)

func (r *Redis) Create(ctx context.Context, t Table, created Entry) error {
	n, err := createScript.Run(ctx, r.rdb, r.keys(t.ID), t.ID, t.Config, t.State, t.Sequence,
		ms(t.Deadline), ms(t.CreatedAt), created.Data, t.Token).Int()
	if err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	if n == 0 {
		return ErrExists
	}
	return nil
}

var loadScript = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'cfg', 's', 'v', 'q', 'p', 'd', 'fin', 'ct', 'w')
if not f[3] then return false end
local pv, pd = '', ''
if ARGV[1] ~= '' then
  local v = redis.call('HGET', KEYS[3], ARGV[1])
  if v then pv = v; pd = redis.call('LINDEX', KEYS[2], tonumber(v)) end
end
return {f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], pv, pd, f[9] or '0'}
`)

func (r *Redis) Load(ctx context.Context, id, actionID string) (Table, *Entry, error) {
	res, err := loadScript.Run(ctx, r.rdb, r.tableKeys(id), actionID).Slice()
	if errors.Is(err, redis.Nil) {
		return Table{}, nil, ErrNotFound
	}
	if err != nil {
		return Table{}, nil, fmt.Errorf("load table: %w", err)
	}
	if len(res) != 11 {
		return Table{}, nil, fmt.Errorf("load table: unexpected reply of %d fields", len(res))
	}
	str := func(i int) string { s, _ := res[i].(string); return s }
	num := func(i int) int64 { n, _ := strconv.ParseInt(str(i), 10, 64); return n }
	t := Table{
		ID:        id,
		Config:    []byte(str(0)),
		State:     []byte(str(1)),
		Version:   uint64(num(2)),
		Sequence:  uint64(num(3)),
		Published: uint64(num(4)),
		Deadline:  fromMS(num(5)),
		Finished:  str(6) == "1",
		CreatedAt: fromMS(num(7)),
	}
	// A token is a full 64-bit value: parsed unsigned, and compared as a string in the commit script.
	t.Token, _ = strconv.ParseUint(str(10), 10, 64)
	if str(8) == "" {
		return t, nil, nil
	}
	return t, &Entry{Version: uint64(num(8)), ActionID: actionID, Data: []byte(str(9))}, nil
}

var commitScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if ARGV[3] ~= '' and redis.call('HEXISTS', KEYS[3], ARGV[3]) == 1 then return -2 end
if tonumber(v) ~= tonumber(ARGV[2]) then return -3 end
if ARGV[12] ~= '0' and redis.call('HGET', KEYS[1], 'w') ~= ARGV[12] then return -3 end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 's', ARGV[4], 'v', nv, 'q', ARGV[6], 'd', ARGV[7], 'fin', ARGV[8], 'w', ARGV[11])
redis.call('RPUSH', KEYS[2], ARGV[5])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[3], nv) end
if ARGV[7] == '0' or ARGV[8] == '1' then
  redis.call('ZREM', KEYS[4], ARGV[1])
else
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[1])
end
if tonumber(ARGV[6]) > tonumber(redis.call('HGET', KEYS[1], 'p')) then
  redis.call('ZADD', KEYS[5], ARGV[10], ARGV[1])
end
if ARGV[8] == '1' then
  for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[9]) end
end
return nv
`)

func (r *Redis) Commit(ctx context.Context, c Commit) error {
	fin := 0
	if c.Finished {
		fin = 1
	}
	retain := c.Retain.Milliseconds()
	if retain < 1 {
		retain = 1
	}
	n, err := commitScript.Run(ctx, r.rdb, r.keys(c.TableID), c.TableID, c.From, c.Entry.ActionID,
		c.State, c.Entry.Data, c.Sequence, ms(c.Deadline), fin, retain, time.Now().UnixMilli(), c.Token, c.Expect).Int64()
	if err != nil {
		return fmt.Errorf("commit table: %w", err)
	}
	switch n {
	case -1:
		return ErrNotFound
	case -2:
		return ErrDuplicate
	case -3:
		return ErrConflict
	}
	return nil
}

func (r *Redis) Log(ctx context.Context, id string, from uint64) ([]Entry, error) {
	k := r.keys(id)
	pipe := r.rdb.Pipeline()
	exists := pipe.Exists(ctx, k[0])
	lr := pipe.LRange(ctx, k[1], int64(from), -1)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read log: %w", err)
	}
	if exists.Val() == 0 {
		return nil, ErrNotFound
	}
	vals := lr.Val()
	out := make([]Entry, len(vals))
	for i, v := range vals {
		out[i] = Entry{Version: from + uint64(i), Data: []byte(v)}
	}
	return out, nil
}

var claimScript = redis.NewScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {ids, first[2] or ''}
`)

func (r *Redis) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, time.Time, error) {
	res, err := claimScript.Run(ctx, r.rdb, []string{r.deadlines},
		now.UnixMilli(), now.Add(lease).UnixMilli(), limit).Slice()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("claim deadlines: %w", err)
	}
	if len(res) != 2 {
		return nil, time.Time{}, fmt.Errorf("claim deadlines: unexpected reply %v", res)
	}
	raw, _ := res[0].([]any)
	ids := make([]string, 0, len(raw))
	for _, v := range raw {
		if id, ok := v.(string); ok {
			ids = append(ids, id)
		}
	}
	var next time.Time
	if score, _ := res[1].(string); score != "" {
		ms, err := strconv.ParseFloat(score, 64)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("claim deadlines: next deadline %q: %w", score, err)
		}
		next = time.UnixMilli(int64(ms))
	}
	return ids, next, nil
}

func (r *Redis) Unpublished(ctx context.Context, before time.Time, limit int) ([]string, error) {
	ids, err := r.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
		Key: r.outbox, ByScore: true, Start: "-inf", Stop: "(" + strconv.FormatInt(before.UnixMilli(), 10),
		Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	return ids, nil
}

var markScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[1]); return 0 end
local p = tonumber(redis.call('HGET', KEYS[1], 'p'))
if tonumber(ARGV[2]) > p and tonumber(ARGV[3]) <= p + 1 then p = tonumber(ARGV[2]); redis.call('HSET', KEYS[1], 'p', p) end
if p >= tonumber(redis.call('HGET', KEYS[1], 'q')) then redis.call('ZREM', KEYS[2], ARGV[1]) end
return 1
`)

// MarkPublished records marks in one pipelined round trip.
func (r *Redis) MarkPublished(ctx context.Context, marks []Mark) error {
	if len(marks) == 0 {
		return nil
	}
	run := func() error {
		pipe := r.rdb.Pipeline()
		for _, m := range marks {
			k := r.keys(m.TableID)
			markScript.EvalSha(ctx, pipe, []string{k[0], k[4]}, m.TableID, m.Sequence, m.From)
		}
		_, err := pipe.Exec(ctx)
		return err
	}
	err := run()
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		// The server lost its script cache (a restart): load again once.
		if lerr := markScript.Load(ctx, r.rdb).Err(); lerr == nil {
			err = run()
		}
	}
	if err != nil {
		return fmt.Errorf("mark published: %w", err)
	}
	return nil
}
