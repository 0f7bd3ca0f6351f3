package bot

import (
	"time"

	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/saboteur/engine"
)

// Levels are the game's bots by level (search.Levels): the role-aware bot, and the search bot.
var Levels = search.Levels[engine.Action]{
	Normal: RoleAware{},
	// The search bot replaces the role-aware bot here once it is written.
	Strong: func(time.Duration) kit.Bot[engine.Action] { return RoleAware{} },
}
