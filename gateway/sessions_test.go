package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cardroom.dev/gateway"
	"cardroom.dev/gateway/lobby"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Now()} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func key(id, secret string) gateway.SessionKey {
	return gateway.SessionKey{ID: id, Secret: []byte(secret)}
}

var (
	oldKey = key("k1", "the first key of these tests, 32+ bytes")
	newKey = key("k2", "the second key of these tests, 32+ bytes")
)

// probe is nil when the gateway accepts token: it asks for a table that does not exist, which an
// authenticated caller is told is NOT_FOUND.
func probe(t *testing.T, c gatewayv1.GatewayServiceClient, token string) error {
	t.Helper()
	_, err := c.GetTable(WithToken(t.Context(), token), &gatewayv1.GetTableRequest{TableId: "t-nosuchtable"})
	if status.Code(err) == codes.NotFound {
		return nil
	}
	if err == nil {
		t.Fatal("a table that does not exist was found")
	}
	return err
}

func signInTo(t *testing.T, c gatewayv1.GatewayServiceClient, name string) *gatewayv1.SignInResponse {
	t.Helper()
	r, err := c.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: name})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSessionKeyRequired: a gateway sharing Redis does not start without a session key, nor with
// a short one; alone (memory stores, or `cardroom serve`'s SoleReplica) it makes one.
func TestSessionKeyRequired(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	conns := map[string]grpc.ClientConnInterface{TestGame: nil}
	// New does no I/O on Redis: a client of an address where nothing listens is enough.
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = rdb.Close() })
	for _, tc := range []struct {
		name string
		opt  gateway.Options
		want string // "" when New succeeds
	}{
		{"redis, no key", gateway.Options{Redis: rdb}, "CARDROOM_SESSION_KEY"},
		{"redis, short key", gateway.Options{Redis: rdb, SessionKey: []byte("0123456789abcdef0123456789abcde")}, "at least 32"},
		{"redis, short second key", gateway.Options{Redis: rdb, SessionKeys: []gateway.SessionKey{oldKey, key("k3", "short")}}, "at least 32"},
		{"redis, same id twice", gateway.Options{Redis: rdb, SessionKeys: []gateway.SessionKey{oldKey, oldKey}}, "twice"},
		{"memory, short key", gateway.Options{SessionKey: []byte("short")}, "at least 32"},
		{"redis, key", gateway.Options{Redis: rdb, SessionKeys: []gateway.SessionKey{oldKey}}, ""},
		{"memory, no key", gateway.Options{}, ""},
		{"redis, no key, the only gateway", gateway.Options{Redis: rdb, SoleReplica: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gateway.New(tc.opt, lobby.NewMemory(), e.Bus, conns)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

func TestParseSessionKeys(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	keys, err := gateway.ParseSessionKeys("k2:" + b64(string(newKey.Secret)) + ", k1:" +
		base64.RawURLEncoding.EncodeToString(oldKey.Secret))
	if err != nil || len(keys) != 2 || keys[0].ID != "k2" || string(keys[0].Secret) != string(newKey.Secret) ||
		keys[1].ID != "k1" || string(keys[1].Secret) != string(oldKey.Secret) {
		t.Fatalf("keys %q %v", keys, err)
	}
	legacy := "a raw key as written, from before key ids"
	if keys, err := gateway.ParseSessionKeys(legacy); err != nil || len(keys) != 1 || keys[0].ID != gateway.LegacyKeyID || string(keys[0].Secret) != legacy {
		t.Fatalf("legacy %q %v", keys, err)
	}
	if keys, err := gateway.ParseSessionKeys(""); err != nil || keys != nil {
		t.Fatalf("empty %q %v", keys, err)
	}
	for _, bad := range []string{"short", "k1:" + b64("short"), "k1:not base64!", "k1:" + b64(legacy) + ",nocolon",
		"bad id:" + b64(legacy), "k1:" + b64(legacy) + ",k1:" + b64(legacy)} {
		_, err := gateway.ParseSessionKeys(bad)
		if err == nil || !strings.Contains(err.Error(), "CARDROOM_SESSION_KEY") {
			t.Errorf("%q: %v", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), legacy) {
			t.Errorf("%q: the error shows the secret: %v", bad, err)
		}
	}
}

// TestKeyRotation: two replicas share Redis; one signs with a new key while the other still has
// only the old one, then both sign with the new key and keep the old one to verify: no token is
// refused on the way but those of a key no replica has.
func TestKeyRotation(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2, PerGateway: func(i int, o *gateway.Options) {
		if i == 0 {
			o.SessionKeys = []gateway.SessionKey{oldKey}
		} else {
			o.SessionKeys = []gateway.SessionKey{newKey, oldKey}
		}
	}})
	gw0, gw1 := e.Dial(0), e.Dial(1)
	old := signInTo(t, gw0, "Ann")
	if err := probe(t, gw1, old.GetSessionToken()); err != nil {
		t.Fatalf("a token of the old key is refused by the replica with both: %v", err)
	}
	// The replica with the new key signs with it, and refreshes old tokens into new ones of the
	// same player.
	r, err := gw1.RefreshSession(WithToken(t.Context(), old.GetSessionToken()), &gatewayv1.RefreshSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.GetSessionToken(), "v2.k2.") {
		t.Fatalf("refreshed token %q is not signed with k2", r.GetSessionToken())
	}
	tb, err := gw1.CreateTable(WithToken(t.Context(), r.GetSessionToken()), &gatewayv1.CreateTableRequest{Game: TestGame})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gw1.GetTable(WithToken(t.Context(), old.GetSessionToken()), &gatewayv1.GetTableRequest{TableId: tb.GetTableId()})
	if err != nil || g.GetTable().GetOwnerPlayerId() != old.GetPlayerId() {
		t.Fatalf("the old token is not the same player: %v %v", g, err)
	}
	// The replica without the new key refuses its tokens, with a sentence that says why.
	err = probe(t, gw0, r.GetSessionToken())
	wantCode(t, err, codes.Unauthenticated, refusal.Unauthenticated)
	if !strings.Contains(status.Convert(err).Message(), "key") {
		t.Fatalf("message %q", status.Convert(err).Message())
	}
	// A token signed with a key no replica has is refused, whatever id it names.
	stranger, err := gateway.New(gateway.Options{SessionKeys: []gateway.SessionKey{key("k1", "not the k1 of the replicas, though 32+ bytes")}},
		lobby.NewMemory(), e.Bus, map[string]grpc.ClientConnInterface{TestGame: nil})
	if err != nil {
		t.Fatal(err)
	}
	forged, err := stranger.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: "Mallory"})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, probe(t, gw1, forged.GetSessionToken()), codes.Unauthenticated, refusal.Unauthenticated)
}

// TestLegacyTokens: a token of the form before key ids ("v1.") is accepted while it lasts when
// its key is still configured, and refreshed into a token of the current key.
func TestLegacyTokens(t *testing.T) {
	legacy := "test key shared by every replica"
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{SessionKeys: []gateway.SessionKey{newKey, key("old", legacy)}}})
	c := e.Dial(0)
	tok := legacyToken(t, []byte(legacy), "p-legacy", "Old", time.Now().Add(time.Hour))
	if err := probe(t, c, tok); err != nil {
		t.Fatalf("legacy token refused: %v", err)
	}
	r, err := c.RefreshSession(WithToken(t.Context(), tok), &gatewayv1.RefreshSessionRequest{})
	if err != nil || !strings.HasPrefix(r.GetSessionToken(), "v2.k2.") {
		t.Fatalf("refresh %v %v", r, err)
	}
	wantCode(t, probe(t, c, legacyToken(t, []byte(strings.Repeat("z", 32)), "p-legacy", "Old", time.Now().Add(time.Hour))),
		codes.Unauthenticated, refusal.Unauthenticated)
	wantCode(t, probe(t, c, legacyToken(t, []byte(legacy), "p-legacy", "Old", time.Now().Add(-time.Second))),
		codes.Unauthenticated, refusal.Unauthenticated)
}

// TestSessionMaxAge: refreshing keeps a session alive only up to its maximum age from sign-in.
func TestSessionMaxAge(t *testing.T) {
	clock := newTestClock()
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{SessionTTL: time.Hour, SessionMaxAge: 3 * time.Hour, Now: clock.Now}})
	c := e.Dial(0)
	in := signInTo(t, c, "Ann")
	end := in.GetExpiresAt().AsTime().Add(2 * time.Hour) // sign-in + 3h, to the second
	tok := in.GetSessionToken()
	for i := 0; ; i++ {
		clock.Add(50 * time.Minute)
		r, err := c.RefreshSession(WithToken(t.Context(), tok), &gatewayv1.RefreshSessionRequest{})
		if err != nil {
			if i < 3 {
				t.Fatalf("refresh %d refused: %v", i, err)
			}
			wantCode(t, err, codes.Unauthenticated, refusal.Unauthenticated)
			break
		}
		if r.GetExpiresAt().AsTime().After(end) {
			t.Fatalf("refresh %d expires at %v, after the maximum age's end %v", i, r.GetExpiresAt().AsTime(), end)
		}
		if i > 5 {
			t.Fatalf("refresh %d still accepted at %v, maximum age ends at %v", i, clock.Now(), end)
		}
		tok = r.GetSessionToken()
	}
	if clock.Now().Before(end) {
		t.Fatalf("refused at %v, before the maximum age's end %v", clock.Now(), end)
	}
}

// TestSignOut: a signed-out session's tokens, the refreshed ones too, are refused with
// SESSION_REVOKED; another session of the same player is not.
func TestSignOut(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{RateLimit: 1000, RateBurst: 1000}})
	c := e.Dial(0)
	in := signInTo(t, c, "Ann")
	other := signInTo(t, c, "Bob")
	r, err := c.RefreshSession(WithToken(t.Context(), in.GetSessionToken()), &gatewayv1.RefreshSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SignOut(WithToken(t.Context(), in.GetSessionToken()), &gatewayv1.SignOutRequest{}); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{in.GetSessionToken(), r.GetSessionToken()} {
		wantCode(t, probe(t, c, tok), codes.Unauthenticated, refusal.SessionRevoked)
		_, err := c.RefreshSession(WithToken(t.Context(), tok), &gatewayv1.RefreshSessionRequest{})
		wantCode(t, err, codes.Unauthenticated, refusal.SessionRevoked)
		_, err = c.SignOut(WithToken(t.Context(), tok), &gatewayv1.SignOutRequest{})
		wantCode(t, err, codes.Unauthenticated, refusal.SessionRevoked)
	}
	if err := probe(t, c, other.GetSessionToken()); err != nil {
		t.Fatalf("another session is refused: %v", err)
	}
	_, err = c.SignOut(t.Context(), &gatewayv1.SignOutRequest{})
	wantCode(t, err, codes.Unauthenticated, refusal.Unauthenticated)
}

// TestSharedSessions: two replicas sharing Redis: a token of one works on the other, and a
// sign-out on one is refused by the other within the recheck interval.
func TestSharedSessions(t *testing.T) {
	clock := newTestClock()
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2, Opt: gateway.Options{Now: clock.Now, RevocationRecheck: 5 * time.Second}})
	gw0, gw1 := e.Dial(0), e.Dial(1)
	in := signInTo(t, gw0, "Ann")
	tok := in.GetSessionToken()
	if err := probe(t, gw1, tok); err != nil {
		t.Fatalf("a token of replica 0 is refused by replica 1: %v", err)
	}
	if _, err := gw0.SignOut(WithToken(t.Context(), tok), &gatewayv1.SignOutRequest{}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, probe(t, gw0, tok), codes.Unauthenticated, refusal.SessionRevoked)
	// Replica 1 checked the session a moment ago; it asks Redis again once the interval passed.
	clock.Add(5 * time.Second)
	wantCode(t, probe(t, gw1, tok), codes.Unauthenticated, refusal.SessionRevoked)
	// The revocation is stored until the session could not be valid anyway.
	ttl, err := e.RDB.TTL(t.Context(), e.Prefix+"gw:revoked:"+sessionID(t, tok)).Result()
	if err != nil || ttl <= 0 || ttl > 12*time.Hour {
		t.Fatalf("revocation ttl %v %v", ttl, err)
	}
	// A session of replica 1 never seen before is looked up at once.
	in2 := signInTo(t, gw1, "Bob")
	if _, err := gw1.SignOut(WithToken(t.Context(), in2.GetSessionToken()), &gatewayv1.SignOutRequest{}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, probe(t, gw0, in2.GetSessionToken()), codes.Unauthenticated, refusal.SessionRevoked)
}

// TestSharedRateLimit: two replicas sharing Redis share each player's limit.
func TestSharedRateLimit(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2, Opt: gateway.Options{RateLimit: 0.001, RateBurst: 4}})
	gw := []gatewayv1.GatewayServiceClient{e.Dial(0), e.Dial(1)}
	tok := signInTo(t, gw[0], "Ann").GetSessionToken()
	for i := range 4 {
		if err := probe(t, gw[i%2], tok); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// Each replica alone saw two of the four: the shared limit refuses the fifth on both.
	for i := range 2 {
		wantCode(t, probe(t, gw[i], tok), codes.ResourceExhausted, refusal.RateLimited)
	}
	// Another player has a limit of its own.
	if err := probe(t, gw[1], signInTo(t, gw[1], "Bob").GetSessionToken()); err != nil {
		t.Fatal(err)
	}
}

// TestRateLimitWithoutRedis: when Redis does not answer, each replica limits on its own.
func TestRateLimitWithoutRedis(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	e := NewEnv(t, EnvOptions{Gateways: 2, Opt: gateway.Options{Redis: rdb, RateLimit: 0.001, RateBurst: 3}})
	gw := []gatewayv1.GatewayServiceClient{e.Dial(0), e.Dial(1)}
	tok := signInTo(t, gw[0], "Ann").GetSessionToken()
	for _, c := range gw {
		for i := range 3 {
			if err := probe(t, c, tok); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		wantCode(t, probe(t, c, tok), codes.ResourceExhausted, refusal.RateLimited)
	}
}

// TestTrustedProxies: sign-ins are limited by X-Forwarded-For's client only when the peer is a
// trusted proxy.
func TestTrustedProxies(t *testing.T) {
	loopback := netip.MustParsePrefix("127.0.0.0/8")
	e := NewEnv(t, EnvOptions{Gateways: 2, Opt: gateway.Options{RateLimit: 0.001, RateBurst: 2}, PerGateway: func(i int, o *gateway.Options) {
		if i == 0 {
			o.TrustedProxies = []netip.Prefix{loopback}
		}
	}})
	signIn := func(c gatewayv1.GatewayServiceClient, xff ...string) error {
		ctx := t.Context()
		for _, x := range xff {
			ctx = metadata.AppendToOutgoingContext(ctx, "x-forwarded-for", x)
		}
		_, err := c.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: "Ann"})
		return err
	}
	trusting, other := e.Dial(0), e.Dial(1)
	// Behind the trusted proxy, each client has its own limit, whatever it wrote on the left.
	for i := range 2 {
		if err := signIn(trusting, "198.51.100.7, 203.0.113.5"); err != nil {
			t.Fatalf("sign-in %d: %v", i, err)
		}
	}
	wantCode(t, signIn(trusting, "10.9.9.9, 203.0.113.5"), codes.ResourceExhausted, refusal.RateLimited)
	wantCode(t, signIn(trusting, "203.0.113.5:5555"), codes.ResourceExhausted, refusal.RateLimited)
	if err := signIn(trusting, "203.0.113.6", "127.0.0.1"); err != nil {
		t.Fatalf("another client behind the proxy: %v", err)
	}
	// A replica that trusts no proxy limits the peer, whatever the header says.
	for i := range 2 {
		if err := signIn(other, "203.0.113.1"); err != nil {
			t.Fatalf("sign-in %d: %v", i, err)
		}
	}
	wantCode(t, signIn(other, "203.0.113.2"), codes.ResourceExhausted, refusal.RateLimited)
}

// legacyToken makes a token of the form before key ids, as the gateway signed it then.
func legacyToken(t *testing.T, key []byte, player, name string, exp time.Time) string {
	t.Helper()
	p := base64.RawURLEncoding.EncodeToString([]byte(`{"p":"` + player + `","n":"` + name + `","e":` + strconv.FormatInt(exp.Unix(), 10) + `}`))
	return "v1." + p + "." + base64.RawURLEncoding.EncodeToString(hmacSHA256(key, "v1."+p))
}

// sessionID reads the session id of a token.
func sessionID(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(raw), `"s":"`)
	id, _, _ := strings.Cut(after, `"`)
	if id == "" {
		t.Fatalf("no session id in %s", raw)
	}
	return id
}

func hmacSHA256(key []byte, signed string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(signed))
	return m.Sum(nil)
}

// TestTrustedProxiesOverHTTP: a browser's call (Connect over HTTP) behind a trusted proxy is
// limited by the X-Forwarded-For header's client.
func TestTrustedProxiesOverHTTP(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{RateLimit: 0.001, RateBurst: 1,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}})
	url := "http://" + serveBrowsers(t, e) + svcPath + "SignIn"
	signIn := func(xff string) int {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"displayName":"Ann"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Connect-Protocol-Version", "1")
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if got := signIn("203.0.113.5"); got != http.StatusOK {
		t.Fatalf("first sign-in: HTTP %d", got)
	}
	if got := signIn("203.0.113.5"); got != http.StatusTooManyRequests {
		t.Fatalf("second sign-in of the same client: HTTP %d", got)
	}
	if got := signIn("203.0.113.6"); got != http.StatusOK {
		t.Fatalf("another client: HTTP %d", got)
	}
}
