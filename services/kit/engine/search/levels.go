package search

import (
	"time"

	"cardroom.dev/services/kit/engine"
)

// Level is how well a bot plays.
type Level int

// Levels: Easy is a game's heuristic bot with mistakes, Normal the heuristic bot, Strong its search
// bot.
const (
	Easy Level = iota + 1
	Normal
	Strong
)

// EasyMistakes is the share of decisions an easy bot plays at random.
var EasyMistakes = 0.5

// StrongBudget is the time limit of a strong decision served by Levels.For: a busy machine costs
// the search iterations, not the table time.
var StrongBudget = 100 * time.Millisecond

// Levels are one game's bots by level: its heuristic bot, and how to make its search bot with a
// time budget per decision (0: iterations only, deterministic given the rand source).
type Levels[A any] struct {
	Normal engine.Bot[A]
	Strong func(budget time.Duration) engine.Bot[A]
}

// For returns the bot of level l: Normal for an unknown level, and the strong bot bounded by
// StrongBudget.
func (ls Levels[A]) For(l Level) engine.Bot[A] {
	switch l {
	case Easy:
		return ls.Easy()
	case Strong:
		return ls.Strong(StrongBudget)
	}
	return ls.Normal
}

// Easy is the normal bot playing a random legal action in EasyMistakes of its decisions (of those
// it wants to act in, when it may wait: a MistakenWaiter).
func (ls Levels[A]) Easy() engine.Bot[A] {
	m := Mistaken[A]{Bot: ls.Normal, Rate: EasyMistakes}
	if _, ok := ls.Normal.(engine.Waiter[A]); ok {
		return MistakenWaiter[A]{m}
	}
	return m
}
