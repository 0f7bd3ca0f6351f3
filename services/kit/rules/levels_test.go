package rules_test

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

// askedBots record which of a game's bots by level were asked for a move.
type askedBots struct {
	mu      sync.Mutex
	asked   []string
	budgets []time.Duration
}

type namedBot struct {
	name string
	rec  *askedBots
}

func (b namedBot) Choose(_ proto.Message, legal []string, _ *rand.Rand) string {
	b.rec.mu.Lock()
	b.rec.asked = append(b.rec.asked, b.name)
	b.rec.mu.Unlock()
	return legal[0]
}

func (r *askedBots) take() ([]string, []time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, b := r.asked, r.budgets
	r.asked, r.budgets = nil, nil
	return a, b
}

// TestSuggestActionLevel: SuggestAction's level reaches the game's Levels.For (the registration
// search.Engine makes): normal (and unspecified) asks the normal bot, strong the strong bot made with
// search.StrongBudget, easy the normal bot's mistaken twin; a level that is not one is refused.
func TestSuggestActionLevel(t *testing.T) {
	rec := &askedBots{}
	levels := search.Levels[string]{
		Normal: namedBot{"normal", rec},
		Strong: func(budget time.Duration) engine.Bot[string] {
			rec.mu.Lock()
			rec.budgets = append(rec.budgets, budget)
			rec.mu.Unlock()
			return namedBot{"strong", rec}
		},
	}
	// Every easy decision a mistake: the normal bot is never asked.
	was := search.EasyMistakes
	search.EasyMistakes = 1
	t.Cleanup(func() { search.EasyMistakes = was })

	srv := rules.New(search.Engine[*highcard.State, string](highcard.New(), levels), store.NewMemory(), nil, rules.Options{})
	e := &env{client: serve(t, srv), srv: srv}
	e.create(t, "lv", tableConfig(3, 1, 0))
	for _, c := range []struct {
		level gamev1.BotLevel
		asked string // "": no bot of the levels was asked
	}{
		{gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED, "normal"},
		{gamev1.BotLevel_BOT_LEVEL_NORMAL, "normal"},
		{gamev1.BotLevel_BOT_LEVEL_STRONG, "strong"},
		{gamev1.BotLevel_BOT_LEVEL_EASY, ""},
	} {
		sug, err := e.client.SuggestAction(t.Context(), &rulesv1.SuggestActionRequest{TableId: "lv", Seat: 0, Level: c.level})
		if err != nil {
			t.Fatalf("%v: %v", c.level, err)
		}
		if sug.GetAction() == nil {
			t.Fatalf("%v: no action", c.level)
		}
		asked, budgets := rec.take()
		if c.asked == "" && len(asked) != 0 || c.asked != "" && (len(asked) != 1 || asked[0] != c.asked) {
			t.Errorf("at %v the bots asked were %v, want %q", c.level, asked, c.asked)
		}
		if c.asked == "strong" && (len(budgets) != 1 || budgets[0] != search.StrongBudget) {
			t.Errorf("the strong bot was made with budgets %v, want %v", budgets, search.StrongBudget)
		}
	}
	for _, bad := range []gamev1.BotLevel{4, -1, 100} {
		_, err := e.client.SuggestAction(t.Context(), &rulesv1.SuggestActionRequest{TableId: "lv", Seat: 0, Level: bad})
		if c, v := violation(err); c != codes.InvalidArgument || v != refusal.UnknownBotLevel {
			t.Errorf("level %d: %v %s, want INVALID_ARGUMENT %s", bad, c, v, refusal.UnknownBotLevel)
		}
	}
	if asked, _ := rec.take(); len(asked) != 0 {
		t.Errorf("refused levels asked the bots %v", asked)
	}
}
