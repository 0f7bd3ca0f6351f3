// Package accountstest is the conformance suite every accounts store passes.
package accountstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"cardroom.dev/gateway/accounts"
)

// Store is what the suite exercises: the gateway's accounts store (gateway.Accounts).
type Store interface {
	Create(ctx context.Context, c accounts.Credential, p accounts.Player) error
	Credential(ctx context.Context, kind accounts.Kind, id string) (accounts.Credential, error)
	Player(ctx context.Context, id string) (accounts.Player, error)
	Rename(ctx context.Context, id, name string) error
	ClaimName(ctx context.Context, name, player string) error
	ReleaseName(ctx context.Context, name, player string) error
	SetVisibility(ctx context.Context, player string, v accounts.Visibility) error
	Visibilities(ctx context.Context, players []string) ([]accounts.Visibility, error)
}

// Run runs the suite against stores made by newStore. Stores may share a backend: ids are unique
// per subtest.
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s Store)
	}{
		{"CreateAndLoad", testCreateAndLoad},
		{"CreateTwice", testCreateTwice},
		{"KindsApart", testKindsApart},
		{"Rename", testRename},
		{"ConcurrentCreate", testConcurrentCreate},
		{"Names", testNames},
		{"Visibility", testVisibility},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

func uid() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var t0 = time.UnixMilli(1_800_000_000_000)

func testCreateAndLoad(t *testing.T, s Store) {
	ctx := t.Context()
	dev, player := "dev-"+uid(), "p-"+uid()
	if _, err := s.Credential(ctx, accounts.Device, dev); !errors.Is(err, accounts.ErrNotFound) {
		t.Fatalf("load missing credential: %v", err)
	}
	if _, err := s.Player(ctx, player); !errors.Is(err, accounts.ErrNotFound) {
		t.Fatalf("load missing player: %v", err)
	}
	c := accounts.Credential{Kind: accounts.Device, ID: dev, Player: player, Hash: "$sha256$c2FsdA$aGFzaA", CreatedAt: t0}
	if err := s.Create(ctx, c, accounts.Player{ID: player, DisplayName: "Ann Lee", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Credential(ctx, accounts.Device, dev)
	if err != nil || got.Kind != c.Kind || got.ID != c.ID || got.Player != player || got.Hash != c.Hash || !got.CreatedAt.Equal(t0) {
		t.Fatalf("credential: %+v %v, want %+v", got, err, c)
	}
	p, err := s.Player(ctx, player)
	if err != nil || p.ID != player || p.DisplayName != "Ann Lee" || !p.CreatedAt.Equal(t0) {
		t.Fatalf("player: %+v %v", p, err)
	}
}

func testCreateTwice(t *testing.T, s Store) {
	ctx := t.Context()
	name, first, second := "ann"+uid(), "p-"+uid(), "p-"+uid()
	c := accounts.Credential{Kind: accounts.Password, ID: name, Player: first, Hash: "h1", CreatedAt: t0}
	if err := s.Create(ctx, c, accounts.Player{ID: first, DisplayName: "Ann", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	again := accounts.Credential{Kind: accounts.Password, ID: name, Player: second, Hash: "h2", CreatedAt: t0}
	if err := s.Create(ctx, again, accounts.Player{ID: second, DisplayName: "Impostor", CreatedAt: t0}); !errors.Is(err, accounts.ErrExists) {
		t.Fatalf("create twice: %v", err)
	}
	// The refused creation changed nothing and recorded no player.
	if got, err := s.Credential(ctx, accounts.Password, name); err != nil || got.Player != first || got.Hash != "h1" {
		t.Fatalf("after a refused create: %+v %v", got, err)
	}
	if _, err := s.Player(ctx, second); !errors.Is(err, accounts.ErrNotFound) {
		t.Fatalf("the refused create recorded its player: %v", err)
	}
}

func testKindsApart(t *testing.T, s Store) {
	ctx := t.Context()
	id := "same" + uid()
	a, b := "p-"+uid(), "p-"+uid()
	if err := s.Create(ctx, accounts.Credential{Kind: accounts.Device, ID: id, Player: a, Hash: "x"}, accounts.Player{ID: a, DisplayName: "A"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, accounts.Credential{Kind: accounts.Password, ID: id, Player: b, Hash: "y"}, accounts.Player{ID: b, DisplayName: "B"}); err != nil {
		t.Fatalf("a user name equal to a device id: %v", err)
	}
	if got, _ := s.Credential(ctx, accounts.Device, id); got.Player != a {
		t.Fatalf("device credential names %q, want %q", got.Player, a)
	}
	if got, _ := s.Credential(ctx, accounts.Password, id); got.Player != b {
		t.Fatalf("password credential names %q, want %q", got.Player, b)
	}
}

func testRename(t *testing.T, s Store) {
	ctx := t.Context()
	player := "p-" + uid()
	if err := s.Rename(ctx, player, "Nobody"); !errors.Is(err, accounts.ErrNotFound) {
		t.Fatalf("rename unknown: %v", err)
	}
	if _, err := s.Player(ctx, player); !errors.Is(err, accounts.ErrNotFound) {
		t.Fatalf("renaming an unknown player recorded it: %v", err)
	}
	if err := s.Create(ctx, accounts.Credential{Kind: accounts.Device, ID: "d" + uid(), Player: player, Hash: "x", CreatedAt: t0},
		accounts.Player{ID: player, DisplayName: "Ann", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.Rename(ctx, player, "Ann B."); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Player(ctx, player); err != nil || p.DisplayName != "Ann B." || !p.CreatedAt.Equal(t0) {
		t.Fatalf("after rename: %+v %v", p, err)
	}
}

// testConcurrentCreate: of many first sign-ins racing with one credential, exactly one creates it.
func testConcurrentCreate(t *testing.T, s Store) {
	ctx := t.Context()
	dev := "race" + uid()
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	players := make([]string, n)
	for i := range n {
		players[i] = "p-" + uid()
		wg.Go(func() {
			errs[i] = s.Create(ctx, accounts.Credential{Kind: accounts.Device, ID: dev, Player: players[i], Hash: "x"},
				accounts.Player{ID: players[i], DisplayName: "racer"})
		})
	}
	wg.Wait()
	winner := ""
	for i, err := range errs {
		switch {
		case err == nil && winner == "":
			winner = players[i]
		case err == nil:
			t.Fatalf("two creations succeeded: %s and %s", winner, players[i])
		case !errors.Is(err, accounts.ErrExists):
			t.Fatalf("create: %v", err)
		}
	}
	if got, err := s.Credential(ctx, accounts.Device, dev); err != nil || got.Player != winner || winner == "" {
		t.Fatalf("credential names %q (%v), the winner was %q", got.Player, err, winner)
	}
}

// testNames: a display name is held by one player at a time, whatever its case.
func testNames(t *testing.T, s Store) {
	ctx := t.Context()
	name, ann, bob := "Ann "+uid(), "p-"+uid(), "p-"+uid()
	if err := s.ClaimName(ctx, name, ann); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimName(ctx, name, ann); err != nil {
		t.Fatalf("claiming one's own name again: %v", err)
	}
	if err := s.ClaimName(ctx, strings.ToUpper(name), bob); !errors.Is(err, accounts.ErrExists) {
		t.Fatalf("claiming another's name in capitals: %v", err)
	}
	if err := s.ReleaseName(ctx, name, bob); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimName(ctx, name, bob); !errors.Is(err, accounts.ErrExists) {
		t.Fatalf("a release by another player freed the name: %v", err)
	}
	if err := s.ReleaseName(ctx, name, ann); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimName(ctx, name, bob); err != nil {
		t.Fatalf("claiming a released name: %v", err)
	}
}

func testVisibility(t *testing.T, s Store) {
	ctx := t.Context()
	ann, bob := "p-"+uid(), "p-"+uid()
	if err := s.SetVisibility(ctx, ann, 3); err != nil {
		t.Fatal(err)
	}
	got, err := s.Visibilities(ctx, []string{bob, ann})
	if err != nil || len(got) != 2 || got[0] != 0 || got[1] != 3 {
		t.Fatalf("visibilities: %v, %v", got, err)
	}
	if got, err := s.Visibilities(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("no players: %v, %v", got, err)
	}
}
