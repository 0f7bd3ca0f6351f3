package search

import (
	"math/rand/v2"
	"testing"
	"time"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

type firstBot struct{}

func (firstBot) Choose(_ proto.Message, legal []int, _ *rand.Rand) int { return legal[0] }

// TestLevels: each level gets its bot, an unknown one the normal bot, and the strong bot its
// budget.
func TestLevels(t *testing.T) {
	var budget time.Duration
	strong := engine.RandomBot[int]{}
	ls := Levels[int]{Normal: firstBot{}, Strong: func(b time.Duration) engine.Bot[int] { budget = b; return strong }}
	if m, ok := ls.For(Easy).(Mistaken[int]); !ok || m.Rate != EasyMistakes || m.Bot != (firstBot{}) {
		t.Errorf("easy is %#v", ls.For(Easy))
	}
	if _, ok := ls.For(Normal).(firstBot); !ok {
		t.Errorf("normal is %T", ls.For(Normal))
	}
	if _, ok := ls.For(Level(0)).(firstBot); !ok {
		t.Errorf("an unknown level is %T, want the normal bot", ls.For(Level(0)))
	}
	if b := ls.For(Strong); b != strong || budget != StrongBudget {
		t.Errorf("strong is %T with budget %v, want the strong bot with %v", b, budget, StrongBudget)
	}
}
