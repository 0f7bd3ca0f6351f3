package lobby

import (
	"slices"
	"testing"
	"time"

	"cardroom.dev/services/kit/testenv"
)

// TestClaimDriveRepeated: the same claim sent twice (the client retrying a script whose answer was
// lost) returns the same tables the second time, not none.
func TestClaimDriveRepeated(t *testing.T) {
	rdb := testenv.Redis(t)
	r, err := NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"t1", "t2"} {
		if err := r.AddDrive(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	keys := []string{r.prefix + "drive", r.prefix + "owner", r.prefix + "claim:fixed-token"}
	claim := func() []string {
		ids, err := claimDriveScript.Run(t.Context(), rdb, keys, now.UnixMilli(), now.Add(time.Minute).UnixMilli(), 10, "gw-1").StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		return ids
	}
	first, again := claim(), claim()
	if !slices.Equal(first, []string{"t1", "t2"}) || !slices.Equal(again, first) {
		t.Fatalf("claimed %v, then %v on the repeat", first, again)
	}
	// A new claim (another token) finds nothing: the leases run for a minute.
	if ids, err := r.ClaimDrive(t.Context(), "gw-2", now, time.Minute, 10); err != nil || len(ids) != 0 {
		t.Fatalf("a later claim got %v (%v)", ids, err)
	}
}
