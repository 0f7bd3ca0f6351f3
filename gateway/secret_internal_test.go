package gateway

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"cardroom.dev/services/kit/refusal"
)

// TestWeakSecrets: secrets too regular to be random are refused (WEAK_SECRET); secrets as the
// clients generate them (the web client: base64url of 32 random bytes; the terminal client: hex of
// 32) and the shortest random ones (hex of 16 bytes) pass, every time in 20,000 draws each.
func TestWeakSecrets(t *testing.T) {
	for _, weak := range []string{
		strings.Repeat("a", 32),
		strings.Repeat("\x00", 32),
		strings.Repeat("ab", 16),
		strings.Repeat("abcd", 8),
		strings.Repeat("password", 4),
		strings.Repeat("0123456789abcdef", 2),
		strings.Repeat("01234567", 5) + "0123",
		strings.Repeat("0", 31) + "1",
	} {
		if err := checkDevice("device-0123456789", weak); refusal.Code(err) != refusal.WeakSecret {
			t.Errorf("secret %q: %v, want WEAK_SECRET", weak, err)
		}
	}
	gens := map[string]func() string{
		"base64url of 32 bytes": func() string { return base64.RawURLEncoding.EncodeToString(random(32)) },
		"hex of 32 bytes":       func() string { return hex.EncodeToString(random(32)) },
		"hex of 16 bytes":       func() string { return hex.EncodeToString(random(16)) },
		"base64 of 24 bytes":    func() string { return base64.StdEncoding.EncodeToString(random(24)) },
	}
	for name, gen := range gens {
		for range 20_000 {
			if s := gen(); checkDevice("device-0123456789", s) != nil {
				t.Fatalf("%s: %q refused (%.0f bits)", name, s, secretBits(s))
			}
		}
	}
}

func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

func TestBackoffRule(t *testing.T) {
	r := backoffRule{free: 2, base: time.Second, most: 10 * time.Second}
	for n, want := range []time.Duration{0, 0, 1, 2, 4, 8, 10, 10, 10} {
		if got := r.delay(n); got != want*time.Second {
			t.Errorf("delay(%d) = %s, want %s", n, got, want*time.Second)
		}
	}
	if got := pairRule.delay(1000); got != pairRule.most {
		t.Errorf("after 1000 failures: %s", got)
	}
}

func TestSourceKey(t *testing.T) {
	for addr, want := range map[string]string{
		"203.0.113.7":          "src:203.0.113.7",
		"::ffff:203.0.113.7":   "src:203.0.113.7",
		"2001:db8:1:2:3:4:5:6": "src:2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9": "src:2001:db8:1:2::/64",
		"bufconn":              "src:bufconn",
	} {
		if got := sourceKey(addr); got != want {
			t.Errorf("sourceKey(%q) = %q, want %q", addr, got, want)
		}
	}
}
