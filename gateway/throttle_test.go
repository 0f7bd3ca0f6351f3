package gateway_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway"
	. "cardroom.dev/gateway/gatewaytest"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// from is ctx as a call relayed by the trusted proxy for a client at addr.
func from(ctx context.Context, addr string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "x-forwarded-for", addr)
}

// retryDelay is the RetryInfo of a refusal.
func retryDelay(t *testing.T, err error) time.Duration {
	t.Helper()
	for _, d := range status.Convert(err).Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			return r.GetRetryDelay().AsDuration()
		}
	}
	t.Fatalf("no RetryInfo in %v", err)
	return 0
}

// TestSignInThrottle: failed password sign-ins slow the next ones from the same address, per user
// name (after 5) and in all (after 20), doubling the wait at each failure, on every replica; the
// player signs in from their own address all the while; a success starts the name's count over.
func TestSignInThrottle(t *testing.T) {
	for _, redis := range []bool{false, true} {
		t.Run(fmt.Sprintf("redis=%v", redis), func(t *testing.T) {
			clock := newFakeClock()
			gws := 1
			if redis {
				gws = 2 // failures counted on one replica slow the next guess on the other
			}
			e := NewEnv(t, EnvOptions{Redis: redis, Gateways: gws, Opt: gateway.Options{Now: clock.Now,
				TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}})
			gw := func(i int) gatewayv1.GatewayServiceClient { return e.Dial(i % gws) }
			const pw = "correct horse battery"
			ann, mallory := "203.0.113.1", "198.51.100.9"
			ctx := t.Context()
			signInAs(t, gw(0), password("ann", pw, "Ann", true), true, "Ann")
			for i := range 5 {
				_, err := gw(i).SignIn(from(ctx, mallory), password("ann", fmt.Sprint("guess ", i), "", false))
				wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
			}
			// Now even the right password waits, from the guesser's address.
			_, err := gw(1).SignIn(from(ctx, mallory), password("ann", pw, "", false))
			wantCode(t, err, codes.ResourceExhausted, refusal.SignInThrottled)
			if d := retryDelay(t, err); d != time.Second {
				t.Fatalf("retry after %s, want 1s", d)
			}
			// Ann, from her address, is not locked out.
			if _, err := gw(1).SignIn(from(ctx, ann), password("ann", pw, "", false)); err != nil {
				t.Fatalf("ann from her own address: %v", err)
			}
			// Each further failure doubles the wait.
			for i, want := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second} {
				clock.Advance(retryDelay(t, err))
				_, err = gw(i).SignIn(from(ctx, mallory), password("ann", "guess again", "", false))
				wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
				_, err = gw(i+1).SignIn(from(ctx, mallory), password("ann", "guess again", "", false))
				wantCode(t, err, codes.ResourceExhausted, refusal.SignInThrottled)
				if d := retryDelay(t, err); d != want {
					t.Fatalf("failure %d: retry after %s, want %s", 6+i, d, want)
				}
			}
			// Other names from the same address: 20 failures in all, then the address waits.
			clock.Advance(time.Minute)
			for i := 8; i < 20; i++ {
				_, err := gw(i).SignIn(from(ctx, mallory), password(fmt.Sprint("user", i), "guess", "", false))
				wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
			}
			_, err = gw(0).SignIn(from(ctx, mallory), password("someone", "guess", "", false))
			wantCode(t, err, codes.ResourceExhausted, refusal.SignInThrottled)
			// Guests and devices from that address are not throttled.
			if _, err := gw(1).SignIn(from(ctx, mallory), &gatewayv1.SignInRequest{DisplayName: "Guest"}); err != nil {
				t.Fatalf("a guest from a throttled address: %v", err)
			}
			// A success from an address starts its count for the name over.
			bob := "192.0.2.44"
			signInAs(t, gw(0), password("bob", pw, "Bob", true), true, "Bob")
			for i := range 4 {
				_, err := gw(i).SignIn(from(ctx, bob), password("bob", "typo", "", false))
				wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
			}
			if _, err := gw(1).SignIn(from(ctx, bob), password("bob", pw, "", false)); err != nil {
				t.Fatalf("bob's fifth try, the right password: %v", err)
			}
			for i := range 4 {
				_, err := gw(i).SignIn(from(ctx, bob), password("bob", "typo", "", false))
				wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
			}
			if _, err := gw(1).SignIn(from(ctx, bob), password("bob", pw, "", false)); err != nil {
				t.Fatalf("bob after 4 more typos: %v", err)
			}
		})
	}
}

// TestThrottleCountsNameTaken: registering a taken name checks its password, so it counts as a guess.
func TestThrottleCountsNameTaken(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}})
	gw := e.Dial(0)
	ctx := from(t.Context(), "198.51.100.10")
	signInAs(t, gw, password("cid", "correct horse battery", "Cid", true), true, "Cid")
	for i := range 5 {
		_, err := gw.SignIn(ctx, password("cid", fmt.Sprint("guess number ", i), "", true))
		wantCode(t, err, codes.AlreadyExists, refusal.NameTaken)
	}
	_, err := gw.SignIn(ctx, password("cid", "correct horse battery", "", true))
	wantCode(t, err, codes.ResourceExhausted, refusal.SignInThrottled)
}

// BenchmarkSignInDuringBruteForce measures a player's sign-ins with the correct password, at the
// default argon2 parameters, while 16 callers guess another name's password as fast as they are
// answered (refused ones pace themselves at 20 calls a second): from one address, and from 16; the
// player signing in back to back, and pausing half a second between sign-ins (when the hashers are
// free for guesses). Each operation is one sign-in of the player; it reports their p50, p99 and max
// (docs/reliability.md records them), and the same sign-in alone, before the guessing, as
// alone-ms. Run it with a fixed count, e.g. -benchtime 40x.
func BenchmarkSignInDuringBruteForce(b *testing.B) {
	for _, v := range []struct {
		sources int
		pause   time.Duration
	}{{1, 0}, {16, 0}, {1, 500 * time.Millisecond}, {16, 500 * time.Millisecond}} {
		sources := v.sources
		b.Run(fmt.Sprintf("sources=%d/pause=%s", sources, v.pause), func(b *testing.B) {
			e := NewEnv(b, EnvOptions{Opt: gateway.Options{Argon2: gateway.DefaultArgon2,
				TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}})
			gw := e.Dial(0)
			const pw = "correct horse battery"
			bg := context.Background()
			for _, name := range []string{"victim", "player"} {
				if _, err := gw.SignIn(bg, password(name, pw, name, true)); err != nil {
					b.Fatal(err)
				}
			}
			signIn := func() time.Duration {
				start := time.Now()
				if _, err := gw.SignIn(from(bg, "192.0.2.1"), password("player", pw, "", false)); err != nil {
					b.Fatalf("the player's sign-in: %v", err)
				}
				return time.Since(start)
			}
			// The same sign-in alone first: the machine's own cost of a hash.
			var alone []time.Duration
			for range 5 {
				alone = append(alone, signIn())
			}
			slices.Sort(alone)
			ctx, stop := context.WithCancel(bg)
			var wg sync.WaitGroup
			var guesses, throttled, refused atomic.Int64
			for g := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					addr := fmt.Sprintf("198.51.100.%d", 1+g%sources)
					for i := 0; ctx.Err() == nil; i++ {
						_, err := gw.SignIn(from(ctx, addr), password("victim", fmt.Sprintf("guess %d-%d", g, i), "", false))
						switch refusal.Code(err) {
						case refusal.BadCredential:
							guesses.Add(1)
							continue
						case refusal.SignInThrottled:
							throttled.Add(1)
						default:
							refused.Add(1)
						}
						// Refused: the guesser ignores the RetryInfo but paces itself at 20 calls
						// a second, so that its own processor time (the server's here, in the same
						// process) does not stand for the server's work.
						select {
						case <-ctx.Done():
						case <-time.After(50 * time.Millisecond):
						}
					}
				}()
			}
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				took = append(took, signIn())
				if v.pause > 0 {
					// Time between the player's sign-ins, when the hashers are free for guesses.
					b.StopTimer()
					time.Sleep(v.pause)
					b.StartTimer()
				}
			}
			b.StopTimer()
			stop()
			wg.Wait()
			slices.Sort(took)
			p := func(q float64) time.Duration { return took[min(len(took)-1, int(q*float64(len(took))))] }
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(alone[len(alone)/2]), "alone-ms")
			b.ReportMetric(ms(p(0.5)), "p50-ms")
			b.ReportMetric(ms(p(0.99)), "p99-ms")
			b.ReportMetric(ms(took[len(took)-1]), "max-ms")
			b.ReportMetric(float64(guesses.Load()), "guesses-checked")
			b.ReportMetric(float64(throttled.Load()), "guesses-throttled")
		})
	}
}
