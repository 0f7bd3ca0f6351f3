package engine

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestActionCache: the cache answers each action with its own encoding, in order, encodes an action
// once while it is kept, and starts again when full.
func TestActionCache(t *testing.T) {
	c := newActionCache[int]()
	calls := 0
	enc := func(a int) proto.Message { calls++; return wrapperspb.Int64(int64(a)) }
	check := func(acts []int) {
		t.Helper()
		got, err := c.encode(acts, enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(acts) {
			t.Fatalf("%d encodings for %d actions", len(got), len(acts))
		}
		for i, a := range acts {
			want, _ := proto.Marshal(wrapperspb.Int64(int64(a)))
			if got[i].TypeURL != "type.googleapis.com/google.protobuf.Int64Value" || string(got[i].Value) != string(want) {
				t.Errorf("action %d: %q %x, want its own encoding %x", a, got[i].TypeURL, got[i].Value, want)
			}
		}
	}
	check([]int{1, 2, 3})
	check([]int{3, 1, 4, 2})
	if calls != 4 {
		t.Errorf("%d encodings made for 4 distinct actions", calls)
	}
	// Filling the newer generation makes it the older: what is listed again stays.
	many := make([]int, maxCachedActions)
	for i := range many {
		many[i] = 1000 + i
	}
	check(many)
	calls = 0
	check([]int{1, 1000})
	if calls != 0 {
		t.Errorf("%d encodings made again for actions of the older generation", calls)
	}
	for i := range many {
		many[i] += maxCachedActions
	}
	check(many)
	calls = 0
	check([]int{1, 1000, 2, 5})
	if calls != 2 {
		t.Errorf("%d encodings for two actions listed again and two dropped, want 2", calls)
	}
	if n := len(c.m) + len(c.old); n > 2*maxCachedActions {
		t.Errorf("cache holds %d, more than two generations", n)
	}
}
