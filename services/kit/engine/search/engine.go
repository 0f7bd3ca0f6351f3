package search

import (
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/engine"
)

// Engine binds game g and its bots by level into the Engine the harness runs: the suggestion asked
// at a cardroom.game.v1.BotLevel comes from ls.For at the Level of the same number (unspecified and
// unknown numbers: Normal).
func Engine[S, A any](g engine.Game[S, A], ls Levels[A]) engine.Engine {
	return engine.EraseLevels(g, func(l gamev1.BotLevel) engine.Bot[A] { return ls.For(LevelOf(l)) })
}

// LevelOf is the Level of a cardroom.game.v1.BotLevel: the numbers are the same (0, unspecified,
// is no Level, and For plays it at Normal).
func LevelOf(l gamev1.BotLevel) Level { return Level(l) }
