package search

import (
	"testing"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
)

// TestLevelOf: the API's bot levels are the Levels of the same names, and whatever is not one plays
// at Normal.
func TestLevelOf(t *testing.T) {
	for api, want := range map[gamev1.BotLevel]Level{
		gamev1.BotLevel_BOT_LEVEL_EASY:   Easy,
		gamev1.BotLevel_BOT_LEVEL_NORMAL: Normal,
		gamev1.BotLevel_BOT_LEVEL_STRONG: Strong,
	} {
		if got := LevelOf(api); got != want {
			t.Errorf("LevelOf(%v) = %d, want %d", api, got, want)
		}
	}
	if got := len(gamev1.BotLevel_name); got != 4 {
		t.Errorf("cardroom.game.v1.BotLevel has %d values: map the new ones here", got)
	}
}
