// Package sabaisabai is the sabai-sabai game as the harness runs it: the rules engine bound to
// the heuristic bot.
package sabaisabai

import (
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai/bot"
	"cardroom.dev/services/sabaisabai/engine"
)

// Engine returns sabai-sabai as a type-erased engine (game id "sabaisabai") whose Suggest uses the
// heuristic bot.
func Engine() kit.Engine {
	return kit.Erase[*engine.State, engine.Action](engine.Game{}, bot.Heuristic{})
}
