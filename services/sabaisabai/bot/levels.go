package bot

import (
	"time"

	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sabaisabai/engine"
)

// Levels are the game's bots by level (search.Levels): the heuristic bot, and the search bot.
var Levels = search.Levels[engine.Action]{
	Normal: Heuristic{},
	// The search bot replaces the heuristic bot here once it is written.
	Strong: func(time.Duration) kit.Bot[engine.Action] { return Heuristic{} },
}
