// Package accounts keeps the players who sign in with a credential they can repeat: each
// credential (a device id, a user name) names its player and holds a hash of its secret, and each
// such player has a display name. Guests are not recorded. The gateway hashes and checks secrets;
// the stores only keep what they are given.
package accounts

import (
	"errors"
	"time"
)

// Kind is the kind of a credential; a credential's id is unique within its kind.
type Kind string

const (
	// Device: a device id and a secret the client generated.
	Device Kind = "device"
	// Password: a user name (lower case) and a password.
	Password Kind = "password"
)

var (
	// ErrNotFound: no such credential or player.
	ErrNotFound = errors.New("accounts: not found")
	// ErrExists: a credential of that kind and id is already recorded.
	ErrExists = errors.New("accounts: already exists")
)

// Credential is what lets a player sign in again.
type Credential struct {
	Kind Kind
	ID   string
	// Player is the player id the credential signs in as.
	Player string
	// Hash is the secret's hash in its self-describing encoding (the gateway's business).
	Hash      string
	CreatedAt time.Time
}

// Player is a player who signs in with a credential.
type Player struct {
	ID          string
	DisplayName string
	CreatedAt   time.Time
}
