// Package sapotagem binds Sapotagem's rules and its bots by level into the engine the rules
// service runs.
package sapotagem

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sapotagem/bot"
	rules "cardroom.dev/services/sapotagem/engine"
)

// Engine is Sapotagem as the harness runs it, with its bots by level (bot.Levels) suggesting moves.
func Engine() engine.Engine {
	return search.Engine[*rules.State, rules.Action](rules.Game{}, bot.Levels)
}
