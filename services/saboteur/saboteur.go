// Package saboteur binds the Saboteur rules engine and its bots by level for the harness.
package saboteur

import (
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/saboteur/bot"
	"cardroom.dev/services/saboteur/engine"
)

// Engine returns Saboteur (modes saboteur2 and classic) as a type-erased engine whose suggested
// moves come from its bots by level (bot.Levels).
func Engine() kit.Engine {
	return search.Engine[*engine.State, engine.Action](engine.Game{}, bot.Levels)
}
