// Package engine defines what a game is to cardroom: a pure, deterministic rules engine.
//
// A Game turns (config, seed) into a state, and a state plus one seat's action into a new state and
// the events that action caused, or a Violation. It has no clock (time arrives with each move), no
// randomness but the seeded source it keeps inside its state, and no I/O, so every game replays from
// its seed and action log, bots and load tests call it millions of times, and the harness
// (package rules) does all I/O once for every game.
//
// Games are written against the typed Game interface; the harness and the tools use the type-erased
// Engine that Erase makes of a Game.
package engine

import (
	"fmt"
	"math/rand/v2"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"google.golang.org/protobuf/proto"
)

// Public is the audience of an event everybody may see. Seat audiences are seat numbers (from 0).
const Public = -1

// Spectator is the viewer who holds no seat: they see public information only.
const Spectator = -1

// Config is what a table is dealt from.
type Config struct {
	// Seats is the number of players.
	Seats int
	// Seed decides every random choice of the game.
	Seed uint64
	// Options is the game's options message (Info.Options' type). It is never nil: a table created
	// without options gets an empty message, which means the game's defaults.
	Options proto.Message
	// TurnTime is how long a seat has for each action it is expected to take; zero means no limit.
	// Games that honour it report a Deadline and decide in Timeout what happens when it passes.
	TurnTime time.Duration
	// Start is when the table was created: the game's clock starts here.
	Start time.Time
	// Kinds is each seat's kind as the table's config names it (a person, or a bot the harness
	// plays); nil, or UNSPECIFIED entries, when the harness does not say (tests, simulations).
	// Real-time games use it to be fair between people and bots (sabai-sabai's throw window).
	Kinds []gamev1.PlayerKind
}

// Move is one seat's action at a moment. At comes from the harness's clock and is recorded in the
// action log, so a replay sees the same times.
type Move[A any] struct {
	Seat   int
	Action A
	At     time.Time
}

// Event is something that happened, for one audience: Public or one seat. A game must never put in
// a public event, or in one seat's event, anything that audience may not know.
type Event struct {
	To      int
	Payload proto.Message
}

// Info describes a game to the harness.
type Info struct {
	// Name is the game id used in table configs, subjects and routes, e.g. "sapotagem".
	Name     string
	MinSeats int
	MaxSeats int
	// UsualSeats is the number of seats of the game's usual table, what matchmaking's "Play" asks
	// for unless the player chooses (0: MaxSeats).
	UsualSeats int
	// Prototypes of the game's messages (empty instances), for decoding google.protobuf.Any.
	Options proto.Message
	Action  proto.Message
	View    proto.Message
	// DefaultOptions are the options with the game's defaults written out where a client's editor
	// starts from them (Sponsio's standard coupon table); nil when the empty Options say it all.
	// Setup must accept them and deal as with the empty Options.
	DefaultOptions proto.Message
}

// Game is a game's rules. S is its state (usually a pointer to a struct); A is its action in the
// form the engine works with (a small value type is best for speed); actions cross the API as the
// proto message EncodeAction makes of them.
//
// Apply and Timeout change the state in place. When they return an error the state must be exactly
// as it was: validate first, then change.
type Game[S, A any] interface {
	Info() Info
	// Setup deals a table. Options or seat counts the game refuses are a Violation of kind Malformed
	// naming them. The events are those of the deal (e.g. each seat's hand, privately).
	Setup(cfg Config) (S, []Event, error)
	// Apply applies one seat's action.
	Apply(s S, m Move[A]) ([]Event, error)
	// Deadline is when the state stops waiting for actions, if it waits on time at all.
	Deadline(s S) (time.Time, bool)
	// Timeout applies what the rules say happens when the deadline has passed; at is not before it.
	Timeout(s S, at time.Time) ([]Event, error)
	// Legal appends to buf the actions seat may take now and returns it (nil or empty: none).
	Legal(s S, seat int, buf []A) []A
	// View is what viewer (a seat, or Spectator) may see now.
	View(s S, viewer int) proto.Message
	// Outcome reports the result once the game is over.
	Outcome(s S) (*gamev1.Outcome, bool)
	// Clone returns an independent copy of s.
	Clone(s S) S
	EncodeState(s S) ([]byte, error)
	DecodeState(b []byte) (S, error)
	EncodeAction(a A) proto.Message
	// DecodeAction turns the action message into the engine's action; a message that can never be
	// valid is a Violation of kind Malformed.
	DecodeAction(m proto.Message) (A, error)
	// Describer puts the game's actions and events into words.
	Describer[S, A]
}

// Bot chooses a seat's move from what that seat may see: its view and its legal actions. legal is
// never empty. A bot must not look at anything else, so it cannot cheat.
type Bot[A any] interface {
	Choose(view proto.Message, legal []A, r *rand.Rand) A
}

// Waiter is a bot that may prefer to do nothing now. In real-time games a seat can nearly always act
// (throw a card, make a call), and a bot that always acted would flood the table; such a bot says
// whether it wants to act and with what. The harness asks a Waiter instead of calling Choose, and
// reports "nothing to do" when it declines.
type Waiter[A any] interface {
	Wants(view proto.Message, legal []A) (A, bool)
}

// Pacer is a game whose rules make a bot wait before some of its actions are allowed (sabai-sabai's
// Ruling B1: a bot throws only after its reaction delay). NotBefore is the earliest moment seat's
// action a may be applied; false when it may be applied at once. The harness tells the bots' driver,
// which plays the move at that moment rather than trying and being refused until it is allowed.
type Pacer[S, A any] interface {
	NotBefore(s S, seat int, a A) (time.Time, bool)
}

// RandomBot plays a uniformly random legal action.
type RandomBot[A any] struct{}

// Choose implements Bot.
func (RandomBot[A]) Choose(_ proto.Message, legal []A, r *rand.Rand) A {
	return legal[r.IntN(len(legal))]
}

// Engine is a Game with its types erased, as the harness uses it.
type Engine interface {
	Info() Info
	Setup(cfg Config) (State, []Event, error)
	DecodeState(b []byte) (State, error)
	// DescribeEvent labels one of the game's event payloads in words (see Describer); seats are
	// named by SeatRef tokens. Never empty.
	DescribeEvent(payload proto.Message) string
}

// State is one table's state bound to its game.
type State interface {
	// Apply decodes and applies one seat's action message.
	Apply(seat int, action proto.Message, at time.Time) ([]Event, error)
	Deadline() (time.Time, bool)
	Timeout(at time.Time) ([]Event, error)
	Legal(seat int) []proto.Message
	// LegalLabelled is Legal with the label of each action in words (labels[i] names actions[i];
	// see Describer): non-empty, and different from one another.
	LegalLabelled(seat int) (actions []proto.Message, labels []string)
	View(viewer int) proto.Message
	Outcome() (*gamev1.Outcome, bool)
	// Suggest asks the game's bot of level (unspecified: normal) for seat's move; false when the
	// seat has nothing to do or its bot would rather wait (see Waiter).
	Suggest(seat int, level gamev1.BotLevel, r *rand.Rand) (proto.Message, bool)
	// NotBefore is the earliest moment seat's action may be applied, for games that make bots wait
	// (see Pacer); false when it may be applied at once or the action is not the game's.
	NotBefore(seat int, action proto.Message) (time.Time, bool)
	Encode() ([]byte, error)
}

// Erase binds a game and its bot (nil: a random bot) into an Engine; the bot plays at every level.
func Erase[S, A any](g Game[S, A], bot Bot[A]) Engine {
	if bot == nil {
		bot = RandomBot[A]{}
	}
	return EraseLevels(g, func(gamev1.BotLevel) Bot[A] { return bot })
}

// EraseLevels binds a game and its bots by level into an Engine: Suggest at a level asks bots(level)
// (search.Engine binds a game's search.Levels). bots is called for each suggestion with the level
// asked, unspecified included, and must return a bot for any value.
func EraseLevels[S, A any](g Game[S, A], bots func(gamev1.BotLevel) Bot[A]) Engine {
	e := erased[S, A]{g: g, bots: bots}
	e.app, _ = g.(ActionAppender[S, A])
	return e
}

type erased[S, A any] struct {
	g    Game[S, A]
	bots func(gamev1.BotLevel) Bot[A]
	// app is g as an ActionAppender, nil when it is not one.
	app ActionAppender[S, A]
}

// bind makes s a State: one that is also a LegalAppender when the game is an ActionAppender.
func (e erased[S, A]) bind(s S) State {
	if e.app != nil {
		return &appendingBound[S, A]{bound[S, A]{erased: e, s: s}}
	}
	return &bound[S, A]{erased: e, s: s}
}

func (e erased[S, A]) Info() Info { return e.g.Info() }

// DescribeEvent labels payload; a payload the game does not know (which it never emits) is named
// by its type.
func (e erased[S, A]) DescribeEvent(payload proto.Message) string {
	if l := e.g.DescribeEvent(payload); l != "" {
		return l
	}
	if payload == nil {
		return "event"
	}
	return string(payload.ProtoReflect().Descriptor().Name())
}

func (e erased[S, A]) Setup(cfg Config) (State, []Event, error) {
	s, evs, err := e.g.Setup(cfg)
	if err != nil {
		return nil, nil, err
	}
	return e.bind(s), evs, nil
}

func (e erased[S, A]) DecodeState(b []byte) (State, error) {
	s, err := e.g.DecodeState(b)
	if err != nil {
		return nil, fmt.Errorf("decode %s state: %w", e.g.Info().Name, err)
	}
	return e.bind(s), nil
}

type bound[S, A any] struct {
	erased[S, A]
	s S
}

func (b *bound[S, A]) Apply(seat int, action proto.Message, at time.Time) ([]Event, error) {
	a, err := b.g.DecodeAction(action)
	if err != nil {
		return nil, err
	}
	return b.g.Apply(b.s, Move[A]{Seat: seat, Action: a, At: at})
}

func (b *bound[S, A]) Deadline() (time.Time, bool)           { return b.g.Deadline(b.s) }
func (b *bound[S, A]) Timeout(at time.Time) ([]Event, error) { return b.g.Timeout(b.s, at) }
func (b *bound[S, A]) View(viewer int) proto.Message         { return b.g.View(b.s, viewer) }
func (b *bound[S, A]) Outcome() (*gamev1.Outcome, bool)      { return b.g.Outcome(b.s) }
func (b *bound[S, A]) Encode() ([]byte, error)               { return b.g.EncodeState(b.s) }

func (b *bound[S, A]) Legal(seat int) []proto.Message {
	acts := b.g.Legal(b.s, seat, nil)
	out := make([]proto.Message, len(acts))
	for i, a := range acts {
		out[i] = b.g.EncodeAction(a)
	}
	return out
}

func (b *bound[S, A]) LegalLabelled(seat int) ([]proto.Message, []string) {
	acts := b.g.Legal(b.s, seat, nil)
	if len(acts) == 0 {
		return nil, nil
	}
	out := make([]proto.Message, len(acts))
	labels := make([]string, len(acts))
	for i, a := range acts {
		out[i] = b.g.EncodeAction(a)
		labels[i] = b.g.DescribeAction(b.s, seat, a)
	}
	return out, labels
}

func (b *bound[S, A]) NotBefore(seat int, action proto.Message) (time.Time, bool) {
	p, ok := b.g.(Pacer[S, A])
	if !ok {
		return time.Time{}, false
	}
	a, err := b.g.DecodeAction(action)
	if err != nil {
		return time.Time{}, false
	}
	return p.NotBefore(b.s, seat, a)
}

func (b *bound[S, A]) Suggest(seat int, level gamev1.BotLevel, r *rand.Rand) (proto.Message, bool) {
	legal := b.g.Legal(b.s, seat, nil)
	if len(legal) == 0 {
		return nil, false
	}
	view := b.g.View(b.s, seat)
	bot := b.bots(level)
	if w, ok := bot.(Waiter[A]); ok {
		a, want := w.Wants(view, legal)
		if !want {
			return nil, false
		}
		return b.g.EncodeAction(a), true
	}
	return b.g.EncodeAction(bot.Choose(view, legal, r)), true
}
