package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/refusal"
	"github.com/redis/go-redis/v9"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// backoffRule is how failures at one key slow the next attempt: the first free failures cost
// nothing; each one after doubles the wait, from base up to most. A key's failures are forgotten
// forget after its last.
type backoffRule struct {
	free       int
	base, most time.Duration
	forget     time.Duration
}

// delay is the wait after n failures.
func (r backoffRule) delay(n int) time.Duration {
	if n < r.free {
		return 0
	}
	d := r.base
	for i := r.free; i < n && d < r.most; i++ {
		d *= 2
	}
	return min(d, r.most)
}

// The rules of password sign-ins. A user name from one address may fail 5 times freely, then waits
// 1 s, 2 s, 4 s, … up to 15 minutes between guesses; an address, whatever the names it tries
// (a household or an office behind one NAT shares it), may fail 20 times, then waits likewise.
// Neither locks a player out: the player's own address has its own count for their name, and a
// correct password from any address not waiting signs in.
var (
	pairRule   = backoffRule{free: 5, base: time.Second, most: 15 * time.Minute, forget: 24 * time.Hour}
	sourceRule = backoffRule{free: 20, base: time.Second, most: 15 * time.Minute, forget: 24 * time.Hour}
)

// accountForget is how long a name's failures from any address are remembered. They never make a
// sign-in wait (anyone could lock a player out with them); they only send the name's sign-ins to
// the suspects' lane for its hash, so that a guessing campaign from many addresses at one name
// takes one hasher at most.
const accountForget = time.Hour

// maxInFlightPerSource bounds the password checks one address has under way in a replica at once:
// the rest of its sign-ins are refused at once rather than queued for the hashers, so that one
// address cannot fill the hashers' queue ahead of everyone else.
const maxInFlightPerSource = 2

// throttle slows password guessing (see docs/api.md, "Sign-in throttling"). Failures are counted
// per (user name, source address) and per source address, in this replica and, when it has Redis,
// in Redis too, shared by every replica (keys <prefix>gw:fail:<key>, a hash: n failures, t the last
// in ms, expiring forget after the last). Failures per user name from any address are counted as
// well, to send the name's attempts to the suspects' lane (identity.acquire), never to wait. A key's wait is the longer of the two counts' (the local
// count covers a Redis outage, as the rate limiter's does).
type throttle struct {
	now   func() time.Time
	local *localFailures

	rdb    redis.UniversalClient // nil: this replica only
	prefix string
	log    *slog.Logger
	onFall func(context.Context)
	down   atomic.Int64 // when Redis last failed (unix nanos; 0: up)

	mu       sync.Mutex
	inFlight map[string]int // source → password checks under way
}

func newThrottle(now func() time.Time) *throttle {
	return &throttle{now: now, local: &localFailures{m: map[string]failures{}}, log: slog.Default(),
		onFall: func(context.Context) {}, inFlight: map[string]int{}}
}

// share makes the failure counts shared through rdb, with keys under prefix.
func (th *throttle) share(rdb redis.UniversalClient, prefix string, log *slog.Logger, onFall func(context.Context)) {
	th.rdb, th.prefix, th.log, th.onFall = rdb, prefix+"gw:fail:", log, onFall
}

// attempt is one password sign-in's keys.
type attempt struct {
	pair, source, account string
}

// sourceKey is the key of an address: an IPv6 address by its /64, which one host or household
// usually has whole; "" (an unknown peer) is one source.
func sourceKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return "src:" + addr
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return "src:" + p.String()
	}
	return "src:" + a.String()
}

func newAttempt(user, addr string) attempt {
	src := sourceKey(addr)
	return attempt{pair: "pw:" + user + "|" + src, source: src, account: "acct:" + user}
}

// failures are a key's count and when the last happened.
type failures struct {
	n    int
	last time.Time
}

func (f failures) until(r backoffRule) time.Time {
	if f.n == 0 {
		return time.Time{}
	}
	return f.last.Add(r.delay(f.n))
}

// begin checks that a attempt may go on now: refused (RESOURCE_EXHAUSTED, SIGN_IN_THROTTLED, with
// a RetryInfo) while either of its keys waits, or while its source has maxInFlightPerSource checks
// under way. On success the caller calls the returned done with the outcome (ok: signed in;
// counted: a wrong password or user name, counted as a failure). sus grades the attempt for the
// hash gate: suspect when failures are counted against its source or pair, or its source has
// another attempt under way; mild when only its name has failures, or another attempt under way.
func (th *throttle) begin(ctx context.Context, a attempt) (done func(ctx context.Context, ok, counted bool), sus suspicion, err error) {
	now := th.now()
	pair, source, account := th.load(ctx, a)
	if wait := max(pair.until(pairRule).Sub(now), source.until(sourceRule).Sub(now)); wait > 0 {
		// Whole seconds, rounded up: the shared counts keep milliseconds.
		if r := wait % time.Second; r != 0 {
			wait += time.Second - r
		}
		return nil, ordinary, throttled(wait, "too many failed sign-ins; try again in %s", wait)
	}
	th.mu.Lock()
	if th.inFlight[a.source] >= maxInFlightPerSource {
		th.mu.Unlock()
		return nil, ordinary, throttled(time.Second, "other sign-ins from this address are being checked; try again in a moment")
	}
	// Concurrent attempts at one name, or from one address, are suspect too: the first of a
	// burst of guesses from many addresses at one name is the only one in the common lane.
	switch {
	case th.inFlight[a.source] > 0 || pair.n > 0 || source.n > 0:
		sus = suspect
	case th.inFlight[a.account] > 0 || account.n > 0:
		sus = mild
	}
	th.inFlight[a.source]++
	th.inFlight[a.account]++
	th.mu.Unlock()
	return func(ctx context.Context, ok, counted bool) {
		th.mu.Lock()
		for _, k := range []string{a.source, a.account} {
			if th.inFlight[k]--; th.inFlight[k] <= 0 {
				delete(th.inFlight, k)
			}
		}
		th.mu.Unlock()
		switch {
		case ok:
			// The pair's count starts over; the source's does not (an address may hold an account
			// of its own to sign in to between guesses at others).
			th.clear(ctx, a.pair)
		case counted:
			th.fail(ctx, a)
		}
	}, sus, nil
}

func throttled(wait time.Duration, format string, args ...any) error {
	st := status.New(codes.ResourceExhausted, fmt.Sprintf(format, args...))
	if d, err := st.WithDetails(&gamev1.RuleViolation{Code: refusal.SignInThrottled, Message: st.Message()}, &errdetails.RetryInfo{RetryDelay: durationpb.New(wait)}); err == nil {
		return d.Err()
	}
	return st.Err()
}

// load reads the counts of a's keys: the local ones, raised to Redis's where they are higher.
func (th *throttle) load(ctx context.Context, a attempt) (pair, source, account failures) {
	now := th.now()
	pair, source, account = th.local.get(a.pair, now), th.local.get(a.source, now), th.local.get(a.account, now)
	if !th.shared(ctx) {
		return pair, source, account
	}
	cctx, cancel := context.WithTimeout(ctx, sharedTimeout)
	defer cancel()
	pipe := th.rdb.Pipeline()
	p := pipe.HMGet(cctx, th.prefix+a.pair, "n", "t")
	s := pipe.HMGet(cctx, th.prefix+a.source, "n", "t")
	c := pipe.HMGet(cctx, th.prefix+a.account, "n", "t")
	if _, err := pipe.Exec(cctx); err != nil && err != redis.Nil {
		th.failed(ctx, err)
		return pair, source, account
	}
	th.up(ctx)
	return higher(pair, sharedFailures(p.Val())), higher(source, sharedFailures(s.Val())), higher(account, sharedFailures(c.Val()))
}

func higher(a, b failures) failures {
	if b.n > a.n {
		return b
	}
	return a
}

func sharedFailures(v []any) failures {
	if len(v) != 2 {
		return failures{}
	}
	ns, _ := v[0].(string)
	ts, _ := v[1].(string)
	n, _ := strconv.Atoi(ns)
	t, _ := strconv.ParseInt(ts, 10, 64)
	return failures{n: n, last: time.UnixMilli(t)}
}

// failScript counts a failure at KEYS[1] at ARGV[1] (ms), forgotten ARGV[2] ms later. It is sent
// whole (EVAL) in a pipeline, where a missing script could not be loaded and retried.
var failScript = redis.NewScript(`
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 't', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`)

func (th *throttle) fail(ctx context.Context, a attempt) {
	now := th.now()
	th.local.add(a.pair, now, pairRule.forget)
	th.local.add(a.source, now, sourceRule.forget)
	th.local.add(a.account, now, accountForget)
	if !th.shared(ctx) {
		return
	}
	// The caller's cancellation must not leave a failure uncounted.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedTimeout)
	defer cancel()
	pipe := th.rdb.Pipeline()
	failScript.Eval(cctx, pipe, []string{th.prefix + a.pair}, now.UnixMilli(), pairRule.forget.Milliseconds())
	failScript.Eval(cctx, pipe, []string{th.prefix + a.source}, now.UnixMilli(), sourceRule.forget.Milliseconds())
	failScript.Eval(cctx, pipe, []string{th.prefix + a.account}, now.UnixMilli(), accountForget.Milliseconds())
	if _, err := pipe.Exec(cctx); err != nil {
		th.failed(ctx, err)
		return
	}
	th.up(ctx)
}

func (th *throttle) clear(ctx context.Context, key string) {
	th.local.clear(key)
	if !th.shared(ctx) {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedTimeout)
	defer cancel()
	if err := th.rdb.Del(cctx, th.prefix+key).Err(); err != nil {
		th.failed(ctx, err)
	}
}

// shared reports whether Redis is to be asked: configured and not failed in the last second.
func (th *throttle) shared(ctx context.Context) bool {
	if th.rdb == nil {
		return false
	}
	if d := th.down.Load(); d != 0 && th.now().UnixNano()-d < int64(time.Second) {
		th.onFall(ctx)
		return false
	}
	return true
}

func (th *throttle) failed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	if th.down.Swap(th.now().UnixNano()) == 0 {
		th.log.WarnContext(ctx, "shared sign-in failures unavailable: counting per replica until Redis answers", slog.Any("error", err))
	}
	th.onFall(ctx)
}

func (th *throttle) up(ctx context.Context) {
	if th.down.Load() != 0 && th.down.Swap(0) != 0 {
		th.log.InfoContext(ctx, "shared sign-in failures available again")
	}
}

// localFailures are failure counts in this replica, forgotten after their rule's forget time.
type localFailures struct {
	mu    sync.Mutex
	m     map[string]failures
	until map[string]time.Time
	swept time.Time
}

func (l *localFailures) get(key string, now time.Time) failures {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u, ok := l.until[key]; ok && !now.Before(u) {
		return failures{}
	}
	return l.m[key]
}

func (l *localFailures) add(key string, now time.Time, forget time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.until == nil {
		l.until = map[string]time.Time{}
	}
	if now.Sub(l.swept) > time.Minute {
		for k, u := range l.until {
			if !now.Before(u) {
				delete(l.m, k)
				delete(l.until, k)
			}
		}
		l.swept = now
	}
	f := l.m[key]
	if u, ok := l.until[key]; ok && !now.Before(u) {
		f = failures{}
	}
	l.m[key] = failures{n: f.n + 1, last: now}
	l.until[key] = now.Add(forget)
}

func (l *localFailures) clear(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, key)
	delete(l.until, key)
}
