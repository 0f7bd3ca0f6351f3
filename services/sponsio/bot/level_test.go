package bot

import (
	"testing"

	"cardroom.dev/services/kit/engine/search"
)

// TestLevels: the strong level is the search bot, the normal one the heuristic bot.
func TestLevels(t *testing.T) {
	if b, ok := Levels.For(search.Strong).(*Strong); !ok {
		t.Errorf("strong is %T", b)
	}
	if b := Levels.For(search.Normal); b != (Heuristic{}) {
		t.Errorf("normal is %T", b)
	}
}
