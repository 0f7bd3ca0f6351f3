package lobby

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is the Store on Redis, shared by every gateway replica. Keys, under a prefix, then gw:{h}:
// where h is a short hash of the prefix (one hash tag for the lobby's keys): t:<id> (hash: d
// record, v version), code:<code> (table id), k:<id> (ticket hash: d record, v version, s state,
// tb table, p pool, n players, lo/hi seats, b bots, dl deadline ms), ix:<list>:<game> and
// ix:<list>: (the public lists per game and of every game: table ids scored as Listing says),
// pl:<player> (the player's tables, scored by creation), q:<pool> (queued tickets
// scored by queue time), pools (pools with a queue), drive (the owned set: tables whose lifecycle
// has an owner, scored by lease expiry ms, 0 when free), owner (table → replica), claim:<token>
// and m:<table> (a claimed match: its seats and tickets); and, with a tag of its own, gw:pr:{table}
// (seat → last seen ms); once:<player>:<request id> (hash: c the call's digest, i the table or ticket
// it created; see Once), which the creating scripts write with the record.
//
// The scripts read and write tables, codes, tickets, queues and the owned set together, so all of
// those keys share one hash tag: on Redis Cluster the lobby lives in one hash slot (one primary,
// with its replicas), while the presence records, written at every heartbeat, spread by table.
// A lobby's load is a few writes per table's life and per matchmaking ticket, far below the
// table store's, which is sharded (see package store).
type Redis struct {
	rdb redis.UniversalClient
	// prefix is the tagged prefix of every key but the presence records', under presence.
	prefix, presence string
	decoded          decodedTables
}

// NewRedis returns a store on rdb with keys under prefix (e.g. "cardroom:").
func NewRedis(ctx context.Context, rdb redis.UniversalClient, prefix string) (*Redis, error) {
	for _, s := range []*redis.Script{createTableScript, createTableOnceScript, updateTableScript, ticketScript, ticketOnceScript, claimMatchScript, claimDriveScript, renewDriveScript, listScript} {
		if err := s.Load(ctx, rdb).Err(); err != nil {
			return nil, fmt.Errorf("load lobby script: %w", err)
		}
	}
	if strings.ContainsAny(prefix, "{}") {
		return nil, fmt.Errorf("lobby: prefix %q holds a brace, which would change the keys' hash slots", prefix)
	}
	h := fnv.New32a()
	h.Write([]byte(prefix))
	tag := "{" + strconv.FormatUint(uint64(h.Sum32()&0xffff), 16) + "}"
	return &Redis{rdb: rdb, prefix: prefix + "gw:" + tag + ":", presence: prefix + "gw:pr:"}, nil
}

func (r *Redis) tableKey(id string) string  { return r.prefix + "t:" + id }
func (r *Redis) codeKey(c string) string    { return r.prefix + "code:" + c }
func (r *Redis) ticketKey(id string) string { return r.prefix + "k:" + id }
func (r *Redis) queueKey(p string) string   { return r.prefix + "q:" + p }
func (r *Redis) matchKey(id string) string  { return r.prefix + "m:" + id }
func (r *Redis) driveKey() string           { return r.prefix + "drive" }
func (r *Redis) ownerKey() string           { return r.prefix + "owner" }

func owned(st TableState) string {
	if st.Owned() {
		return "1"
	}
	return "0"
}

// createTableSrc creates a table (KEYS[1]) and its code (KEYS[2]), putting it in the owned set
// (KEYS[3]) if its state is owned; 0 when the id or the code is taken.
var createTableSrc = indexLua + `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if ARGV[2] ~= '' then
  if not redis.call('SET', KEYS[2], ARGV[2], 'NX') then return 0 end
end
redis.call('HSET', KEYS[1], 'd', ARGV[1], 'v', 1)
if tonumber(ARGV[3]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
end
if ARGV[4] == '1' then redis.call('ZADD', KEYS[3], 'NX', 0, ARGV[5]) end
index(6)
return 1`

var (
	createTableScript     = redis.NewScript(createTableSrc)
	createTableOnceScript = redis.NewScript(onceScript(createTableSrc))
)

// onceScript makes a creating script run under a request id (KEYS[#KEYS], a hash: c call, i id):
// when the id is recorded, it writes nothing and answers {call, id}; when not, it runs src and, if
// src creates (returns 1), records ARGV[#ARGV-2] call and ARGV[#ARGV-1] id for ARGV[#ARGV] ms.
func onceScript(src string) string {
	body, ok := strings.CutSuffix(strings.TrimSpace(src), "return 1")
	if !ok {
		panic("lobby: a creating script must end with return 1")
	}
	return `
local prior = redis.call('HMGET', KEYS[#KEYS], 'c', 'i')
if prior[1] then return {prior[1], prior[2]} end
` + body + `
redis.call('HSET', KEYS[#KEYS], 'c', ARGV[#ARGV-2], 'i', ARGV[#ARGV-1])
redis.call('PEXPIRE', KEYS[#KEYS], ARGV[#ARGV])
return 1`
}

func (r *Redis) onceKey(key string) string { return r.prefix + "once:" + key }

// runOnce runs a script made by onceScript with its keys and arguments, the once's appended.
func (r *Redis) runOnce(ctx context.Context, s *redis.Script, keys []string, args []any, once Once, keep time.Duration) (res int64, prior Once, found bool, err error) {
	keys = append(keys, r.onceKey(once.Key))
	args = append(args, once.Call, once.ID, keep.Milliseconds())
	v, err := s.Run(ctx, r.rdb, keys, args...).Result()
	if err != nil {
		return 0, Once{}, false, err
	}
	switch v := v.(type) {
	case int64:
		return v, Once{}, false, nil
	case []any:
		if len(v) == 2 {
			call, _ := v[0].(string)
			id, _ := v[1].(string)
			return 0, Once{Key: once.Key, Call: call, ID: id}, true, nil
		}
	}
	return 0, Once{}, false, fmt.Errorf("unexpected answer %v", v)
}

func (r *Redis) CreateTable(ctx context.Context, t Table, ttl time.Duration) error {
	keys, args, err := r.createTableArgs(t, ttl)
	if err != nil {
		return err
	}
	n, err := createTableScript.Run(ctx, r.rdb, keys, args...).Int()
	if err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	if n == 0 {
		return ErrExists
	}
	return nil
}

func (r *Redis) CreateTableOnce(ctx context.Context, t Table, ttl time.Duration, once Once, keep time.Duration) (Once, bool, error) {
	keys, args, err := r.createTableArgs(t, ttl)
	if err != nil {
		return Once{}, false, err
	}
	n, prior, found, err := r.runOnce(ctx, createTableOnceScript, keys, args, once, keep)
	switch {
	case err != nil:
		return Once{}, false, fmt.Errorf("create table: %w", err)
	case found:
		return prior, true, nil
	case n == 0:
		return Once{}, false, ErrExists
	}
	return Once{}, false, nil
}

func (r *Redis) createTableArgs(t Table, ttl time.Duration) ([]string, []any, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return nil, nil, err
	}
	code := ""
	if t.InviteCode != "" {
		code = t.ID
	}
	return []string{r.tableKey(t.ID), r.codeKey(t.InviteCode), r.driveKey()},
		r.indexArgs(&t, data, code, ttl.Milliseconds(), owned(t.State), t.ID), nil
}

func (r *Redis) LoadTable(ctx context.Context, id string) (Table, error) {
	res, err := r.rdb.HMGet(ctx, r.tableKey(id), "d", "v").Result()
	if err != nil {
		return Table{}, fmt.Errorf("load table: %w", err)
	}
	d, ok := res[0].(string)
	if !ok {
		return Table{}, ErrNotFound
	}
	t, err := r.decoded.decode(id, d)
	if err != nil {
		return Table{}, fmt.Errorf("decode table: %w", err)
	}
	t.Version, _ = strconv.ParseUint(res[1].(string), 10, 64)
	return t, nil
}

func (r *Redis) TableByCode(ctx context.Context, code string) (string, error) {
	id, err := r.rdb.Get(ctx, r.codeKey(code)).Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("table by code: %w", err)
	}
	return id, nil
}

var updateTableScript = redis.NewScript(indexLua + `
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'd', ARGV[2], 'v', tonumber(v) + 1)
if tonumber(ARGV[3]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  if ARGV[4] == '1' then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
end
if ARGV[5] == '1' then
  redis.call('ZADD', KEYS[3], 'NX', 0, ARGV[6])
else
  redis.call('ZREM', KEYS[3], ARGV[6])
  redis.call('HDEL', KEYS[4], ARGV[6])
end
index(7)
return 1`)

func (r *Redis) UpdateTable(ctx context.Context, t Table, ttl time.Duration) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	hasCode := "0"
	if t.InviteCode != "" {
		hasCode = "1"
	}
	n, err := updateTableScript.Run(ctx, r.rdb, []string{r.tableKey(t.ID), r.codeKey(t.InviteCode), r.driveKey(), r.ownerKey()},
		r.indexArgs(&t, t.Version, data, ttl.Milliseconds(), hasCode, owned(t.State), t.ID)...).Int()
	if err != nil {
		return fmt.Errorf("update table: %w", err)
	}
	switch n {
	case -1:
		return ErrNotFound
	case 0:
		return ErrConflict
	}
	return nil
}

// ticketScript creates (ARGV[1] = 0) or updates (ARGV[1] = the expected version) a ticket and
// keeps its pool's queue in step with its state.
const ticketSrc = `
local v = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '0' then
  if v then return 0 end
  v = '0'
else
  if not v then return -1 end
  if v ~= ARGV[1] then return 0 end
end
redis.call('HSET', KEYS[1], 'd', ARGV[2], 'v', tonumber(v) + 1, 's', ARGV[3], 'tb', ARGV[4], 'p', ARGV[5],
  'n', ARGV[6], 'lo', ARGV[7], 'hi', ARGV[8], 'b', ARGV[9], 'dl', ARGV[10])
if ARGV[3] == '2' then
  redis.call('ZADD', KEYS[2], 'NX', ARGV[11], ARGV[12])
  redis.call('SADD', KEYS[3], ARGV[5])
else
  redis.call('ZREM', KEYS[2], ARGV[12])
end
if tonumber(ARGV[13]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[13]) end
return 1`

var (
	ticketScript     = redis.NewScript(ticketSrc)
	ticketOnceScript = redis.NewScript(onceScript(ticketSrc))
)

func (r *Redis) ticketArgs(t Ticket, from uint64, ttl time.Duration) ([]string, []any, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return nil, nil, err
	}
	bots := "0"
	if t.BotsMayFill {
		bots = "1"
	}
	return []string{r.ticketKey(t.ID), r.queueKey(t.Pool), r.prefix + "pools"},
		[]any{from, data, int(t.State), t.TableID, t.Pool, len(t.Players), t.MinSeats, t.MaxSeats, bots,
			t.QueuedAt.Add(t.MaxWait).UnixMilli(), t.QueuedAt.UnixMilli(), t.ID, ttl.Milliseconds()}, nil
}

func (r *Redis) CreateTicketOnce(ctx context.Context, t Ticket, once Once, keep time.Duration) (Once, bool, error) {
	keys, args, err := r.ticketArgs(t, 0, 0)
	if err != nil {
		return Once{}, false, err
	}
	n, prior, found, err := r.runOnce(ctx, ticketOnceScript, keys, args, once, keep)
	switch {
	case err != nil:
		return Once{}, false, fmt.Errorf("create ticket: %w", err)
	case found:
		return prior, true, nil
	case n == 0:
		return Once{}, false, ErrExists
	}
	return Once{}, false, nil
}

func (r *Redis) writeTicket(ctx context.Context, t Ticket, from uint64, ttl time.Duration) error {
	keys, args, err := r.ticketArgs(t, from, ttl)
	if err != nil {
		return err
	}
	n, err := ticketScript.Run(ctx, r.rdb, keys, args...).Int()
	if err != nil {
		return fmt.Errorf("write ticket: %w", err)
	}
	switch {
	case n == -1:
		return ErrNotFound
	case n == 0 && from == 0:
		return ErrExists
	case n == 0:
		return ErrConflict
	}
	return nil
}

func (r *Redis) CreateTicket(ctx context.Context, t Ticket) error { return r.writeTicket(ctx, t, 0, 0) }

func (r *Redis) UpdateTicket(ctx context.Context, t Ticket, ttl time.Duration) error {
	if t.Version == 0 {
		return ErrConflict
	}
	return r.writeTicket(ctx, t, t.Version, ttl)
}

func (r *Redis) LoadTicket(ctx context.Context, id string) (Ticket, error) {
	res, err := r.rdb.HMGet(ctx, r.ticketKey(id), "d", "v", "s", "tb").Result()
	if err != nil {
		return Ticket{}, fmt.Errorf("load ticket: %w", err)
	}
	d, ok := res[0].(string)
	if !ok {
		return Ticket{}, ErrNotFound
	}
	var t Ticket
	if err := json.Unmarshal([]byte(d), &t); err != nil {
		return Ticket{}, fmt.Errorf("decode ticket: %w", err)
	}
	t.Version, _ = strconv.ParseUint(res[1].(string), 10, 64)
	s, _ := strconv.Atoi(res[2].(string))
	t.State = TicketState(s)
	t.TableID, _ = res[3].(string)
	return t, nil
}

func (r *Redis) Pools(ctx context.Context) ([]string, error) {
	ps, err := r.rdb.SMembers(ctx, r.prefix+"pools").Result()
	if err != nil {
		return nil, fmt.Errorf("pools: %w", err)
	}
	return ps, nil
}

func (r *Redis) Waiting(ctx context.Context, pool string) (int, error) {
	ids, err := r.rdb.ZRange(ctx, r.queueKey(pool), 0, maxCandidates-1).Result()
	if err != nil {
		return 0, fmt.Errorf("waiting: %w", err)
	}
	pipe := r.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HGet(ctx, r.ticketKey(id), "n")
	}
	_, _ = pipe.Exec(ctx)
	n := 0
	for _, c := range cmds {
		v, _ := c.Int()
		n += v
	}
	return n, nil
}

// claimMatchScript is pick (lobby.go) in Lua, then the claim: the tickets marked matched, the match
// recorded (KEYS[4]) and the table put in the owned set (KEYS[3]), free to claim. ARGV: now ms,
// table id, ticket key prefix, candidates, pool, match record ttl ms.
var claimMatchScript = redis.NewScript(`
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[4]) - 1)
local now = tonumber(ARGV[1])
local group, lo, hi, n, bots, first = {}, 0, 0, 0, true, nil
local seats = nil
for _, id in ipairs(ids) do
  local f = redis.call('HMGET', ARGV[3] .. id, 'n', 'lo', 'hi', 'b', 'dl', 's')
  if f[1] and f[6] == '2' then
    local size, mn, mx = tonumber(f[1]), tonumber(f[2]), tonumber(f[3])
    if not first then first = tonumber(f[5]); lo = mn; hi = mx end
    local nlo, nhi = math.max(lo, mn), math.min(hi, mx)
    if nlo <= nhi and n + size <= nhi then
      lo, hi, n = nlo, nhi, n + size
      bots = bots and f[4] == '1'
      group[#group + 1] = id
      if n == hi then seats = n; break end
    end
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
if not seats and first and now >= first then
  if n >= lo then seats = n elseif bots then seats = lo end
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[5]) end
if not seats then return {} end
for _, id in ipairs(group) do
  redis.call('HSET', ARGV[3] .. id, 's', 3, 'tb', ARGV[2])
  redis.call('HINCRBY', ARGV[3] .. id, 'v', 1)
  redis.call('ZREM', KEYS[1], id)
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[5]) end
redis.call('HSET', KEYS[4], 's', seats, 'k', cjson.encode(group))
redis.call('PEXPIRE', KEYS[4], ARGV[6])
redis.call('ZADD', KEYS[3], 'NX', 0, ARGV[2])
local out = {tostring(seats)}
for _, id in ipairs(group) do out[#out + 1] = id end
return out`)

func (r *Redis) ClaimMatch(ctx context.Context, pool, tableID string, now time.Time) (Match, bool, error) {
	res, err := claimMatchScript.Run(ctx, r.rdb, []string{r.queueKey(pool), r.prefix + "pools", r.driveKey(), r.matchKey(tableID)},
		now.UnixMilli(), tableID, r.prefix+"k:", maxCandidates, pool, matchRetention.Milliseconds()).StringSlice()
	if err != nil {
		return Match{}, false, fmt.Errorf("claim match: %w", err)
	}
	if len(res) == 0 {
		return Match{}, false, nil
	}
	seats, _ := strconv.Atoi(res[0])
	return Match{TableID: tableID, Tickets: res[1:], Seats: seats}, true, nil
}

// matchRetention bounds how long a match record outlives its claim (DropDrive forgets it sooner):
// its table's record takes over from it once written.
const matchRetention = 24 * time.Hour

func (r *Redis) LoadMatch(ctx context.Context, tableID string) (Match, error) {
	res, err := r.rdb.HMGet(ctx, r.matchKey(tableID), "s", "k").Result()
	if err != nil {
		return Match{}, fmt.Errorf("load match: %w", err)
	}
	seats, ok1 := res[0].(string)
	tickets, ok2 := res[1].(string)
	if !ok1 || !ok2 {
		return Match{}, ErrNotFound
	}
	m := Match{TableID: tableID}
	m.Seats, _ = strconv.Atoi(seats)
	if err := json.Unmarshal([]byte(tickets), &m.Tickets); err != nil {
		return Match{}, fmt.Errorf("decode match: %w", err)
	}
	return m, nil
}

func (r *Redis) presenceKey(table string) string { return r.presence + "{" + table + "}" }

func (r *Redis) Touch(ctx context.Context, table string, seat int, now time.Time) error {
	k := r.presenceKey(table)
	pipe := r.rdb.Pipeline()
	pipe.HSet(ctx, k, strconv.Itoa(seat), now.UnixMilli())
	pipe.Expire(ctx, k, 24*time.Hour)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("touch: %w", err)
	}
	return nil
}

func (r *Redis) Presence(ctx context.Context, table string) (map[int]time.Time, error) {
	m, err := r.rdb.HGetAll(ctx, r.presenceKey(table)).Result()
	if err != nil {
		return nil, fmt.Errorf("presence: %w", err)
	}
	out := make(map[int]time.Time, len(m))
	for k, v := range m {
		seat, err1 := strconv.Atoi(k)
		ms, err2 := strconv.ParseInt(v, 10, 64)
		if err1 == nil && err2 == nil {
			out[seat] = time.UnixMilli(ms)
		}
	}
	return out, nil
}

func (r *Redis) AddDrive(ctx context.Context, table string) error {
	if err := r.rdb.ZAddNX(ctx, r.prefix+"drive", redis.Z{Score: 0, Member: table}).Err(); err != nil {
		return fmt.Errorf("add drive: %w", err)
	}
	return nil
}

func (r *Redis) DropDrive(ctx context.Context, table string) error {
	r.decoded.forget(table)
	pipe := r.rdb.TxPipeline()
	pipe.ZRem(ctx, r.driveKey(), table)
	pipe.HDel(ctx, r.ownerKey(), table)
	pipe.Del(ctx, r.matchKey(table))
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("drop drive: %w", err)
	}
	// The presence record hashes to another slot: deleted on its own (it expires anyway).
	if err := r.rdb.Del(ctx, r.presenceKey(table)).Err(); err != nil {
		return fmt.Errorf("drop drive: presence: %w", err)
	}
	return nil
}

// claimDriveScript claims up to ARGV[3] tables whose lease has run out. The claim is recorded
// under its token (KEYS[3]) for a minute, so that the same call repeated — the client retries a
// script whose answer was lost, when Redis restarts — gets the same tables instead of none (the
// first attempt already moved their leases forward).
var claimDriveScript = redis.NewScript(`
local prev = redis.call('GET', KEYS[3])
if prev then return cjson.decode(prev) end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id)
  redis.call('HSET', KEYS[2], id, ARGV[4])
end
if #ids > 0 then redis.call('SET', KEYS[3], cjson.encode(ids), 'PX', 60000) end
return ids`)

func (r *Redis) ClaimDrive(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]string, error) {
	var token [12]byte
	_, _ = rand.Read(token[:])
	ids, err := claimDriveScript.Run(ctx, r.rdb, []string{r.prefix + "drive", r.prefix + "owner", r.prefix + "claim:" + hex.EncodeToString(token[:])},
		now.UnixMilli(), now.Add(lease).UnixMilli(), limit, owner).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("claim drive: %w", err)
	}
	return ids, nil
}

// renewDriveScript extends the leases of the tables ARGV[3..] that owner ARGV[1] holds and that
// are still in the drive set to ARGV[2], and returns them: the owners in one HMGET, the leases in one
// ZMSCORE and the renewal in one ZADD, whatever the number of tables (three commands per table, one
// by one, were a third of an idle Redis's CPU with 500 tables held).
var renewDriveScript = redis.NewScript(`
local owners = redis.call('HMGET', KEYS[2], unpack(ARGV, 3))
local leases = redis.call('ZMSCORE', KEYS[1], unpack(ARGV, 3))
local out, args = {}, {}
for i = 1, #owners do
  if owners[i] == ARGV[1] and leases[i] then
    out[#out + 1] = ARGV[i + 2]
    args[#args + 1] = ARGV[2]
    args[#args + 1] = ARGV[i + 2]
  end
end
if #out > 0 then redis.call('ZADD', KEYS[1], 'XX', unpack(args)) end
return out`)

// renewBatch bounds the tables of one renewal script: Lua unpacks at most about 8,000 values.
const renewBatch = 1000

func (r *Redis) RenewDrive(ctx context.Context, owner string, tables []string, now time.Time, lease time.Duration) ([]string, error) {
	var kept []string
	until := now.Add(lease).UnixMilli()
	for batch := range slices.Chunk(tables, renewBatch) {
		args := make([]any, 0, 2+len(batch))
		args = append(args, owner, until)
		for _, t := range batch {
			args = append(args, t)
		}
		ids, err := renewDriveScript.Run(ctx, r.rdb, []string{r.prefix + "drive", r.prefix + "owner"}, args...).StringSlice()
		if err != nil {
			return nil, fmt.Errorf("renew drive: %w", err)
		}
		kept = append(kept, ids...)
	}
	return kept, nil
}
