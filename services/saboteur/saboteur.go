// Package saboteur binds the Saboteur rules engine and its role-aware bot for the harness.
package saboteur

import (
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/saboteur/bot"
	"cardroom.dev/services/saboteur/engine"
)

// Engine returns Saboteur (modes saboteur2 and classic) as a type-erased engine whose suggested
// moves come from the role-aware bot.
func Engine() kit.Engine {
	return kit.Erase[*engine.State, engine.Action](engine.Game{}, bot.RoleAware{})
}
