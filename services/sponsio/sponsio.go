// Package sponsio serves the Sponsio card game: its rules engine bound to its bots by level, as
// the harness runs it.
package sponsio

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sponsio/bot"
	spe "cardroom.dev/services/sponsio/engine"
)

// Engine returns Sponsio as a type-erased engine with its bots by level (bot.Levels) for Suggest.
func Engine() engine.Engine {
	return search.Engine[*spe.State, spe.Action](spe.Game{}, bot.Levels)
}
