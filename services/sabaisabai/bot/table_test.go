package bot

import (
	"fmt"
	"math/rand/v2"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/sabaisabai/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// botTable is a table of bot seats with the default reactions (Ruling B1: throws 400–900 ms after
// a card lands, discards 300 ms after the draw) and the throw window of a table with a person
// (800 ms, Ruling R1), so that throws race the next discard as they do where people play.
func botTable(seed uint64) kit.Config {
	kinds := make([]gamev1.PlayerKind, 4)
	for i := range kinds {
		kinds[i] = gamev1.PlayerKind_PLAYER_KIND_BOT
	}
	return kit.Config{Seats: 4, Seed: seed, Kinds: kinds, Start: start,
		Options: &pb.Options{ThrowWindow: durationpb.New(engine.DefaultThrowWindow)}}
}

// ask is what the driver gets from a seat's bot: a Waiter's wish, else its choice.
func ask(b kit.Bot[engine.Action], view proto.Message, legal []engine.Action, r *rand.Rand) (engine.Action, bool) {
	if w, ok := b.(kit.Waiter[engine.Action]); ok {
		return w.Wants(view, legal)
	}
	return b.Choose(view, legal, r), true
}

// playTable plays one game the way the gateway's driver plays a table of bots (gateway/drive.go
// with the rules service's SuggestAction): the seats' bots are asked in seat order; a move the
// rules allow at once is played at once (and the seats are asked again), a throw the bot may make
// only after its reaction delay (the engine's NotBefore) waits for that moment; the clock moves to
// the earliest such moment or deadline, whichever comes first, and asks again.
func playTable(cfg kit.Config, bots []kit.Bot[engine.Action], r *rand.Rand) (*engine.State, error) {
	g := engine.Game{}
	s, _, err := g.Setup(cfg)
	if err != nil {
		return nil, err
	}
	now := cfg.Start
	bufs := make([][]engine.Action, cfg.Seats)
	type move struct {
		seat int
		a    engine.Action
		at   time.Time
	}
	for step := 0; step < 200_000; step++ {
		if _, over := g.Outcome(s); over {
			return s, nil
		}
		var later *move
		acted := false
		for seat := range cfg.Seats {
			bufs[seat] = g.Legal(s, seat, bufs[seat][:0])
			if len(bufs[seat]) == 0 {
				continue
			}
			a, ok := ask(bots[seat], g.View(s, seat), bufs[seat], r)
			if !ok {
				continue
			}
			if at, ok := g.NotBefore(s, seat, a); ok && at.After(now) {
				if later == nil || at.Before(later.at) {
					later = &move{seat, a, at}
				}
				continue
			}
			if _, err := g.Apply(s, kit.Move[engine.Action]{Seat: seat, Action: a, At: now}); err != nil {
				return s, fmt.Errorf("seat %d %+v: %w", seat, a, err)
			}
			acted = true
			break
		}
		if acted {
			continue
		}
		deadline, waits := g.Deadline(s)
		switch {
		case later != nil && (!waits || later.at.Before(deadline)):
			now = later.at
			if _, err := g.Apply(s, kit.Move[engine.Action]{Seat: later.seat, Action: later.a, At: now}); err != nil {
				return s, fmt.Errorf("seat %d %+v at its reaction: %w", later.seat, later.a, err)
			}
		case waits:
			if deadline.After(now) {
				now = deadline
			}
			if _, err := g.Timeout(s, now); err != nil {
				return s, err
			}
		default:
			return s, enginetest.ErrStuck
		}
	}
	return s, fmt.Errorf("game did not end")
}
