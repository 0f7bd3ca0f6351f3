package gateway

import (
	"context"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"cardroom.dev/services/kit/testenv"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

func testSessions(t testing.TB) *sessions {
	t.Helper()
	rv := newRevocations(nil, "", 0, slog.Default(), func(context.Context) {})
	return newSessions([]SessionKey{{ID: "k1", Secret: []byte("a key of the internal tests, 32+ bytes")}},
		time.Hour, 24*time.Hour, time.Now, rv)
}

// TestCheckAllocations: checking a token already seen (every call after a client's first) allocates
// nothing: a map look-up for the signature, one for sign-outs, and the clock.
func TestCheckAllocations(t *testing.T) {
	ss := testSessions(t)
	tok, _ := ss.issue("p-1", "Ann")
	ctx := context.Background()
	if _, err := ss.check(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() { _, _ = ss.check(ctx, tok) }); n != 0 {
		t.Fatalf("%v allocations per check", n)
	}
	l := newLimiter(1e9, 1e9, time.Now)
	l.allow(ctx, "p-1")
	if n := testing.AllocsPerRun(1000, func() { l.allow(ctx, "p-1") }); n != 0 {
		t.Fatalf("%v allocations per local limit", n)
	}
}

func BenchmarkCheck(b *testing.B) {
	ss := testSessions(b)
	tok, _ := ss.issue("p-1", "Ann")
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := ss.check(ctx, tok); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, tc := range []struct {
		peer    string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{"203.0.113.9:4000", []string{"198.51.100.1"}, trusted, "203.0.113.9"}, // not from a proxy
		{"10.1.1.1:4000", []string{"198.51.100.1"}, nil, "10.1.1.1"},           // no proxy trusted
		{"10.1.1.1:4000", nil, trusted, "10.1.1.1"},                            // a proxy that says nothing
		{"10.1.1.1:4000", []string{"198.51.100.1"}, trusted, "198.51.100.1"},
		{"10.1.1.1:4000", []string{"6.6.6.6, 198.51.100.1, 10.2.2.2"}, trusted, "198.51.100.1"},
		{"10.1.1.1:4000", []string{"6.6.6.6", "198.51.100.1", "10.2.2.2"}, trusted, "198.51.100.1"},
		{"10.1.1.1:4000", []string{"10.3.3.3, 10.2.2.2"}, trusted, "10.3.3.3"},               // only proxies
		{"10.1.1.1:4000", []string{"garbage, 198.51.100.1"}, trusted, "198.51.100.1"},        // garbage left of the client
		{"10.1.1.1:4000", []string{"198.51.100.1, garbage"}, trusted, "10.1.1.1"},            // a proxy passed garbage
		{"10.1.1.1:4000", []string{"198.51.100.1:5555"}, trusted, "198.51.100.1"},            // with a port
		{"[fd00::1]:4000", []string{"[2001:db8::7]:443"}, trusted, "2001:db8::7"},            // IPv6
		{"[::ffff:10.1.1.1]:4000", []string{"::ffff:198.51.100.1"}, trusted, "198.51.100.1"}, // mapped
	} {
		ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: tcpAddr(t, tc.peer)})
		if tc.xff != nil {
			md := metadata.MD{}
			for _, x := range tc.xff {
				md.Append("x-forwarded-for", x)
			}
			ctx = metadata.NewIncomingContext(ctx, md)
		}
		if got := clientAddr(ctx, tc.trusted); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %q, want %q", tc.peer, tc.xff, got, tc.want)
		}
	}
	if got := clientAddr(context.Background(), trusted); got != "" {
		t.Errorf("no peer: %q", got)
	}
}

func tcpAddr(t *testing.T, s string) *netAddr {
	t.Helper()
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		t.Fatal(err)
	}
	return &netAddr{ap}
}

type netAddr struct{ netip.AddrPort }

func (netAddr) Network() string { return "tcp" }

func TestParseTrustedProxies(t *testing.T) {
	got, err := ParseTrustedProxies(" 10.0.0.0/8, 192.168.1.7 ,fd00::/8,")
	if err != nil || len(got) != 3 || got[1].String() != "192.168.1.7/32" {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := ParseTrustedProxies("10.0.0.0/33"); err == nil {
		t.Fatal("a bad prefix was taken")
	}
	if got, err := ParseTrustedProxies(""); err != nil || got != nil {
		t.Fatalf("empty: %v %v", got, err)
	}
}

// BenchmarkSharedLimit is the cost of one call's rate limit in the distributed mode: the local
// bucket, then redis_rate's script on the test Redis (one round trip).
func BenchmarkSharedLimit(b *testing.B) {
	rdb := testenv.Redis(b)
	l := newLimiter(1e9, 1e9, time.Now)
	l.share(rdb, testenv.Prefix(b, rdb), slog.Default(), func(context.Context) {})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if !l.allow(ctx, "p-bench") {
			b.Fatal("refused")
		}
	}
}
