package bot

import (
	"time"

	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sabaisabai/engine"
)

// Levels are the game's bots by level (search.Levels): the heuristic bot (normal; easy is it with
// mistakes, waiting when it waits), and the search bot (strong) with a time budget per decision.
var Levels = search.Levels[engine.Action]{
	Normal: Heuristic{},
	Strong: func(budget time.Duration) kit.Bot[engine.Action] { return NewStrong(StrongOptions{Budget: budget}) },
}
