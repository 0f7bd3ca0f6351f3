package gateway

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"cardroom.dev/services/kit/app"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// limiter limits each key's requests (a player's calls, an address's sign-ins): a token bucket
// per key in this replica, and, in the distributed mode, the same limit shared by every replica in
// Redis (redis_rate's GCRA, key rate:<prefix>gw:rl:<key>). A call passes when both allow it; the
// local bucket is asked first, so a client over its limit costs no Redis round trip. When Redis
// does not answer, the local bucket alone decides (fails open to the per-replica limit) until
// Redis answers again, tried at most once a second; each such call is counted in
// cardroom.gateway.rate_limit_fallbacks and the first of each outage logged.
type limiter struct {
	local  *localLimiter
	shared *redis_rate.Limiter // nil: this replica only
	limit  redis_rate.Limit
	prefix string
	now    func() time.Time
	log    *slog.Logger
	onFall func(context.Context)

	// down is when Redis last failed (unix nanos; 0: up).
	down atomic.Int64
}

// sharedTimeout bounds one look-up of the shared limit; past it the call is judged locally.
const sharedTimeout = 250 * time.Millisecond

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{local: newLocalLimiter(rate, burst, now), now: now, log: slog.Default(), onFall: func(context.Context) {}}
}

// share makes the limit shared through rdb, with keys under prefix.
func (l *limiter) share(rdb redis.UniversalClient, prefix string, log *slog.Logger, onFall func(context.Context)) {
	if l.local.rate < 0 {
		return
	}
	// redis_rate counts whole events per period: the rate per hour keeps fractional rates.
	l.shared = redis_rate.NewLimiter(rdb)
	l.limit = redis_rate.Limit{Rate: max(1, int(math.Round(l.local.rate*3600))), Burst: int(l.local.burst), Period: time.Hour}
	l.prefix = prefix + "gw:rl:"
	l.log, l.onFall = log, onFall
}

func (l *limiter) allow(ctx context.Context, key string) bool {
	if !l.local.allow(key) {
		return false
	}
	if l.shared == nil {
		return true
	}
	now := l.now().UnixNano()
	if d := l.down.Load(); d != 0 && now-d < int64(time.Second) {
		l.onFall(ctx)
		return true
	}
	cctx, cancel := context.WithTimeout(ctx, sharedTimeout)
	res, err := l.shared.Allow(cctx, l.prefix+key, l.limit)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return true // the caller left; its call fails on its own
		}
		if l.down.Swap(now) == 0 {
			l.log.WarnContext(ctx, "shared rate limit unavailable: limiting per replica until Redis answers", slog.Any("error", err))
		}
		l.onFall(ctx)
		return true
	}
	if l.down.Load() != 0 && l.down.Swap(0) != 0 {
		l.log.InfoContext(ctx, "shared rate limit available again")
	}
	return res.Allowed > 0
}

// localLimiter is a token bucket per key, in this replica.
type localLimiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLocalLimiter(rate float64, burst int, now func() time.Time) *localLimiter {
	return &localLimiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

func (l *localLimiter) allow(player string) bool {
	if l.rate < 0 {
		return true
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		// Forget the players whose bucket has refilled: they cost nothing to recreate.
		for p, b := range l.buckets {
			if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
				delete(l.buckets, p)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[player]
	if !ok {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[player] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// ServerOptions are the options of the gRPC server the gateway is served on (o as given to New).
// gRPC's own receive limit is raised well above the gateway's (MaxRequestBytes): a request over
// the gateway's limit is then read and refused by the gateway, INVALID_ARGUMENT with
// REQUEST_TOO_LARGE, rather than by gRPC with a bare RESOURCE_EXHAUSTED. gRPC refuses a message
// over its limit from the length before reading it and writes that status itself, before any
// handler or interceptor sees the error, so the gateway cannot answer it: only beyond
// recvCeiling, which bounds what one request may hold in memory, is the refusal gRPC's.
//
// Connections are also closed at o.MaxConnectionAge (see Options), and kept alive: a ping after
// 30 s without traffic, the connection dropped when it goes unanswered for 10 s (a client gone
// without closing, a NAT that forgot the flow); clients may ping as often as every 10 s, with or
// without a stream open. The codec is app.Codec, which Watch's pre-encoded responses need, lenient
// with requests that do not decode (decoding.go).
func ServerOptions(o Options) []grpc.ServerOption {
	o.defaults()
	return []grpc.ServerOption{
		// Watch sends responses it encoded itself (app.Encoded), which only this codec sends; a
		// request that does not decode is the handler's to refuse (decoding.go).
		grpc.ForceServerCodecV2(lenientCodec{app.Codec}),
		grpc.MaxRecvMsgSize(recvCeiling(o.MaxRequestBytes)),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionAge:      o.MaxConnectionAge,
			MaxConnectionAgeGrace: o.MaxConnectionAgeGrace,
			Time:                  30 * time.Second,
			Timeout:               10 * time.Second,
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
	}
}

// recvCeiling is gRPC's receive limit for a gateway whose own is limit: gRPC's default (4 MiB),
// or four times the gateway's when that is larger.
func recvCeiling(limit int) int {
	return max(4<<20, 4*limit)
}
