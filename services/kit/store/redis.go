package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultShards is the number of shards a Redis store splits its tables into unless told otherwise.
const DefaultShards = 16

// Redis is the table store on Redis: one server, a Sentinel-managed primary, or a Redis Cluster.
//
// Tables are split into a fixed number of shards; a table belongs to shard fnv32a(id) mod shards.
// Every key of a shard carries the shard's hash tag, {<h>-<n>}, where h is a short hash of the
// prefix (so that the shards of different prefixes, such as different games, fall in different
// hash slots) and n the shard number. Under a prefix, shard keys are {tag}:t:<id> (hash: cfg, s
// state, v version, q sequence, p published, d deadline ms, fin, ct created ms, w token of the
// last write), {tag}:t:<id>:log (list; index = version), {tag}:t:<id>:ids (hash: action id →
// version), {tag}:deadlines (sorted set by ms) and {tag}:outbox (sorted set by commit ms); the key
// "shards" records the number of shards, which never changes for a prefix. Each script touches
// the keys of one shard only, so they all hash to one slot, as Redis Cluster requires; the
// shards spread over the cluster's primaries.
//
// A read is one script call and a commit is one script call: an action costs two round trips, or
// one when the writer commits from a state it kept, checked by Commit.Expect, without reading.
// Claiming deadlines and reading the outbox visit every shard in one pipelined round trip
// (one per primary, sent in parallel, on a cluster).
type Redis struct {
	rdb    redis.UniversalClient
	prefix string
	// cluster is rdb when it is a cluster client: a confirmed write goes to the node serving its
	// slot, found there.
	cluster *redis.ClusterClient
	// wait is what a write that answers a client waits for (RedisOptions.WaitReplicas).
	waitReplicas int
	waitTimeout  time.Duration
	// tags are the shards' key prefixes, "<prefix>{<h>-<n>}:".
	tags []string
	// turn rotates the shard a sweep starts from, so that no shard is always served first.
	turn atomic.Uint32
	// commits sends concurrent commits together (see groupCommit); not when commits wait for
	// replicas, which is done on the connection that wrote each.
	commits groupCommit
}

// RedisOptions tune a Redis store.
type RedisOptions struct {
	// Shards is the number of shards (0: DefaultShards). It is recorded under the prefix by the
	// first store opened there; a store opened later with another number is refused, since every
	// table's keys depend on it.
	Shards int
	// WaitReplicas, when not 0, makes every write that answers a client — a table created, an
	// action committed, and a retried action found applied — wait until that many replicas have it
	// (WAIT, on the connection that wrote it), for up to WaitTimeout (0: one second). When fewer
	// confirm it the write is answered ErrUnconfirmed (Unavailable): it may be on the primary only,
	// and a failover would lose it. The retry, with the same action id, finds it applied and waits
	// again, or — if a failover did lose it — applies it anew; either way it is answered only once
	// a replica has it. 0 (the default): answers do not wait; replication is asynchronous.
	WaitReplicas int
	WaitTimeout  time.Duration
}

// ErrUnconfirmed: a write went through on the primary but fewer replicas than RedisOptions asks
// confirmed it in time. It is Unavailable: a retry of the same write is safe and waits again.
var ErrUnconfirmed = errors.New("store: write not confirmed by the replicas in time")

// NewRedis returns a store on rdb with keys under prefix (e.g. "cardroom:") and DefaultShards
// shards, loading its scripts.
func NewRedis(ctx context.Context, rdb redis.UniversalClient, prefix string) (*Redis, error) {
	return NewRedisWith(ctx, rdb, prefix, RedisOptions{})
}

// NewRedisWith is NewRedis with options.
func NewRedisWith(ctx context.Context, rdb redis.UniversalClient, prefix string, opt RedisOptions) (*Redis, error) {
	n := opt.Shards
	if n == 0 {
		n = DefaultShards
	}
	if n < 1 || n > 4096 {
		return nil, fmt.Errorf("redis store: %d shards, want 1 to 4096", n)
	}
	if opt.WaitReplicas < 0 || opt.WaitTimeout < 0 {
		return nil, fmt.Errorf("redis store: wait for %d replicas for %s: want neither negative", opt.WaitReplicas, opt.WaitTimeout)
	}
	if opt.WaitTimeout == 0 {
		opt.WaitTimeout = time.Second
	}
	if strings.ContainsAny(prefix, "{}") {
		return nil, fmt.Errorf("redis store: prefix %q holds a brace, which would change the keys' hash slots", prefix)
	}
	for _, s := range []*redis.Script{createScript, loadScript, commitScript, claimScript, markScript, confirmScript} {
		if err := s.Load(ctx, rdb).Err(); err != nil {
			return nil, fmt.Errorf("load redis script: %w", err)
		}
	}
	key := prefix + "shards"
	if err := rdb.SetNX(ctx, key, n, 0).Err(); err != nil {
		return nil, fmt.Errorf("redis store: record shards: %w", err)
	}
	have, err := rdb.Get(ctx, key).Int()
	if err != nil {
		return nil, fmt.Errorf("redis store: read shards: %w", err)
	}
	if have != n {
		return nil, fmt.Errorf("redis store: the keys under %q are split into %d shards, not %d: a prefix keeps its number of shards", prefix, have, n)
	}
	h := fnv.New32a()
	h.Write([]byte(prefix))
	salt := strconv.FormatUint(uint64(h.Sum32()&0xffff), 16)
	r := &Redis{rdb: rdb, prefix: prefix, tags: make([]string, n), waitReplicas: opt.WaitReplicas, waitTimeout: opt.WaitTimeout}
	r.commits.rdb = rdb
	r.cluster, _ = rdb.(*redis.ClusterClient)
	for i := range n {
		r.tags[i] = prefix + "{" + salt + "-" + strconv.Itoa(i) + "}:"
	}
	r.turn.Store(rand.Uint32())
	return r, nil
}

// Shards returns the number of shards.
func (r *Redis) Shards() int { return len(r.tags) }

// shard returns the shard of table id.
func (r *Redis) shard(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % uint32(len(r.tags)))
}

// keys are table id's keys and its shard's indexes: table, log, ids, deadlines, outbox.
func (r *Redis) keys(id string) []string {
	tag := r.tags[r.shard(id)]
	t := tag + "t:" + id
	return []string{t, t + ":log", t + ":ids", tag + "deadlines", tag + "outbox"}
}

// tableKeys is keys(id)[:3]: the table's own keys.
func (r *Redis) tableKeys(id string) []string { return r.keys(id)[:3] }

// order returns the shards in the order a sweep visits them: from a rotating start.
func (r *Redis) order() []int {
	n := len(r.tags)
	start := int(r.turn.Add(1) % uint32(n))
	out := make([]int, n)
	for i := range out {
		out[i] = (start + i) % n
	}
	return out
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

// createScript creates a table. When it exists already and ARGV[9] is '1' (a confirmed write), it
// writes its version again, unchanged, so that the WAIT that follows covers the table as it is.
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[9] == '1' then redis.call('HSET', KEYS[1], 'v', redis.call('HGET', KEYS[1], 'v')) end
  return 0
end
redis.call('HSET', KEYS[1], 'cfg', ARGV[2], 's', ARGV[3], 'v', 0, 'q', ARGV[4], 'p', 0, 'd', ARGV[5], 'fin', 0, 'ct', ARGV[6], 'w', ARGV[8])
redis.call('RPUSH', KEYS[2], ARGV[7])
if ARGV[5] ~= '0' then redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1]) end
if ARGV[4] ~= '0' then redis.call('ZADD', KEYS[5], ARGV[6], ARGV[1]) end
return 1
`)

func (r *Redis) Create(ctx context.Context, t Table, created Entry) error {
	keys := r.keys(t.ID)
	args := []any{t.ID, t.Config, t.State, t.Sequence, ms(t.Deadline), ms(t.CreatedAt), created.Data, t.Token, r.confirming()}
	var n int
	var err error
	if r.waitReplicas > 0 {
		var c *redis.Cmd
		c, err = r.confirmed(ctx, createScript, keys, args)
		if err == nil {
			n, err = c.Int()
		}
	} else {
		n, err = createScript.Run(ctx, r.rdb, keys, args...).Int()
	}
	if err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	if n == 0 {
		return ErrExists
	}
	return nil
}

// loadScript reads a table and, when ARGV[1] names an action applied there, its log entry. With
// ARGV[2] '1' (a retry's confirmed read) it then writes the table's version again, unchanged, so
// that the WAIT that follows covers the entry read: the write is replicated after it.
var loadScript = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'cfg', 's', 'v', 'q', 'p', 'd', 'fin', 'ct', 'w')
if not f[3] then return false end
local pv, pd = '', ''
if ARGV[1] ~= '' then
  local v = redis.call('HGET', KEYS[3], ARGV[1])
  if v then
    pv = v; pd = redis.call('LINDEX', KEYS[2], tonumber(v))
    if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'v', f[3]) end
  end
end
return {f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], pv, pd, f[9] or '0'}
`)

func (r *Redis) Load(ctx context.Context, id, actionID string) (Table, *Entry, error) {
	t, prior, err := r.load(ctx, id, actionID, false)
	if err == nil && prior != nil && r.waitReplicas > 0 {
		// The action was applied, but its first answer may have been ErrUnconfirmed: it is answered
		// now only once the replicas have it. The entry is read again with the write the WAIT
		// covers, on one connection, so that what is answered is what they confirmed.
		return r.load(ctx, id, actionID, true)
	}
	return t, prior, err
}

// load is Load; confirm reads a retried action's entry as a confirmed write (see loadScript).
func (r *Redis) load(ctx context.Context, id, actionID string, confirm bool) (Table, *Entry, error) {
	var res []any
	var err error
	if confirm {
		var c *redis.Cmd
		c, err = r.confirmed(ctx, loadScript, r.tableKeys(id), []any{actionID, "1"})
		if err == nil {
			res, err = c.Slice()
		}
	} else {
		res, err = loadScript.Run(ctx, r.rdb, r.tableKeys(id), actionID, "0").Slice()
	}
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

// commitScript reads the fields it checks in one HMGET and records the action id with HSETNX,
// which is also the duplicate check (undone on a conflict, the rare case). The deadline index
// holds a table exactly when its stored deadline is set and it is not finished (create and commit
// keep it so), so a table whose stored deadline is 0 has nothing to remove there.
var commitScript = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'v', 'w', 'p', 'd')
local v = f[1]
if not v then return -1 end
local nv = tonumber(v) + 1
if ARGV[3] ~= '' and redis.call('HSETNX', KEYS[3], ARGV[3], nv) == 0 then return -2 end
if tonumber(v) ~= tonumber(ARGV[2]) or (ARGV[12] ~= '0' and f[2] ~= ARGV[12]) then
  if ARGV[3] ~= '' then redis.call('HDEL', KEYS[3], ARGV[3]) end
  return -3
end
redis.call('HSET', KEYS[1], 's', ARGV[4], 'v', nv, 'q', ARGV[6], 'd', ARGV[7], 'fin', ARGV[8], 'w', ARGV[11])
redis.call('RPUSH', KEYS[2], ARGV[5])
if ARGV[7] == '0' or ARGV[8] == '1' then
  if f[4] ~= '0' then redis.call('ZREM', KEYS[4], ARGV[1]) end
else
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[1])
end
if tonumber(ARGV[6]) > tonumber(f[3]) then
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
	keys := r.keys(c.TableID)
	args := []any{c.TableID, c.From, c.Entry.ActionID, c.State, c.Entry.Data, c.Sequence, ms(c.Deadline),
		fin, retain, time.Now().UnixMilli(), c.Token, c.Expect}
	var n int64
	var err error
	if r.waitReplicas > 0 {
		var cmd *redis.Cmd
		cmd, err = r.confirmed(ctx, commitScript, keys, args)
		if cmd != nil && cmd.Err() == nil {
			var cerr error
			if n, cerr = cmd.Int64(); cerr != nil {
				err = cerr
			} else if n <= 0 {
				// Nothing was written (a conflict, a duplicate, no table): that answer stands,
				// confirmed or not.
				err = nil
			}
		}
	} else {
		n, err = r.commits.run(ctx, keys, args)
	}
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

// confirmScript writes table KEYS[1]'s version again, unchanged, when its last write is token
// ARGV[1], so that the WAIT that follows covers the table as a read found it: 1; 0 when it was
// written since; -1 when it does not exist.
var confirmScript = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'v', 'w')
if not f[1] then return -1 end
if (f[2] or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', f[1])
return 1
`)

// Confirm implements Confirmer.
func (r *Redis) Confirm(ctx context.Context, id string, token uint64) error {
	if r.waitReplicas == 0 {
		return nil
	}
	c, err := r.confirmed(ctx, confirmScript, r.tableKeys(id)[:1], []any{strconv.FormatUint(token, 10)})
	if c != nil && c.Err() == nil {
		switch n, _ := c.Int64(); n {
		case -1:
			return ErrNotFound
		case 0:
			return ErrConflict
		}
	}
	if err != nil {
		return fmt.Errorf("confirm table: %w", err)
	}
	return nil
}

// confirming is the scripts' flag for a confirmed write: "1" when writes wait for replicas.
func (r *Redis) confirming() string {
	if r.waitReplicas > 0 {
		return "1"
	}
	return "0"
}

// confirmed runs script on keys and args, then WAIT for the store's replicas, pipelined on one
// connection to the primary serving keys[0] — WAIT counts the replicas that have every write made
// on its connection — and returns the script's command. When fewer replicas than asked confirmed
// the script's writes in time, the error is ErrUnconfirmed (the command holds the script's
// answer). A script the server does not know (a restart, a replica promoted) is loaded and sent
// again; on a cluster, a slot that moved (MOVED, ASK: the script did not run) makes the client
// reload its slot map and try again, and any other failure asks for that reload too, so that the
// next call goes where the slot is now.
func (r *Redis) confirmed(ctx context.Context, script *redis.Script, keys []string, args []any) (*redis.Cmd, error) {
	backoff := 10 * time.Millisecond
	loaded := false
	for attempt := 0; ; attempt++ {
		var node redis.Cmdable = r.rdb
		if r.cluster != nil {
			c, err := r.cluster.MasterForKey(ctx, keys[0])
			if err != nil {
				return nil, err
			}
			node = c
		}
		pipe := node.Pipeline()
		cmd := script.EvalSha(ctx, pipe, keys, args...)
		wait := pipe.Do(ctx, "wait", r.waitReplicas, r.waitTimeout.Milliseconds())
		_, _ = pipe.Exec(ctx)
		err := cmd.Err()
		switch {
		case err == nil:
		case redis.HasErrorPrefix(err, "NOSCRIPT") && !loaded:
			loaded = true
			if lerr := script.Load(ctx, node).Err(); lerr != nil {
				return cmd, err
			}
			continue
		case r.cluster != nil && (redis.HasErrorPrefix(err, "MOVED") || redis.HasErrorPrefix(err, "ASK")) && attempt < 5:
			r.cluster.ReloadState(ctx)
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return cmd, err
			case <-t.C:
			}
			backoff *= 2
			continue
		default:
			if r.cluster != nil && !errors.Is(err, redis.Nil) {
				r.cluster.ReloadState(ctx)
			}
			return cmd, err
		}
		got, werr := wait.Int64()
		if werr != nil {
			return cmd, fmt.Errorf("%w: %w", ErrUnconfirmed, werr)
		}
		if got < int64(r.waitReplicas) {
			return cmd, fmt.Errorf("%w: %d of %d replicas in %s", ErrUnconfirmed, got, r.waitReplicas, r.waitTimeout)
		}
		return cmd, nil
	}
}

// claimScript claims up to ARGV[3] due deadlines of one shard and returns them with the shard's
// earliest deadline left.
var claimScript = redis.NewScript(`
local ids = {}
if tonumber(ARGV[3]) > 0 then
  ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
  for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {ids, first[2] or ''}
`)

// runPiped runs the commands add puts in one pipeline, loading the scripts again once if the
// server lost them (a restart, or a replica promoted after a failover).
func (r *Redis) runPiped(ctx context.Context, add func(redis.Pipeliner)) ([]redis.Cmder, error) {
	run := func() ([]redis.Cmder, error) {
		pipe := r.rdb.Pipeline()
		add(pipe)
		return pipe.Exec(ctx)
	}
	cmds, err := run()
	if err != nil && strings.Contains(err.Error(), "NOSCRIPT") {
		for _, s := range []*redis.Script{claimScript, markScript} {
			if lerr := s.Load(ctx, r.rdb).Err(); lerr != nil {
				return cmds, err
			}
		}
		cmds, err = run()
	}
	return cmds, err
}

// ClaimDue claims in every shard, in one pipelined round trip: limit is shared out among the
// shards, starting from a rotating one. When that leaves part of limit unused while a shard still
// has due deadlines (its share was smaller than what it had due), those shards are claimed from
// again, one by one, for the rest.
func (r *Redis) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, time.Time, error) {
	order := r.order()
	n := len(order)
	nowMS, until := now.UnixMilli(), now.Add(lease).UnixMilli()
	share := func(i int) int {
		s := limit / n
		if i < limit%n {
			s++
		}
		return s
	}
	cmds, err := r.runPiped(ctx, func(p redis.Pipeliner) {
		for i, sh := range order {
			claimScript.EvalSha(ctx, p, []string{r.tags[sh] + "deadlines"}, nowMS, until, share(i))
		}
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("claim deadlines: %w", err)
	}
	var ids []string
	firsts := make([]int64, n) // each shard's earliest deadline left, -1: none
	for i, c := range cmds {
		got, first, err := claimReply(c.(*redis.Cmd))
		if err != nil {
			return nil, time.Time{}, err
		}
		ids = append(ids, got...)
		firsts[i] = first
	}
	for i, sh := range order {
		if len(ids) >= limit {
			break
		}
		if firsts[i] < 0 || firsts[i] > nowMS {
			continue
		}
		c := claimScript.Run(ctx, r.rdb, []string{r.tags[sh] + "deadlines"}, nowMS, until, limit-len(ids))
		got, first, err := claimReply(c)
		if err != nil {
			return nil, time.Time{}, err
		}
		ids = append(ids, got...)
		firsts[i] = first
	}
	var next time.Time
	for _, f := range firsts {
		if f >= 0 && (next.IsZero() || f < next.UnixMilli()) {
			next = time.UnixMilli(f)
		}
	}
	return ids, next, nil
}

// claimReply decodes claimScript's answer: the ids claimed and the shard's earliest deadline in
// ms (-1: none).
func claimReply(c *redis.Cmd) ([]string, int64, error) {
	res, err := c.Slice()
	if err != nil {
		return nil, 0, fmt.Errorf("claim deadlines: %w", err)
	}
	if len(res) != 2 {
		return nil, 0, fmt.Errorf("claim deadlines: unexpected reply %v", res)
	}
	raw, _ := res[0].([]any)
	ids := make([]string, 0, len(raw))
	for _, v := range raw {
		if id, ok := v.(string); ok {
			ids = append(ids, id)
		}
	}
	score, _ := res[1].(string)
	if score == "" {
		return ids, -1, nil
	}
	ms, err := strconv.ParseFloat(score, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("claim deadlines: next deadline %q: %w", score, err)
	}
	return ids, int64(ms), nil
}

// Unpublished reads every shard's outbox in one pipelined round trip, up to limit from each, and
// returns up to limit ids taken in turn from the shards, starting from a rotating one.
func (r *Redis) Unpublished(ctx context.Context, before time.Time, limit int) ([]string, error) {
	order := r.order()
	stop := "(" + strconv.FormatInt(before.UnixMilli(), 10)
	cmds, err := r.runPiped(ctx, func(p redis.Pipeliner) {
		for _, sh := range order {
			p.ZRangeArgs(ctx, redis.ZRangeArgs{Key: r.tags[sh] + "outbox", ByScore: true, Start: "-inf", Stop: stop, Count: int64(limit)})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	lists := make([][]string, len(cmds))
	for i, c := range cmds {
		lists[i] = c.(*redis.StringSliceCmd).Val()
	}
	var ids []string
	for round := 0; len(ids) < limit; round++ {
		took := false
		for _, l := range lists {
			if round < len(l) && len(ids) < limit {
				ids = append(ids, l[round])
				took = true
			}
		}
		if !took {
			break
		}
	}
	return ids, nil
}

// markScript records the marks of one shard's tables. KEYS[1] is the shard's outbox, KEYS[2..] the
// tables' hashes, each once; ARGV holds, for each table in turn, its id, its number of marks n and
// n pairs from, sequence, in the order the marks were made. A table's marks are applied one after
// the other as MarkPublished says, from one read of its fields, with one write of the result; the
// tables done (all published, or gone) leave the outbox in one ZREM.
var markScript = redis.NewScript(`
local done = {}
local a = 1
for i = 2, #KEYS do
  local id, n = ARGV[a], tonumber(ARGV[a + 1])
  a = a + 2
  local f = redis.call('HMGET', KEYS[i], 'p', 'q')
  local p, q = tonumber(f[1]), tonumber(f[2])
  if not (p and q) then
    done[#done + 1] = id
    a = a + 2 * n
  else
    local p0 = p
    for _ = 1, n do
      local from, seq = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
      a = a + 2
      if seq > p and from <= p + 1 then p = seq end
    end
    if p ~= p0 then redis.call('HSET', KEYS[i], 'p', p) end
    if p >= q then done[#done + 1] = id end
  end
end
if #done > 0 then redis.call('ZREM', KEYS[1], unpack(done)) end
return #done
`)

// maxMarkTables bounds the tables one markScript call takes: a script holds the server while it
// runs, and unpack's stack is limited. A full batch of 256 marks spread over 16 shards gives each
// about 16 tables; a store of fewer shards splits a shard's part into several calls.
const maxMarkTables = 32

// MarkPublished records marks in one pipelined round trip, with one script call per shard (per
// maxMarkTables tables of a shard) rather than one per mark: confirmations arrive in batches of
// many tables and all of a shard's keys share one hash slot.
func (r *Redis) MarkPublished(ctx context.Context, marks []Mark) error {
	if len(marks) == 0 {
		return nil
	}
	type tableMarks struct {
		id    string
		pairs []uint64 // from, sequence, ...
	}
	shards := make(map[int][]*tableMarks)
	byID := make(map[string]*tableMarks, len(marks))
	var order []int // shards in order of first appearance
	for _, m := range marks {
		tm := byID[m.TableID]
		if tm == nil {
			tm = &tableMarks{id: m.TableID}
			byID[m.TableID] = tm
			sh := r.shard(m.TableID)
			if shards[sh] == nil {
				order = append(order, sh)
			}
			shards[sh] = append(shards[sh], tm)
		}
		tm.pairs = append(tm.pairs, m.From, m.Sequence)
	}
	_, err := r.runPiped(ctx, func(p redis.Pipeliner) {
		for _, sh := range order {
			tables := shards[sh]
			for len(tables) > 0 {
				part := tables[:min(len(tables), maxMarkTables)]
				tables = tables[len(part):]
				keys := make([]string, 1, len(part)+1)
				keys[0] = r.tags[sh] + "outbox"
				var args []any
				for _, tm := range part {
					keys = append(keys, r.tags[sh]+"t:"+tm.id)
					args = append(args, tm.id, len(tm.pairs)/2)
					for _, v := range tm.pairs {
						args = append(args, v)
					}
				}
				markScript.EvalSha(ctx, p, keys, args...)
			}
		}
	})
	if err != nil {
		return fmt.Errorf("mark published: %w", err)
	}
	return nil
}
