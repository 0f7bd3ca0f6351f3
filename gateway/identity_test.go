package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"context"
	"strings"
	"sync"
	"testing"

	"cardroom.dev/gateway"
	"cardroom.dev/gateway/accounts"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"golang.org/x/crypto/argon2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
)

const (
	deviceID = "device-0123456789"
	secret   = "c2VjcmV0IHNlY3JldCBzZWNyZXQgc2VjcmV0IHNlY3JldA" // 46 bytes
)

func device(id, secret, name string) *gatewayv1.SignInRequest {
	return &gatewayv1.SignInRequest{DisplayName: name, Credential: &gatewayv1.SignInRequest_Device{
		Device: &gatewayv1.DeviceCredential{DeviceId: id, Secret: secret}}}
}

func password(user, pw, name string, register bool) *gatewayv1.SignInRequest {
	return &gatewayv1.SignInRequest{DisplayName: name, Credential: &gatewayv1.SignInRequest_Password{
		Password: &gatewayv1.PasswordCredential{UserName: user, Password: pw, Register: register}}}
}

// signInAs signs in with req and checks the answer.
func signInAs(t *testing.T, c gatewayv1.GatewayServiceClient, req *gatewayv1.SignInRequest, wantNew bool, wantName string) *gatewayv1.SignInResponse {
	t.Helper()
	r, err := c.SignIn(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if r.GetNewPlayer() != wantNew || r.GetDisplayName() != wantName || r.GetPlayerId() == "" || r.GetSessionToken() == "" {
		t.Fatalf("signed in as %v, want new=%v name %q", r, wantNew, wantName)
	}
	return r
}

// TestSignInDevice: a device credential signs in as the same player on every replica, renames a
// returning player who gives a new name, and refuses a wrong secret; only a hash of the secret is
// stored.
func TestSignInDevice(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2})
	gw0, gw1 := e.Dial(0), e.Dial(1)
	first := signInAs(t, gw0, device(deviceID, secret, "Ann"), true, "Ann")
	again := signInAs(t, gw1, device(deviceID, secret, ""), false, "Ann")
	if again.GetPlayerId() != first.GetPlayerId() {
		t.Fatalf("second sign-in as %s, first as %s", again.GetPlayerId(), first.GetPlayerId())
	}
	renamed := signInAs(t, gw0, device(deviceID, secret, "  Ann B.  "), false, "Ann B.")
	kept := signInAs(t, gw1, device(deviceID, secret, ""), false, "Ann B.")
	if renamed.GetPlayerId() != first.GetPlayerId() || kept.GetPlayerId() != first.GetPlayerId() {
		t.Fatalf("player ids %s, %s after %s", renamed.GetPlayerId(), kept.GetPlayerId(), first.GetPlayerId())
	}
	// The session is the player's: a table it opens is theirs, under the name they gave.
	ann := &Client{T: t, C: gw1, ID: kept.GetPlayerId(), Token: kept.GetSessionToken(), GW: 1}
	tb, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: rounds(1)})
	if err != nil {
		t.Fatal(err)
	}
	if tb.GetTable().GetOwnerPlayerId() != first.GetPlayerId() || tb.GetTable().GetPlayers()[0].GetDisplayName() != "Ann B." {
		t.Fatalf("table %v, want owner %s named Ann B.", tb.GetTable(), first.GetPlayerId())
	}
	_, err = gw1.SignIn(t.Context(), device(deviceID, secret[:len(secret)-1]+"X", "Mallory"))
	wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
	// The refused sign-in renamed nobody.
	signInAs(t, gw0, device(deviceID, secret, ""), false, "Ann B.")
	other := signInAs(t, gw0, device("another-device-1", secret, "Bob"), true, "Bob")
	if other.GetPlayerId() == first.GetPlayerId() {
		t.Fatal("two devices signed in as one player")
	}
	c, err := e.Accounts.Credential(t.Context(), accounts.Device, deviceID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Player != first.GetPlayerId() || !strings.HasPrefix(c.Hash, "$sha256$") || strings.Contains(c.Hash, secret) {
		t.Fatalf("stored credential %+v", c)
	}
}

// TestSignInDeviceConcurrent: first sign-ins racing with one new device make one player.
func TestSignInDeviceConcurrent(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2})
	const n = 8
	resps := make([]*gatewayv1.SignInResponse, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		c := e.Dial(i % 2)
		wg.Go(func() { resps[i], errs[i] = c.SignIn(t.Context(), device("racing-device-1", secret, "Ann")) })
	}
	wg.Wait()
	news := 0
	for i, r := range resps {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if r.GetPlayerId() != resps[0].GetPlayerId() {
			t.Fatalf("sign-ins as %s and %s", r.GetPlayerId(), resps[0].GetPlayerId())
		}
		if r.GetNewPlayer() {
			news++
		}
	}
	if news != 1 {
		t.Fatalf("%d sign-ins made the player, want 1", news)
	}
}

// TestSignInPassword: registration is explicit, names are case-insensitive, a retried
// registration signs in, a taken name and a wrong password are refused.
func TestSignInPassword(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	gw := e.Dial(0)
	const pw = "correct horse battery"
	_, err := gw.SignIn(t.Context(), password("ann.lee", pw, "Ann", false))
	wantCode(t, err, codes.Unauthenticated, refusal.BadCredential) // not registered yet
	first := signInAs(t, gw, password("Ann.Lee", pw, "", true), true, "Ann.Lee")
	retry := signInAs(t, gw, password("Ann.Lee", pw, "", true), false, "Ann.Lee")
	later := signInAs(t, gw, password("ANN.LEE", pw, "Ann", false), false, "Ann")
	if retry.GetPlayerId() != first.GetPlayerId() || later.GetPlayerId() != first.GetPlayerId() {
		t.Fatalf("player ids %s %s %s", first.GetPlayerId(), retry.GetPlayerId(), later.GetPlayerId())
	}
	_, err = gw.SignIn(t.Context(), password("ann.lee", "another password", "Eve", true))
	wantCode(t, err, codes.AlreadyExists, refusal.NameTaken)
	_, err = gw.SignIn(t.Context(), password("ann.lee", "another password", "", false))
	wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
	_, err = gw.SignIn(t.Context(), password("nobody", pw, "", false))
	wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
	signInAs(t, gw, password("ann.lee", pw, "", false), false, "Ann")
	c, err := e.Accounts.Credential(t.Context(), accounts.Password, "ann.lee")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Hash, "$argon2id$v=19$m=64,t=1,p=1$") || strings.Contains(c.Hash, pw) {
		t.Fatalf("stored hash %q", c.Hash)
	}
}

// TestSignInRefusals: malformed sign-ins are INVALID_ARGUMENT naming the field, and make no player.
func TestSignInRefusals(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	gw := e.Dial(0)
	long := strings.Repeat("x", 300)
	for _, tc := range []struct {
		name      string
		req       *gatewayv1.SignInRequest
		violation string
	}{
		{"guest without a name", &gatewayv1.SignInRequest{}, refusal.InvalidField},
		{"blank name", &gatewayv1.SignInRequest{DisplayName: "   "}, refusal.InvalidField},
		{"blank name with a tab", &gatewayv1.SignInRequest{DisplayName: " \t "}, refusal.InvalidField},
		{"long name", &gatewayv1.SignInRequest{DisplayName: strings.Repeat("n", 33)}, refusal.InvalidField},
		{"new device without a name", device("fresh-device-1", secret, ""), refusal.InvalidField},
		{"device with a blank name", device("fresh-device-2", secret, "   "), refusal.InvalidField},
		{"no device id", device("", secret, "Ann"), refusal.MissingField},
		{"short device id", device("short", secret, "Ann"), refusal.InvalidField},
		{"long device id", device(long, secret, "Ann"), refusal.InvalidField},
		{"device id with a space", device("my device 1", secret, "Ann"), refusal.InvalidField},
		{"no secret", device("fresh-device-3", "", "Ann"), refusal.MissingField},
		{"short secret", device("fresh-device-4", "0123456789", "Ann"), refusal.InvalidField},
		{"long secret", device("fresh-device-5", long, "Ann"), refusal.InvalidField},
		{"32 repeated bytes", device("fresh-device-6", strings.Repeat("a", 32), "Ann"), refusal.WeakSecret},
		{"repeated word", device("fresh-device-7", strings.Repeat("secret", 6), "Ann"), refusal.WeakSecret},
		{"no user name", password("", "password1", "Ann", true), refusal.MissingField},
		{"short user name", password("an", "password1", "Ann", true), refusal.InvalidField},
		{"user name with a space", password("ann lee", "password1", "Ann", true), refusal.InvalidField},
		{"user name starting with a dot", password(".ann", "password1", "Ann", true), refusal.InvalidField},
		{"no password", password("ann", "", "Ann", true), refusal.MissingField},
		{"short password to register", password("ann", "short", "Ann", true), refusal.InvalidField},
		{"long password", password("ann", long, "Ann", false), refusal.InvalidField},
		{"empty device message", &gatewayv1.SignInRequest{DisplayName: "Ann", Credential: &gatewayv1.SignInRequest_Device{}}, refusal.MissingField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gw.SignIn(t.Context(), tc.req)
			wantCode(t, err, codes.InvalidArgument, tc.violation)
		})
	}
	for _, id := range []string{"fresh-device-1", "fresh-device-2", "fresh-device-3", "fresh-device-6", "fresh-device-7"} {
		if _, err := e.Accounts.Credential(t.Context(), accounts.Device, id); err == nil {
			t.Fatalf("a refused sign-in recorded device %s", id)
		}
	}
	if _, err := e.Accounts.Credential(t.Context(), accounts.Password, "ann"); err == nil {
		t.Fatal("a refused registration recorded its name")
	}
}

// TestDisplayNameTrimmed: a display name is kept without its surrounding space.
func TestDisplayNameTrimmed(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	gw := e.Dial(0)
	r := signInAs(t, gw, &gatewayv1.SignInRequest{DisplayName: "  Ann  "}, true, "Ann")
	ann := &Client{T: t, C: gw, ID: r.GetPlayerId(), Token: r.GetSessionToken()}
	tb, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: rounds(1)})
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.GetTable().GetPlayers()[0].GetDisplayName(); got != "Ann" {
		t.Fatalf("the table names its owner %q", got)
	}
}

// TestBearerCaseInsensitive: the authorization scheme is matched without regard to case (RFC 7235).
func TestBearerCaseInsensitive(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", scheme+" "+ann.Token)
		if _, err := ann.C.RefreshSession(ctx, &gatewayv1.RefreshSessionRequest{}); err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
	}
	for _, value := range []string{"Basic " + ann.Token, "Bearer", "Bearer" + ann.Token, ann.Token} {
		ctx := metadata.AppendToOutgoingContext(context.WithoutCancel(t.Context()), "authorization", value)
		_, err := ann.C.RefreshSession(ctx, &gatewayv1.RefreshSessionRequest{})
		wantCode(t, err, codes.Unauthenticated, refusal.Unauthenticated)
	}
}

func TestDefaultArgon2(t *testing.T) {
	// RFC 9106, section 4, second recommended option.
	want := gateway.Argon2Params{Time: 3, MemoryKiB: 64 * 1024, Threads: 4, SaltLen: 16, KeyLen: 32}
	if gateway.DefaultArgon2 != want {
		t.Fatalf("DefaultArgon2 = %+v, want %+v", gateway.DefaultArgon2, want)
	}
}

// BenchmarkPasswordHashDefault is the cost of one password check with the default parameters.
func BenchmarkPasswordHashDefault(b *testing.B) {
	p := gateway.DefaultArgon2
	salt := make([]byte, p.SaltLen)
	b.ReportAllocs()
	for b.Loop() {
		argon2.IDKey([]byte("correct horse battery"), salt, p.Time, p.MemoryKiB, p.Threads, p.KeyLen)
	}
}
