// Package sapotagem binds Sapotagem's rules and its heuristic bot into the engine the rules
// service runs.
package sapotagem

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sapotagem/bot"
	rules "cardroom.dev/services/sapotagem/engine"
)

// Engine is Sapotagem as the harness runs it, with the heuristic bot suggesting moves.
func Engine() engine.Engine {
	return engine.Erase[*rules.State, rules.Action](rules.Game{}, bot.Heuristic{})
}
