package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/services/kit/refusal"
)

// signClaims is a token of claims c, validly signed with ss's key (what a gateway with a longer
// maximum age, or a leaked token from before it was lowered, would hold).
func signClaims(ss *sessions, c tokenClaims) string {
	payload, _ := json.Marshal(c)
	head := "v2." + ss.signer + "." + base64.RawURLEncoding.EncodeToString(payload)
	return head + "." + base64.RawURLEncoding.EncodeToString(mac(ss.keys[ss.signer], head))
}

// TestMaxAgeCheckedOnEveryCall: a validly signed token whose sign-in is older than the maximum
// age is refused on any call, however far its expiry; one accepted before is refused once its
// session reaches the age, though its expiry has not come.
func TestMaxAgeCheckedOnEveryCall(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Unix(1_800_000_000, 0).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	rv := newRevocations(nil, "", 0, slog.Default(), func(context.Context) {})
	ss := newSessions([]SessionKey{{ID: "k1", Secret: []byte("a key of the internal tests, 32+ bytes")}}, 12*time.Hour, 7*24*time.Hour, now, rv)
	ctx := context.Background()

	old := signClaims(ss, tokenClaims{P: "p-1", N: "Ann", S: "s-old", A: now().Add(-30 * 24 * time.Hour).Unix(), E: now().Add(365 * 24 * time.Hour).Unix()})
	if _, err := ss.check(ctx, old); refusal.Code(err) != refusal.Unauthenticated {
		t.Fatalf("a token signed in 30 days ago, expiring in a year: %v, want UNAUTHENTICATED", err)
	}

	// Signed in 6 days ago, expiring in a year: accepted for one more day, then refused.
	young := signClaims(ss, tokenClaims{P: "p-2", N: "Bob", S: "s-young", A: now().Add(-6 * 24 * time.Hour).Unix(), E: now().Add(365 * 24 * time.Hour).Unix()})
	if _, err := ss.check(ctx, young); err != nil {
		t.Fatalf("a token within its maximum age: %v", err)
	}
	clock.Add(int64(24*time.Hour + time.Second))
	if _, err := ss.check(ctx, young); refusal.Code(err) != refusal.Unauthenticated {
		t.Fatalf("the same token past its session's maximum age: %v, want UNAUTHENTICATED", err)
	}
}
