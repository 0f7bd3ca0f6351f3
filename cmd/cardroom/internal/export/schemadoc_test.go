package export

import (
	"os"
	"strings"
	"testing"
)

// TestSchemaDoc: docs/events-tables.md is what WriteSchemaDoc writes (run with
// CARDROOM_UPDATE_DOCS=1 to write it).
func TestSchemaDoc(t *testing.T) {
	var b strings.Builder
	if err := WriteSchemaDoc(&b); err != nil {
		t.Fatal(err)
	}
	const path = "../../../../docs/events-tables.md"
	if os.Getenv("CARDROOM_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != b.String() {
		t.Fatalf("%s is stale: run `CARDROOM_UPDATE_DOCS=1 go test -run TestSchemaDoc ./internal/export` in cmd/cardroom", path)
	}
}
