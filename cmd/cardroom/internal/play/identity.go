package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"cardroom.dev/client"
)

// store is what the client keeps between runs, in one directory (os.UserConfigDir()/cardroom/ by
// default): the device credential it signs in with (read and written by the client library), and
// the seat it holds, so that a run after `q`, a crash or a lost connection returns to that seat. Both files are the player's own
// (mode 0600, in a directory of mode 0700): the credential signs in as the player.
type store struct {
	dir string
}

// seatRecord is the seat the player holds at a table not yet finished, one per cardroom address
// and game.
type seatRecord struct {
	Addr  string    `json:"addr"`
	Game  string    `json:"game"`
	Table string    `json:"table_id"`
	Seat  *int      `json:"seat,omitempty"`
	Saved time.Time `json:"saved"`
}

const (
	credentialFile = "credential.json"
	seatsFile      = "seats.json"
)

// defaultDir is os.UserConfigDir()/cardroom.
func defaultDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "cardroom"), nil
}

// credentials keep the device credential, in the file the client library reads and writes
// ({"device_id": …, "secret": …}, mode 0600).
func (s store) credentials() client.CredentialStore {
	return client.FileCredentials(filepath.Join(s.dir, credentialFile))
}

func seatKey(addr, game string) string { return addr + " " + game }

func (s store) seats() (map[string]seatRecord, error) {
	rs := map[string]seatRecord{}
	err := s.read(seatsFile, &rs)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]seatRecord{}, nil
	}
	return rs, err
}

// seat is the seat held at addr: at a table of game, or (game "") the one saved last. ok is false
// when there is none.
func (s store) seat(addr, game string) (r seatRecord, ok bool, err error) {
	rs, err := s.seats()
	if err != nil {
		return seatRecord{}, false, err
	}
	if game != "" {
		r, ok = rs[seatKey(addr, game)]
		return r, ok, nil
	}
	for _, c := range rs {
		if c.Addr == addr && (!ok || c.Saved.After(r.Saved)) {
			r, ok = c, true
		}
	}
	return r, ok, nil
}

func (s store) saveSeat(r seatRecord) error {
	rs, err := s.seats()
	if err != nil {
		return err
	}
	r.Saved = time.Now().UTC()
	rs[seatKey(r.Addr, r.Game)] = r
	return s.write(seatsFile, rs)
}

// forgetSeat removes the record of table (it finished, or is gone).
func (s store) forgetSeat(addr, game, table string) error {
	rs, err := s.seats()
	if err != nil {
		return err
	}
	if r, ok := rs[seatKey(addr, game)]; !ok || r.Table != table {
		return nil
	}
	delete(rs, seatKey(addr, game))
	return s.write(seatsFile, rs)
}

func (s store) read(name string, v any) error {
	b, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(s.dir, name), err)
	}
	return nil
}

// write replaces name atomically (a temporary file renamed over it), with mode 0600.
func (s store) write(name string, v any) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, name+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(s.dir, name))
}
