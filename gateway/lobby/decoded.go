package lobby

import (
	"encoding/json"
	"slices"
	"sync"
)

// maxDecoded bounds the tables a store keeps decoded: some thousands of records of a few hundred
// bytes each.
const maxDecoded = 4096

// decodedTables keep the latest record decoded of each recently loaded table, with the JSON it was
// decoded from. A table is loaded many times between two writes (each Watch stream's start, each
// notice its streams wait on while it starts, every read before a write) and decoding its JSON
// was most of a load's work; a load whose JSON is byte for byte the one kept returns a copy of the
// table kept instead. Comparing the JSON, not the version, keeps a table removed and made again
// under the same id from ever meeting its predecessor's record.
type decodedTables struct {
	mu sync.Mutex
	m  map[string]decodedTable
}

type decodedTable struct {
	raw string
	t   Table
}

// decode returns the table raw encodes (without its version), the table id's kept record when
// raw is what it was decoded from. (Only what was decoded is kept, never a table as written:
// decoded, its times lose their monotonic readings and its empty slices become nil.)
func (d *decodedTables) decode(id string, raw string) (Table, error) {
	d.mu.Lock()
	k, ok := d.m[id]
	d.mu.Unlock()
	if ok && k.raw == raw {
		return k.t.clone(), nil
	}
	var t Table
	if err := json.Unmarshal([]byte(raw), &t); err != nil {
		return Table{}, err
	}
	kept := t.clone()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = make(map[string]decodedTable)
	}
	if _, ok := d.m[id]; !ok && len(d.m) >= maxDecoded {
		// Forget one at random (the map's order): a table still loaded is decoded again, once.
		for old := range d.m {
			delete(d.m, old)
			break
		}
	}
	d.m[id] = decodedTable{raw: raw, t: kept}
	return t, nil
}

// forget drops id's kept record (its table was removed).
func (d *decodedTables) forget(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.m, id)
}

// clone is t with slices of its own, so that a caller may change what it loaded.
func (t Table) clone() Table {
	t.Players = slices.Clone(t.Players)
	t.Seats = slices.Clone(t.Seats)
	t.Options = slices.Clone(t.Options)
	t.Tickets = slices.Clone(t.Tickets)
	t.Refusal = slices.Clone(t.Refusal)
	t.Requests = slices.Clone(t.Requests)
	return t
}
