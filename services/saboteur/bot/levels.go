package bot

import (
	"time"

	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/saboteur/engine"
)

// Levels are the game's bots by level (search.Levels): the role-aware heuristic, and the search
// bot bounded by a time budget per decision.
var Levels = search.Levels[engine.Action]{
	Normal: RoleAware{},
	Strong: func(budget time.Duration) kit.Bot[engine.Action] { return NewStrong(StrongOptions{Budget: budget}) },
}
