package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/status"
)

// revocations are the signed-out sessions. Every replica keeps those it revoked or saw revoked in
// memory (checked at every call, no I/O); in the distributed mode they are also stored in Redis
// (key <prefix>gw:revoked:<session id>, expiring when the session would), where a replica looks a
// session up at most once per recheck interval: a sign-out is refused at once by the replica that
// served it and within the interval by the others.
type revocations struct {
	rdb     redis.UniversalClient // nil: this process only
	prefix  string
	recheck time.Duration
	log     *slog.Logger
	onError func(context.Context)

	local sync.Map // session id → time.Time when its revocation may be forgotten
	mu    sync.Mutex
	swept time.Time
	// down is when Redis last failed to answer (unix nanos; 0: up).
	down atomic.Int64
}

func newRevocations(rdb redis.UniversalClient, prefix string, recheck time.Duration, log *slog.Logger, onError func(context.Context)) *revocations {
	return &revocations{rdb: rdb, prefix: prefix + "gw:revoked:", recheck: recheck, log: log, onError: onError}
}

// revoke records that session id is signed out until until (after which none of its tokens is
// valid anyway).
func (r *revocations) revoke(ctx context.Context, id string, now, until time.Time) error {
	r.remember(id, now, until)
	if r.rdb == nil {
		return nil
	}
	ttl := until.Sub(now)
	if ttl < time.Second {
		ttl = time.Second
	}
	if err := r.rdb.Set(ctx, r.prefix+id, 1, ttl).Err(); err != nil {
		return fmt.Errorf("record sign-out: %w", err)
	}
	return nil
}

func (r *revocations) remember(id string, now, until time.Time) {
	r.local.Store(id, until)
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.swept) > time.Minute {
		r.local.Range(func(k, u any) bool {
			if !now.Before(u.(time.Time)) {
				r.local.Delete(k)
			}
			return true
		})
		r.swept = now
	}
}

// check refuses a revoked session: from memory, and from Redis when the token's last look there is
// older than the recheck interval. When Redis does not answer (within sharedTimeout) the token is
// let through (the lobby store, on the same Redis, refuses the call's real work then anyway), and
// Redis is asked again a second later.
func (r *revocations) check(ctx context.Context, vt *verifiedToken, now time.Time) error {
	if _, revoked := r.local.Load(vt.sess.ID); revoked {
		return sessionRevoked()
	}
	if r.rdb == nil || now.UnixNano()-vt.checked.Load() < int64(r.recheck) {
		return nil
	}
	if d := r.down.Load(); d != 0 && now.UnixNano()-d < int64(time.Second) {
		r.onError(ctx)
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, sharedTimeout)
	n, err := r.rdb.Exists(cctx, r.prefix+vt.sess.ID).Result()
	cancel()
	switch {
	case err != nil && ctx.Err() != nil:
		return status.FromContextError(ctx.Err()).Err()
	case err != nil:
		r.onError(ctx)
		if r.down.Swap(now.UnixNano()) == 0 {
			r.log.WarnContext(ctx, "sign-outs unavailable: sessions accepted unchecked until Redis answers", slog.Any("error", err))
		}
		return nil
	}
	if r.down.Load() != 0 && r.down.Swap(0) != 0 {
		r.log.InfoContext(ctx, "sign-outs available again")
	}
	if n > 0 {
		r.remember(vt.sess.ID, now, vt.sess.Expires)
		return sessionRevoked()
	}
	vt.checked.Store(now.UnixNano())
	return nil
}
