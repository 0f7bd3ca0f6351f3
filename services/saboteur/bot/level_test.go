package bot

import (
	"testing"

	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/saboteur/engine"
)

// TestLevels: the strong level is the search bot, the normal one the role-aware bot.
func TestLevels(t *testing.T) {
	if b, ok := Levels.For(search.Strong).(*search.Bot[*engine.State, engine.Action]); !ok {
		t.Errorf("strong is %T", b)
	}
	if b := Levels.For(search.Normal); b != (RoleAware{}) {
		t.Errorf("normal is %T", b)
	}
}
