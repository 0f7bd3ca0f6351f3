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
	many := make([]int, maxCachedActions)
	for i := range many {
		many[i] = 1000 + i
	}
	check(many)
	if n := len(c.m); n != maxCachedActions {
		t.Errorf("cache holds %d after a full list, want %d (started again)", n, maxCachedActions)
	}
	calls = 0
	check([]int{1, 1000})
	if calls != 1 || len(c.m) > maxCachedActions {
		t.Errorf("after the cache filled: %d encodings for one new action, %d kept", calls, len(c.m))
	}
}
