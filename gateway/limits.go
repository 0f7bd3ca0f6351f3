package gateway

import (
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// limiter is a token bucket per player, in this replica (a client spread over n replicas gets up
// to n times the rate; a shared limit would cost a Redis round trip per call).
type limiter struct {
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

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

func (l *limiter) allow(player string) bool {
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
// without a stream open.
func ServerOptions(o Options) []grpc.ServerOption {
	o.defaults()
	return []grpc.ServerOption{
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
