// Package enginetest drives games for tests and benchmarks: random or bot playouts with a virtual
// clock, replays from a recorded log, and checks every game's tests share.
package enginetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Step is one applied move of a playout: a seat's action, or a timeout (Seat == -1).
type Step[A any] struct {
	Seat    int
	Action  A
	Timeout bool
	At      time.Time
	Events  []engine.Event
}

// Playout plays games with bots (random where Bots has no entry) until they end.
type Playout[S, A any] struct {
	Game engine.Game[S, A]
	// Bots per seat; a missing or nil entry plays uniformly random legal actions.
	Bots []engine.Bot[A]
	// TimeoutChance is the chance, at each step where the state has a deadline, to let it pass even
	// though some seat could act. When no seat can act the deadline always passes.
	TimeoutChance float64
	// Tick is how far the virtual clock moves per action (default one second, kept before a
	// pending deadline).
	Tick time.Duration
	// MaxSteps bounds a game (default 100,000); reaching it is an error.
	MaxSteps int
	// OnStep, when set, is called after every step with the state after it.
	OnStep func(s S, st Step[A]) error
	// Record keeps every step in the result (off for benchmarks).
	Record bool
}

// Result is what a playout returns.
type Result[S, A any] struct {
	State S
	Steps []Step[A]
	// Moves counts the applied steps, timeouts included.
	Moves int
	// Setup holds the events of the deal.
	Setup []engine.Event
}

// ErrStuck is returned when a game is not over, no seat can act and nothing waits on a deadline.
var ErrStuck = errors.New("game stuck: not over, no legal action and no deadline")

// Run plays one game from cfg, drawing every choice from r.
func (p *Playout[S, A]) Run(cfg engine.Config, r *rand.Rand) (Result[S, A], error) {
	g := p.Game
	s, setup, err := g.Setup(cfg)
	if err != nil {
		return Result[S, A]{}, fmt.Errorf("setup: %w", err)
	}
	res := Result[S, A]{State: s, Setup: setup}
	tick := p.Tick
	if tick == 0 {
		tick = time.Second
	}
	maxSteps := p.MaxSteps
	if maxSteps == 0 {
		maxSteps = 100_000
	}
	now := cfg.Start
	var (
		legal  []A
		actors []int
		bufs   = make([][]A, cfg.Seats)
	)
	for res.Moves < maxSteps {
		if _, over := g.Outcome(s); over {
			return res, nil
		}
		actors = actors[:0]
		for seat := range cfg.Seats {
			bufs[seat] = g.Legal(s, seat, bufs[seat][:0])
			if len(bufs[seat]) > 0 {
				actors = append(actors, seat)
			}
		}
		deadline, waits := g.Deadline(s)
		st := Step[A]{Seat: -1}
		acting := len(actors) > 0 && !(waits && (r.Float64() < p.TimeoutChance || !now.Before(deadline)))
		if acting {
			// A random seat acts; if its bot would rather wait (engine.Waiter), the others are asked
			// in seat order; if all wait, the deadline passes, or with none the first seat must act.
			first := r.IntN(len(actors))
			acting = false
			for k := range actors {
				seat := actors[(first+k)%len(actors)]
				if a, ok := p.decide(s, seat, bufs[seat], r); ok {
					st.Seat, st.Action, acting = seat, a, true
					break
				}
			}
			if !acting && !waits {
				st.Seat = actors[first]
				legal = bufs[st.Seat]
				st.Action, acting = legal[r.IntN(len(legal))], true
			}
		}
		switch {
		case acting:
			if next := now.Add(tick); !waits || next.Before(deadline) {
				now = next
			}
			st.At = now
			st.Events, err = g.Apply(s, engine.Move[A]{Seat: st.Seat, Action: st.Action, At: now})
		case waits:
			if deadline.After(now) {
				now = deadline
			}
			st.Timeout, st.At = true, now
			st.Events, err = g.Timeout(s, now)
		default:
			return res, ErrStuck
		}
		if err != nil {
			return res, fmt.Errorf("step %d (seat %d, timeout %v): legal move refused: %w", res.Moves, st.Seat, st.Timeout, err)
		}
		res.Moves++
		if p.Record {
			res.Steps = append(res.Steps, st)
		}
		if p.OnStep != nil {
			if err := p.OnStep(s, st); err != nil {
				return res, fmt.Errorf("step %d: %w", res.Moves, err)
			}
		}
	}
	return res, fmt.Errorf("game not over after %d steps", maxSteps)
}

// decide asks seat's bot for a move: a random legal one without a bot, the bot's choice, or for a
// Waiter its wish (false: it would rather wait).
func (p *Playout[S, A]) decide(s S, seat int, legal []A, r *rand.Rand) (A, bool) {
	if seat >= len(p.Bots) || p.Bots[seat] == nil {
		return legal[r.IntN(len(legal))], true
	}
	view := p.Game.View(s, seat)
	if w, ok := p.Bots[seat].(engine.Waiter[A]); ok {
		return w.Wants(view, legal)
	}
	return p.Bots[seat].Choose(view, legal, r), true
}

// Replay deals cfg again and re-applies recorded steps through the proto encoding of each action,
// as the harness would from its log. It returns the final state and the events of every step.
func Replay[S, A any](g engine.Game[S, A], cfg engine.Config, steps []Step[A]) (S, [][]engine.Event, error) {
	s, _, err := g.Setup(cfg)
	if err != nil {
		return s, nil, fmt.Errorf("setup: %w", err)
	}
	out := make([][]engine.Event, len(steps))
	for i, st := range steps {
		var evs []engine.Event
		if st.Timeout {
			evs, err = g.Timeout(s, st.At)
		} else {
			var a A
			a, err = g.DecodeAction(g.EncodeAction(st.Action))
			if err == nil {
				evs, err = g.Apply(s, engine.Move[A]{Seat: st.Seat, Action: a, At: st.At})
			}
		}
		if err != nil {
			return s, out, fmt.Errorf("replay step %d: %w", i, err)
		}
		out[i] = evs
	}
	return s, out, nil
}

// SameEvents reports whether two event lists are equal, audience and payload.
func SameEvents(a, b []engine.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].To != b[i].To || !proto.Equal(a[i].Payload, b[i].Payload) {
			return false
		}
	}
	return true
}
