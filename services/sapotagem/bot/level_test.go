package bot

import (
	"testing"

	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sapotagem/engine"
)

func TestForLevels(t *testing.T) {
	if _, ok := For(Easy).(search.Mistaken[engine.Action]); !ok {
		t.Errorf("easy is %T", For(Easy))
	}
	if _, ok := For(Normal).(Heuristic); !ok {
		t.Errorf("normal is %T", For(Normal))
	}
	if _, ok := For(Level(0)).(Heuristic); !ok {
		t.Errorf("an unknown level is %T, want the normal bot", For(Level(0)))
	}
	if _, ok := For(Strong).(*search.Bot[*engine.State, engine.Action]); !ok {
		t.Errorf("strong is %T", For(Strong))
	}
}
