package accounts

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis keeps accounts in Redis, shared by every gateway replica. Keys, under a prefix, with no
// expiry: gw:acct:c:{kind}:{id} (hash: p player, h secret hash, c created ms) and gw:acct:p:{player}
// (hash: n display name, c created ms), gw:acct:n:{folded name} (the player holding a display
// name, ClaimName) and gw:acct:vis (hash: player → profile visibility). A credential and its player are written by one script, so
// no credential names a player who is not recorded. Redis Cluster is not supported (the script
// writes two keys of different slots).
type Redis struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedis returns a store on rdb with keys under prefix (e.g. "cardroom:").
func NewRedis(ctx context.Context, rdb redis.UniversalClient, prefix string) (*Redis, error) {
	for _, s := range []*redis.Script{createScript, renameScript, claimNameScript, releaseNameScript} {
		if err := s.Load(ctx, rdb).Err(); err != nil {
			return nil, fmt.Errorf("load accounts script: %w", err)
		}
	}
	return &Redis{rdb: rdb, prefix: prefix + "gw:acct:"}, nil
}

func (r *Redis) credKey(kind Kind, id string) string {
	return r.prefix + "c:" + string(kind) + ":" + id
}
func (r *Redis) playerKey(id string) string { return r.prefix + "p:" + id }

// createScript writes hash KEYS[1] with the field/value pairs of ARGV unless it exists.
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`)

// Create records p (a new player id), then c unless its credential is taken; then it removes p
// again, since no credential names it.
func (r *Redis) Create(ctx context.Context, c Credential, p Player) error {
	pk := r.playerKey(p.ID)
	n, err := createScript.Run(ctx, r.rdb, []string{pk}, "n", p.DisplayName, "c", p.CreatedAt.UnixMilli()).Int()
	if err != nil {
		return fmt.Errorf("create player: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("create player: id %s is taken", p.ID)
	}
	n, err = createScript.Run(ctx, r.rdb, []string{r.credKey(c.Kind, c.ID)},
		"p", c.Player, "h", c.Hash, "c", c.CreatedAt.UnixMilli()).Int()
	if err != nil {
		return fmt.Errorf("create credential: %w", err)
	}
	if n == 0 {
		if err := r.rdb.Del(ctx, pk).Err(); err != nil {
			return fmt.Errorf("create credential: taken, and its new player not removed: %w", err)
		}
		return ErrExists
	}
	return nil
}

func (r *Redis) Credential(ctx context.Context, kind Kind, id string) (Credential, error) {
	res, err := r.rdb.HMGet(ctx, r.credKey(kind, id), "p", "h", "c").Result()
	if err != nil {
		return Credential{}, fmt.Errorf("load credential: %w", err)
	}
	p, ok := res[0].(string)
	if !ok {
		return Credential{}, ErrNotFound
	}
	h, _ := res[1].(string)
	return Credential{Kind: kind, ID: id, Player: p, Hash: h, CreatedAt: millis(res[2])}, nil
}

func (r *Redis) Player(ctx context.Context, id string) (Player, error) {
	res, err := r.rdb.HMGet(ctx, r.playerKey(id), "n", "c").Result()
	if err != nil {
		return Player{}, fmt.Errorf("load player: %w", err)
	}
	n, ok := res[0].(string)
	if !ok {
		return Player{}, ErrNotFound
	}
	return Player{ID: id, DisplayName: n, CreatedAt: millis(res[1])}, nil
}

var renameScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'n', ARGV[1])
return 1`)

func (r *Redis) Rename(ctx context.Context, id, name string) error {
	n, err := renameScript.Run(ctx, r.rdb, []string{r.playerKey(id)}, name).Int()
	if err != nil {
		return fmt.Errorf("rename player: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func millis(v any) time.Time {
	s, _ := v.(string)
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
