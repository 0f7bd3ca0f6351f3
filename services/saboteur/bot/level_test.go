package bot

import (
	"testing"

	"cardroom.dev/services/kit/engine/search"
)

// TestLevels: the strong level is the search bot, the normal one the role-aware bot.
func TestLevels(t *testing.T) {
	if b := Levels.For(search.Strong); !isStrong(b) {
		t.Errorf("strong is %T", b)
	}
	if b := Levels.For(search.Normal); b != (RoleAware{}) {
		t.Errorf("normal is %T", b)
	}
}

func isStrong(b any) bool {
	_, ok := b.(*Strong)
	return ok
}
