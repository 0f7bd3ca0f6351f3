package client

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Credential is a device credential: an id and a secret the client makes up once and keeps.
// Signing in with it again is the same player (docs/api.md, "A lasting identity").
type Credential struct {
	DeviceID string `json:"device_id"`
	Secret   string `json:"secret"`
}

// NewCredential makes a device credential: a random id and 32 random bytes of secret, in hex.
func NewCredential() Credential {
	return Credential{DeviceID: "dev-" + randomHex(12), Secret: randomHex(32)}
}

// CredentialStore keeps a device credential between runs. Load answers ErrNoCredential when none
// is kept yet.
type CredentialStore interface {
	Load(ctx context.Context) (Credential, error)
	Save(ctx context.Context, c Credential) error
}

// ErrNoCredential is what a CredentialStore's Load answers when it keeps none.
var ErrNoCredential = errors.New("no credential kept")

// FileCredentials keeps the credential in a JSON file at path ({"device_id": …, "secret": …}),
// readable by its owner only (mode 0600, its directory made with mode 0700): it signs in as the
// player.
func FileCredentials(path string) CredentialStore { return fileStore(path) }

type fileStore string

func (f fileStore) Load(context.Context) (Credential, error) {
	var c Credential
	b, err := os.ReadFile(string(f))
	if errors.Is(err, fs.ErrNotExist) {
		return c, ErrNoCredential
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", f, err)
	}
	if c.DeviceID == "" || c.Secret == "" {
		return c, ErrNoCredential
	}
	return c, nil
}

// Save replaces the file atomically (a temporary file renamed over it).
func (f fileStore) Save(_ context.Context, c Credential) error {
	dir := filepath.Dir(string(f))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(string(f))+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), string(f))
}

// MemoryCredentials keeps the credential in memory (for tests and short-lived bots: each new
// store is a new player).
func MemoryCredentials() CredentialStore { return &memStore{} }

type memStore struct {
	mu sync.Mutex
	c  Credential
}

func (m *memStore) Load(context.Context) (Credential, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.c.DeviceID == "" {
		return m.c, ErrNoCredential
	}
	return m.c, nil
}

func (m *memStore) Save(_ context.Context, c Credential) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c = c
	return nil
}

// DefaultName is the name a new device player gets when SignInDevice is given none.
const DefaultName = "player"

// SignInDevice signs in with the device credential in store, made and saved there on first use.
// name renames a returning player ("" keeps their name) and names a new one ("": DefaultName).
// The client signs in so again whenever the gateway no longer takes its session.
func (c *Client) SignInDevice(ctx context.Context, store CredentialStore, name string) (Session, error) {
	cred, err := store.Load(ctx)
	made := false
	if errors.Is(err, ErrNoCredential) {
		cred, made = NewCredential(), true
		err = store.Save(ctx, cred)
	}
	if err != nil {
		return Session{}, fmt.Errorf("device credential: %w", err)
	}
	first := name
	if first == "" && made {
		first = DefaultName
	}
	signIn := func(ctx context.Context, name string) (*gatewayv1.SignInResponse, error) {
		return c.plain.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: name, Credential: &gatewayv1.SignInRequest_Device{
			Device: &gatewayv1.DeviceCredential{DeviceId: cred.DeviceID, Secret: cred.Secret}}})
	}
	r, err := signIn(ctx, first)
	if first == "" && status.Code(err) == codes.InvalidArgument {
		// A cardroom that has not seen this device yet (another address, a store kept elsewhere).
		r, err = signIn(ctx, DefaultName)
	}
	if err != nil {
		return Session{}, fmt.Errorf("sign in: %w", err)
	}
	// Signing in again keeps the name the player has by then; a cardroom that no longer knows the
	// device (its accounts were in memory) makes the player again under the name of the session.
	return c.signedIn(r, func(ctx context.Context) error {
		r, err := signIn(ctx, "")
		if status.Code(err) == codes.InvalidArgument {
			r, err = signIn(ctx, cmp.Or(c.Session().DisplayName, DefaultName))
		}
		if err != nil {
			return fmt.Errorf("sign in again: %w", err)
		}
		c.setSession(sessionOf(r))
		return nil
	}), nil
}

// SignInPassword signs in with a user name and password (register: make the account first, see
// docs/api.md). The client signs in so again whenever the gateway no longer takes its session.
func (c *Client) SignInPassword(ctx context.Context, user, password string, register bool, name string) (Session, error) {
	req := &gatewayv1.SignInRequest{DisplayName: name, Credential: &gatewayv1.SignInRequest_Password{
		Password: &gatewayv1.PasswordCredential{UserName: user, Password: password, Register: register}}}
	r, err := c.plain.SignIn(ctx, req)
	if err != nil {
		return Session{}, fmt.Errorf("sign in: %w", err)
	}
	return c.signedIn(r, func(ctx context.Context) error {
		r, err := c.plain.SignIn(ctx, &gatewayv1.SignInRequest{Credential: &gatewayv1.SignInRequest_Password{
			Password: &gatewayv1.PasswordCredential{UserName: user, Password: password}}})
		if err != nil {
			return fmt.Errorf("sign in again: %w", err)
		}
		c.setSession(sessionOf(r))
		return nil
	}), nil
}

// SignInGuest signs in as a guest: a new player, whose session cannot be renewed once the gateway
// refuses it.
func (c *Client) SignInGuest(ctx context.Context, name string) (Session, error) {
	r, err := c.plain.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: name})
	if err != nil {
		return Session{}, fmt.Errorf("sign in: %w", err)
	}
	return c.signedIn(r, nil), nil
}

// SignOut ends the session on every gateway replica; the client is signed out.
func (c *Client) SignOut(ctx context.Context) error {
	_, err := c.api.SignOut(ctx, &gatewayv1.SignOutRequest{})
	if err == nil {
		c.mu.Lock()
		c.session, c.again = Session{}, nil
		c.mu.Unlock()
	}
	return err
}

func (c *Client) signedIn(r *gatewayv1.SignInResponse, again func(context.Context) error) Session {
	s := sessionOf(r)
	c.setSession(s)
	c.mu.Lock()
	c.again = again
	c.mu.Unlock()
	return s
}

func sessionOf(r *gatewayv1.SignInResponse) Session {
	s := Session{PlayerID: r.GetPlayerId(), DisplayName: r.GetDisplayName(), NewPlayer: r.GetNewPlayer(),
		Token: r.GetSessionToken()}
	if r.GetExpiresAt() != nil {
		s.ExpiresAt = r.GetExpiresAt().AsTime()
	}
	return s
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
