package gateway

import (
	"slices"
	"testing"
)

// TestClaimEndsOnlyItself: a table whose lease was lost and claimed again while the first claim's
// driver was still ending keeps its new driver when the old one returns.
func TestClaimEndsOnlyItself(t *testing.T) {
	held := claims{m: map[string]*claim{}}
	oldCtx, old := held.add(t.Context(), "t")
	if old == nil {
		t.Fatal("the first claim was refused")
	}
	if _, again := held.add(t.Context(), "t"); again != nil {
		t.Fatal("a held table was claimed twice")
	}
	held.lost("t") // the lease was not renewed: the old driver is told to stop...
	if oldCtx.Err() == nil {
		t.Fatal("the lost claim's driver was not canceled")
	}
	newCtx, cur := held.add(t.Context(), "t") // ...and the table is claimed again before it has
	if cur == nil {
		t.Fatal("the table could not be claimed again after its lease was lost")
	}
	held.end("t", old) // the old driver returns now
	if newCtx.Err() != nil {
		t.Fatal("the old driver's end canceled the newer claim of its table")
	}
	if got := held.ids(); !slices.Equal(got, []string{"t"}) {
		t.Fatalf("held %v after the old driver ended, want [t]", got)
	}
	held.end("t", cur)
	if newCtx.Err() == nil || len(held.ids()) != 0 {
		t.Fatal("the current claim's end did not cancel and forget it")
	}
}
