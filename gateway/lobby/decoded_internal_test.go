package lobby

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// TestTableCloneCoversEveryField: every field of Table that can share memory is one clone copies,
// so a field added later fails here until clone copies it too.
func TestTableCloneCoversEveryField(t *testing.T) {
	copied := map[string]bool{"Players": true, "Seats": true, "Options": true, "Tickets": true, "Refusal": true, "Requests": true}
	tt := reflect.TypeFor[Table]()
	for i := range tt.NumField() {
		f := tt.Field(i)
		switch f.Type.Kind() {
		case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
			if !copied[f.Name] {
				t.Errorf("Table.%s (%s) shares memory between copies: clone must copy it", f.Name, f.Type)
			}
		case reflect.Struct:
			if f.Type != reflect.TypeFor[Player]() && f.Type.PkgPath() != "time" {
				t.Errorf("Table.%s (%s): check that clone need not copy it, and say so here", f.Name, f.Type)
			}
		}
	}
	for name := range copied {
		if _, ok := tt.FieldByName(name); !ok {
			t.Errorf("clone copies Table.%s, which is gone", name)
		}
	}
}

// TestDecodedTables: a record is decoded again when its JSON changes, and the tables kept stay
// within maxDecoded.
func TestDecodedTables(t *testing.T) {
	var d decodedTables
	raw := func(tb Table) string { b, _ := json.Marshal(tb); return string(b) }
	a := Table{ID: "a", Players: []Player{{ID: "p1"}}}
	got, err := d.decode("a", raw(a))
	if err != nil || len(got.Players) != 1 {
		t.Fatalf("decode: %+v %v", got, err)
	}
	a.Players = append(a.Players, Player{ID: "p2"})
	if got, _ := d.decode("a", raw(a)); len(got.Players) != 2 {
		t.Fatalf("after a change: %+v, want the new record", got)
	}
	if _, err := d.decode("b", "{"); err == nil {
		t.Fatal("bad JSON decoded")
	}
	for i := range maxDecoded + 100 {
		id := "t" + strconv.Itoa(i)
		if _, err := d.decode(id, raw(Table{ID: id})); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.m); n > maxDecoded {
		t.Fatalf("%d tables kept, at most %d", n, maxDecoded)
	}
	d.forget("t1")
	if _, ok := d.m["t1"]; ok {
		t.Fatal("forgotten table kept")
	}
}
