// Package sabaisabai is the sabai-sabai game as the harness runs it: the rules engine bound to
// its bots by level.
package sabaisabai

import (
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sabaisabai/bot"
	"cardroom.dev/services/sabaisabai/engine"
)

// Engine returns sabai-sabai as a type-erased engine (game id "sabaisabai") whose Suggest uses its
// bots by level (bot.Levels).
func Engine() kit.Engine {
	return search.Engine[*engine.State, engine.Action](engine.Game{}, bot.Levels)
}
