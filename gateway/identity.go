package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"cardroom.dev/gateway/accounts"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"golang.org/x/crypto/argon2"
	"google.golang.org/grpc/codes"
)

// Accounts keeps the players who sign in with a credential (accounts.Memory, accounts.Redis).
type Accounts interface {
	// Create records a credential and its new player, unless a credential of that kind and id
	// exists (accounts.ErrExists; nothing is written then).
	Create(ctx context.Context, c accounts.Credential, p accounts.Player) error
	// Credential loads a credential (accounts.ErrNotFound when there is none).
	Credential(ctx context.Context, kind accounts.Kind, id string) (accounts.Credential, error)
	// Player loads a player's record (accounts.ErrNotFound when there is none).
	Player(ctx context.Context, id string) (accounts.Player, error)
	// Rename sets a recorded player's display name.
	Rename(ctx context.Context, id, name string) error
	// ClaimName reserves a display name for a player (accounts.ErrExists: another player's);
	// ReleaseName gives it up. Password accounts' names are unique (FoldName).
	ClaimName(ctx context.Context, name, player string) error
	ReleaseName(ctx context.Context, name, player string) error
	// SetVisibility and Visibilities keep what others see of players' profiles.
	SetVisibility(ctx context.Context, player string, v accounts.Visibility) error
	Visibilities(ctx context.Context, players []string) ([]accounts.Visibility, error)
}

var (
	_ Accounts = (*accounts.Memory)(nil)
	_ Accounts = (*accounts.Redis)(nil)
)

// Argon2Params are the argon2id parameters of new password hashes. A stored hash carries its own
// parameters, so changing them leaves earlier passwords valid.
type Argon2Params struct {
	// Time is the number of passes, MemoryKiB the memory per hash, Threads the lanes.
	Time      uint32
	MemoryKiB uint32
	Threads   uint8
	// SaltLen and KeyLen are in bytes.
	SaltLen uint32
	KeyLen  uint32
}

// DefaultArgon2 is RFC 9106's second recommended option (section 4: t=3, 64 MiB, 4 lanes,
// 128-bit salt, 256-bit tag), for when memory is limited.
var DefaultArgon2 = Argon2Params{Time: 3, MemoryKiB: 64 * 1024, Threads: 4, SaltLen: 16, KeyLen: 32}

// Limits on credentials.
const (
	minDeviceID, maxDeviceID = 10, 128
	minSecret, maxSecret     = 32, 256
	minUserName, maxUserName = 3, 32
	minPassword, maxPassword = 8, 256
)

func badCredential(what string) error {
	return refusal.New(codes.Unauthenticated, refusal.BadCredential, "%s", what)
}

// identity signs players in with their credentials.
type identity struct {
	store Accounts
	argon Argon2Params
	now   func() time.Time
	// hashes bounds and orders the password hashes (hashgate.go).
	hashes *hashGate

	dummyOnce sync.Once
	dummy     string // a password hash to check against when the user name is unknown
}

func newIdentity(st Accounts, p Argon2Params, concurrent int, now func() time.Time) *identity {
	return &identity{store: st, argon: p, now: now, hashes: newHashGate(concurrent)}
}

// signedIn is the outcome of a sign-in.
type signedIn struct {
	player, name string
	isNew        bool
}

// signInWith returns the player of a request with a credential (name is the trimmed display name,
// empty when none was given) from the client address addr. Password sign-ins are throttled
// (throttle.go).
func (s *Server) signInWith(ctx context.Context, req *gatewayv1.SignInRequest, name, addr string) (signedIn, error) {
	id := s.identity
	switch c := req.GetCredential().(type) {
	case *gatewayv1.SignInRequest_Device:
		dev, secret := c.Device.GetDeviceId(), c.Device.GetSecret()
		if err := checkDevice(dev, secret); err != nil {
			return signedIn{}, err
		}
		return id.signIn(ctx, accounts.Device, dev, name, false,
			func() (string, error) { return hashSecret(secret), nil },
			func(h string) (bool, error) { return checkSecret(h, secret), nil })
	case *gatewayv1.SignInRequest_Password:
		user, pw, register := c.Password.GetUserName(), c.Password.GetPassword(), c.Password.GetRegister()
		user, err := checkPassword(user, pw, register)
		if err != nil {
			return signedIn{}, err
		}
		if register && name == "" {
			name = c.Password.GetUserName()
		}
		done, sus, err := s.throttle.begin(ctx, newAttempt(user, addr))
		if err != nil {
			s.metrics.refusals.Add(ctx, 1, reasonThrottled)
			return signedIn{}, err
		}
		ctx = context.WithValue(ctx, suspectKey{}, sus)
		in, err := id.signIn(ctx, accounts.Password, user, name, register,
			func() (string, error) { return id.hashPassword(ctx, pw) },
			func(h string) (bool, error) { return id.checkPassword(ctx, h, pw) })
		// A wrong password, an unknown name, and a registration of a taken name (which checks the
		// password too) are guesses.
		code := refusal.Code(err)
		done(ctx, err == nil, code == refusal.BadCredential || code == refusal.NameTaken)
		return in, err
	}
	return signedIn{}, refusal.Invalid("credential", refusal.InvalidField, "unknown credential")
}

// signIn finds the player of credential (kind, cred), checking its secret with verify; when there
// is none and create is allowed (always for a device, on registration for a user name), it makes
// the player, storing hash()'s hash of the secret.
func (id *identity) signIn(ctx context.Context, kind accounts.Kind, cred, name string, register bool,
	hash func() (string, error), verify func(string) (bool, error)) (signedIn, error) {
	create := kind == accounts.Device || register
	// A lost race to create the credential is checked against the winner's: two rounds at most.
	for range 3 {
		c, err := id.store.Credential(ctx, kind, cred)
		switch {
		case errors.Is(err, accounts.ErrNotFound) && !create:
			// The same work as a wrong password, so that the answer's timing tells nothing.
			if _, err := verify(id.dummyHash(ctx)); err != nil {
				return signedIn{}, err
			}
			return signedIn{}, badCredential("unknown user name or wrong password")
		case errors.Is(err, accounts.ErrNotFound):
			if name == "" {
				return signedIn{}, refusal.Invalid("display_name", refusal.InvalidField, "display_name is required for a new player")
			}
			h, err := hash()
			if err != nil {
				return signedIn{}, err
			}
			now := id.now()
			player := newID("p-")
			if kind == accounts.Password {
				if err := id.claimName(ctx, name, player); err != nil {
					return signedIn{}, err
				}
			}
			err = id.store.Create(ctx, accounts.Credential{Kind: kind, ID: cred, Player: player, Hash: h, CreatedAt: now},
				accounts.Player{ID: player, DisplayName: name, CreatedAt: now})
			if errors.Is(err, accounts.ErrExists) {
				// Another first sign-in with this credential won the race: check against it.
				if kind == accounts.Password {
					if err := id.store.ReleaseName(ctx, name, player); err != nil {
						return signedIn{}, err
					}
				}
				continue
			}
			if err != nil {
				return signedIn{}, err
			}
			return signedIn{player: player, name: name, isNew: true}, nil
		case err != nil:
			return signedIn{}, err
		}
		ok, err := verify(c.Hash)
		if err != nil {
			return signedIn{}, err
		}
		if !ok {
			switch {
			case register:
				return signedIn{}, refusal.New(codes.AlreadyExists, refusal.NameTaken, "the user name %q is taken", cred)
			case kind == accounts.Device:
				return signedIn{}, badCredential("wrong secret for this device")
			default:
				return signedIn{}, badCredential("unknown user name or wrong password")
			}
		}
		p, err := id.store.Player(ctx, c.Player)
		if err != nil {
			return signedIn{}, fmt.Errorf("player of a credential: %w", err)
		}
		if name != "" && name != p.DisplayName {
			if kind == accounts.Password {
				if err := id.claimName(ctx, name, p.ID); err != nil {
					return signedIn{}, err
				}
			}
			if err := id.store.Rename(ctx, p.ID, name); err != nil {
				return signedIn{}, err
			}
			if kind == accounts.Password && accounts.FoldName(name) != accounts.FoldName(p.DisplayName) {
				if err := id.store.ReleaseName(ctx, p.DisplayName, p.ID); err != nil {
					return signedIn{}, err
				}
			}
			p.DisplayName = name
		}
		return signedIn{player: p.ID, name: p.DisplayName}, nil
	}
	return signedIn{}, errors.New("credential created and not found")
}

// claimName reserves a password account's display name: names are unique among password
// accounts (another's is ALREADY_EXISTS, NAME_TAKEN).
func (id *identity) claimName(ctx context.Context, name, player string) error {
	err := id.store.ClaimName(ctx, name, player)
	if errors.Is(err, accounts.ErrExists) {
		return refusal.New(codes.AlreadyExists, refusal.NameTaken, "the name %q is another account's: choose another display name", name)
	}
	return err
}

func checkDevice(dev, secret string) error {
	switch {
	case dev == "":
		return refusal.Invalid("device.device_id", refusal.MissingField, "device.device_id is required")
	case len(dev) < minDeviceID || len(dev) > maxDeviceID:
		return refusal.Invalid("device.device_id", refusal.InvalidField, "device.device_id must be %d to %d characters", minDeviceID, maxDeviceID)
	case strings.IndexFunc(dev, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0:
		return refusal.Invalid("device.device_id", refusal.InvalidField, "device.device_id must be printable ASCII without space")
	case secret == "":
		return refusal.Invalid("device.secret", refusal.MissingField, "device.secret is required")
	case len(secret) < minSecret || len(secret) > maxSecret:
		return refusal.Invalid("device.secret", refusal.InvalidField, "device.secret must be %d to %d bytes of random data", minSecret, maxSecret)
	case secretBits(secret) < minSecretBits || periodic(secret):
		return refusal.Invalid("device.secret", refusal.WeakSecret,
			"device.secret is too regular to be random: generate it from a cryptographic random source (e.g. 32 random bytes, hex or base64)")
	}
	return nil
}

// minSecretBits is the least a device secret's characters must carry by their frequencies
// (secretBits). A secret is a credential alone, so it must be unguessable; 32 random bytes carry
// 256 bits, and, written as they are by the clients, score over 180 (hex of 16 random bytes, the
// shortest random secret allowed, scores 92 at the lowest in 200,000 draws).
const minSecretBits = 80

// secretBits estimates a secret's entropy from its characters' frequencies: its length times the
// Shannon entropy of the distribution of its bytes. It sees through a repeated byte (0 bits) and a
// few characters used over and over ("abab…": 1 bit each), not through every pattern.
func secretBits(s string) float64 {
	var counts [256]int
	for i := range len(s) {
		counts[s[i]]++
	}
	n := float64(len(s))
	bits := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			bits -= p * math.Log2(p)
		}
	}
	return bits * n
}

// periodic reports whether s is a shorter string repeated at least twice ("passwordpassword…",
// "0123456789abcdef0123456789abcdef"), the last repetition possibly cut short.
func periodic(s string) bool {
	for p := 1; p <= len(s)/2; p++ {
		if s[p:] == s[:len(s)-p] {
			return true
		}
	}
	return false
}

// checkPassword checks a user name and password and returns the name's canonical (lower-case) form.
func checkPassword(user, pw string, register bool) (string, error) {
	switch {
	case user == "":
		return "", refusal.Invalid("password.user_name", refusal.MissingField, "password.user_name is required")
	case len(user) < minUserName || len(user) > maxUserName:
		return "", refusal.Invalid("password.user_name", refusal.InvalidField, "password.user_name must be %d to %d characters", minUserName, maxUserName)
	}
	user = strings.ToLower(user)
	for i, r := range user {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || i > 0 && (r == '.' || r == '_' || r == '-')) {
			return "", refusal.Invalid("password.user_name", refusal.InvalidField,
				"password.user_name takes letters, digits, '.', '_' and '-', and starts with a letter or a digit")
		}
	}
	switch {
	case pw == "":
		return "", refusal.Invalid("password.password", refusal.MissingField, "password.password is required")
	case len(pw) > maxPassword:
		return "", refusal.Invalid("password.password", refusal.InvalidField, "password.password must be at most %d bytes", maxPassword)
	case register && len(pw) < minPassword:
		// Checked when registering only: a later change of the minimum locks nobody out.
		return "", refusal.Invalid("password.password", refusal.InvalidField, "password.password must be at least %d bytes", minPassword)
	}
	return user, nil
}

var b64 = base64.RawStdEncoding

// hashSecret hashes a device secret: SHA-256 over a random 16-byte salt and the secret, encoded
// "$sha256$<salt>$<hash>". The secret is random and at least 32 bytes, so a slow KDF would add
// cost and no safety; the salt makes each hash unique.
func hashSecret(secret string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	sum := sha256.Sum256(append(salt, secret...))
	return "$sha256$" + b64.EncodeToString(salt) + "$" + b64.EncodeToString(sum[:])
}

func checkSecret(encoded, secret string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 4 || parts[1] != "sha256" {
		return false
	}
	salt, err1 := b64.DecodeString(parts[2])
	want, err2 := b64.DecodeString(parts[3])
	if err1 != nil || err2 != nil {
		return false
	}
	sum := sha256.Sum256(append(salt, secret...))
	return subtle.ConstantTimeCompare(sum[:], want) == 1
}

// hashPassword hashes a password with argon2id, in the PHC string format
// "$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>".
func (id *identity) hashPassword(ctx context.Context, pw string) (string, error) {
	p := id.argon
	salt := make([]byte, p.SaltLen)
	_, _ = rand.Read(salt)
	release, err := id.acquire(ctx)
	if err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, p.KeyLen)
	release()
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// checkPassword checks a password against its hash, with the hash's own parameters.
func (id *identity) checkPassword(ctx context.Context, encoded, pw string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, fmt.Errorf("password hash: unknown format")
	}
	var version int
	var p Argon2Params
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, fmt.Errorf("password hash: version %q", parts[2])
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return false, fmt.Errorf("password hash: parameters %q: %w", parts[3], err)
	}
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false, fmt.Errorf("password hash: encoding")
	}
	release, err := id.acquire(ctx)
	if err != nil {
		return false, err
	}
	key := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	release()
	return subtle.ConstantTimeCompare(key, want) == 1, nil
}

// dummyHash is a hash of no one's password, made once with the current parameters.
func (id *identity) dummyHash(ctx context.Context) string {
	id.dummyOnce.Do(func() {
		h, err := id.hashPassword(context.WithoutCancel(ctx), "no one's password")
		if err == nil {
			id.dummy = h
		}
	})
	return id.dummy
}

// acquire waits for a turn to hash: password hashes are bounded in number, so that a burst of
// sign-ins cannot take all the memory (each takes MemoryKiB).
// A suspect's hash (suspectKey in its context) waits for the suspects' turn (hashGate).
func (id *identity) acquire(ctx context.Context) (release func(), err error) {
	sus, _ := ctx.Value(suspectKey{}).(suspicion)
	return id.hashes.acquire(ctx, sus)
}

// suspectKey marks the context of a sign-in from an address with failures counted against it.
type suspectKey struct{}
