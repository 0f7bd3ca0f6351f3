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
	Player string
	Name   string
	// Expires is when this token stops being accepted.
	Expires time.Time
	// ID names the sign-in the token comes from (kept by RefreshSession, revoked by SignOut);
	// SignedIn is when it happened (a session lasts at most SessionMaxAge from it).
	ID       string
	SignedIn time.Time
}

type tokenClaims struct {
	P string `json:"p"`
	N string `json:"n"`
	E int64  `json:"e"`           // expiry, unix seconds
	A int64  `json:"a,omitempty"` // sign-in, unix seconds
	S string `json:"s,omitempty"` // session id
}

// sessions signs and checks tokens: "v2.<key id>.<payload>.<HMAC-SHA256 of v2.<key id>.<payload>>",
// payload and HMAC base64url; the key of the first id signs, every key verifies. Tokens of the
// form before key ids, "v1.<payload>.<HMAC of v1.<payload>>", are checked against every key.
type sessions struct {
	keys    map[string][]byte
	signer  string
	ttl     time.Duration
	maxAge  time.Duration
	now     func() time.Time
	revoked *revocations

	// verified remembers the sessions of tokens whose signature was checked (a client sends its
	// token with every call): token → *verifiedToken. Expiry and revocation are still checked at
	// every call.
	verified  sync.Map
	nVerified atomic.Int64
}

type verifiedToken struct {
	sess Session
	// checked is when the shared revocations last said the session was not revoked (unix nanos).
	checked atomic.Int64
}

// maxVerified bounds the tokens remembered; past it the memory starts over.
const maxVerified = 100_000

func newSessions(keys []SessionKey, ttl, maxAge time.Duration, now func() time.Time, rv *revocations) *sessions {
	ss := &sessions{keys: map[string][]byte{}, signer: keys[0].ID, ttl: ttl, maxAge: maxAge, now: now, revoked: rv}
	for _, k := range keys {
		ss.keys[k.ID] = k.Secret
	}
	return ss
}

// issue opens a new session for a player.
func (ss *sessions) issue(player, name string) (string, time.Time) {
	now := ss.now()
	return ss.sign(Session{Player: player, Name: name, ID: newID("s-"), SignedIn: now.Truncate(time.Second)})
}

// sign makes a token of sess, valid for the TTL from now but never past the session's maximum age.
func (ss *sessions) sign(sess Session) (string, time.Time) {
	exp := ss.now().Add(ss.ttl)
	if end := sess.SignedIn.Add(ss.maxAge); exp.After(end) {
		exp = end
	}
	exp = exp.Truncate(time.Second)
	payload, _ := json.Marshal(tokenClaims{P: sess.Player, N: sess.Name, E: exp.Unix(), A: sess.SignedIn.Unix(), S: sess.ID})
	head := "v2." + ss.signer + "." + base64.RawURLEncoding.EncodeToString(payload)
	return head + "." + base64.RawURLEncoding.EncodeToString(mac(ss.keys[ss.signer], head)), exp
}

// refresh signs a new token of sess's session, or refuses once its maximum age is reached.
func (ss *sessions) refresh(sess Session) (string, time.Time, error) {
	if !ss.now().Before(sess.SignedIn.Add(ss.maxAge)) {
		return "", time.Time{}, unauthenticated("session reached its maximum age; sign in again")
	}
	tok, exp := ss.sign(sess)
	return tok, exp, nil
}

func mac(key []byte, signed string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(signed))
	return m.Sum(nil)
}

func unauthenticated(msg string) error {
	return refusal.New(codes.Unauthenticated, refusal.Unauthenticated, "%s", msg)
}

func sessionRevoked() error {
	return refusal.New(codes.Unauthenticated, refusal.SessionRevoked, "session signed out; sign in again")
}

func (ss *sessions) check(ctx context.Context, token string) (Session, error) {
	v, ok := ss.verified.Load(token)
	if !ok {
		sess, err := ss.verify(token)
		if err != nil {
			return Session{}, err
		}
		var loaded bool
		if v, loaded = ss.verified.LoadOrStore(token, &verifiedToken{sess: sess}); !loaded && ss.nVerified.Add(1) > maxVerified {
			ss.verified.Clear()
			ss.nVerified.Store(0)
		}
	}
	vt := v.(*verifiedToken)
	now := ss.now()
	if !now.Before(vt.sess.Expires) {
		return Session{}, unauthenticated("session expired; sign in again")
	}
	// On every call, not only at refresh: a token whose expiry lies past its session's maximum age
	// (signed by a key with another configuration, or before SessionMaxAge was lowered) ends there.
	if !now.Before(vt.sess.SignedIn.Add(ss.maxAge)) {
		return Session{}, unauthenticated("session reached its maximum age; sign in again")
	}
	if err := ss.revoked.check(ctx, vt, now); err != nil {
		return Session{}, err
	}
	return vt.sess, nil
}

// verify checks a token's signature, claims and expiry.
func (ss *sessions) verify(token string) (Session, error) {
	parts := strings.Split(token, ".")
	var payload string
	switch {
	case len(parts) == 4 && parts[0] == "v2":
		key, ok := ss.keys[parts[1]]
		if !ok {
			return Session{}, unauthenticated("session token signed with a key this cardroom no longer has; sign in again")
		}
		sig, err := base64.RawURLEncoding.DecodeString(parts[3])
		if err != nil || !hmac.Equal(sig, mac(key, "v2."+parts[1]+"."+parts[2])) {
			return Session{}, unauthenticated("invalid session token")
		}
		payload = parts[2]
	case len(parts) == 3 && parts[0] == "v1":
		sig, err := base64.RawURLEncoding.DecodeString(parts[2])
		if err != nil || !ss.anyKeySigned(sig, "v1."+parts[1]) {
			return Session{}, unauthenticated("invalid session token")
		}
		payload = parts[1]
	default:
		return Session{}, unauthenticated("malformed session token")
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	var c tokenClaims
	if err != nil || json.Unmarshal(raw, &c) != nil || c.P == "" {
		return Session{}, unauthenticated("invalid session token")
	}
	exp := time.Unix(c.E, 0)
	if !ss.now().Before(exp) {
		return Session{}, unauthenticated("session expired; sign in again")
	}
	sess := Session{Player: c.P, Name: c.N, Expires: exp, ID: c.S, SignedIn: time.Unix(c.A, 0)}
	if parts[0] == "v1" {
		// Before session ids: the token is its own session, signed in one TTL before it expires.
		sess.ID = "v1-" + parts[2]
		sess.SignedIn = exp.Add(-ss.ttl)
	}
	if sess.ID == "" {
		return Session{}, unauthenticated("invalid session token")
	}
	return sess, nil
}

func (ss *sessions) anyKeySigned(sig []byte, signed string) bool {
	for _, k := range ss.keys {
		if hmac.Equal(sig, mac(k, signed)) {
			return true
		}
	}
	return false
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
	return ss.check(ctx, strings.TrimSpace(tok))
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
