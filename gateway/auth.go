package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
)

// Session is who is calling.
type Session struct {
	Player  string
	Name    string
	Expires time.Time
}

type tokenClaims struct {
	P string `json:"p"`
	N string `json:"n"`
	E int64  `json:"e"` // unix seconds
}

// sessions signs and checks tokens: "v1.<payload>.<HMAC-SHA256 of the payload>", base64url.
type sessions struct {
	key []byte
	ttl time.Duration
	now func() time.Time

	// verified remembers the sessions of tokens whose signature was checked (a client sends its
	// token with every call): token → Session. Expiry is still checked at every call.
	verified  sync.Map
	nVerified atomic.Int64
}

// maxVerified bounds the tokens remembered; past it the memory starts over.
const maxVerified = 100_000

func (ss *sessions) issue(player, name string) (string, time.Time) {
	exp := ss.now().Add(ss.ttl).Truncate(time.Second)
	payload, _ := json.Marshal(tokenClaims{P: player, N: name, E: exp.Unix()})
	p := base64.RawURLEncoding.EncodeToString(payload)
	return "v1." + p + "." + base64.RawURLEncoding.EncodeToString(ss.mac(p)), exp
}

func (ss *sessions) mac(p string) []byte {
	m := hmac.New(sha256.New, ss.key)
	m.Write([]byte("v1." + p))
	return m.Sum(nil)
}

func unauthenticated(msg string) error {
	return refusal.New(codes.Unauthenticated, refusal.Unauthenticated, "%s", msg)
}

func (ss *sessions) check(token string) (Session, error) {
	if v, ok := ss.verified.Load(token); ok {
		sess := v.(Session)
		if !ss.now().Before(sess.Expires) {
			return Session{}, unauthenticated("session expired; sign in again")
		}
		return sess, nil
	}
	sess, err := ss.verify(token)
	if err != nil {
		return Session{}, err
	}
	if _, loaded := ss.verified.LoadOrStore(token, sess); !loaded && ss.nVerified.Add(1) > maxVerified {
		ss.verified.Clear()
		ss.nVerified.Store(0)
	}
	return sess, nil
}

// verify checks a token's signature, claims and expiry.
func (ss *sessions) verify(token string) (Session, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != "v1" {
		return Session{}, unauthenticated("malformed session token")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, ss.mac(parts[1])) {
		return Session{}, unauthenticated("invalid session token")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c tokenClaims
	if err != nil || json.Unmarshal(payload, &c) != nil || c.P == "" {
		return Session{}, unauthenticated("invalid session token")
	}
	exp := time.Unix(c.E, 0)
	if !ss.now().Before(exp) {
		return Session{}, unauthenticated("session expired; sign in again")
	}
	return Session{Player: c.P, Name: c.N, Expires: exp}, nil
}

// fromContext checks the "authorization: Bearer <token>" metadata.
func (ss *sessions) fromContext(ctx context.Context) (Session, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return Session{}, unauthenticated("missing session token (authorization: Bearer <token>)")
	}
	// The scheme is case-insensitive (RFC 7235 section 2.1): "bearer" and "BEARER" are "Bearer".
	scheme, tok, ok := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return Session{}, unauthenticated("authorization must be \"Bearer <token>\"")
	}
	return ss.check(strings.TrimSpace(tok))
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newID is a random id: prefix and 16 base32 characters (80 bits).
func newID(prefix string) string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return prefix + strings.ToLower(idEncoding.EncodeToString(b))
}

// newCode is an invite code: 8 characters without look-alikes.
func newCode() string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// checkDisplayName returns a display name trimmed of surrounding space, or why it is refused.
func checkDisplayName(name string) (string, error) {
	if !utf8.ValidString(name) {
		return "", refusal.Invalid("display_name", refusal.InvalidField, "display_name must be valid UTF-8")
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", refusal.Invalid("display_name", refusal.InvalidField, "display_name is blank: give 1 to 32 characters")
	}
	if utf8.RuneCountInString(name) > 32 {
		return "", refusal.Invalid("display_name", refusal.InvalidField, "display_name must be 1 to 32 characters")
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return "", refusal.Invalid("display_name", refusal.InvalidField, "display_name must be printable")
		}
	}
	return name, nil
}
