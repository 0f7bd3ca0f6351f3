// Package sponsio serves the Sponsio card game: its rules engine bound to its heuristic bot, as
// the harness runs it.
package sponsio

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sponsio/bot"
	spe "cardroom.dev/services/sponsio/engine"
)

// Engine returns Sponsio as a type-erased engine with the heuristic bot for Suggest.
func Engine() engine.Engine {
	return engine.Erase[*spe.State, spe.Action](spe.Game{}, bot.Heuristic{})
}
