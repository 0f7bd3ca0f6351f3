// Package engine holds the pure rules of sabai-sabai: a real-time card game where players draw,
// keep or play cards, throw identical cards out of turn and try to end a round with the fewest
// card points. It has no clock, no I/O and no randomness but the seeded source in the State.
package engine

import (
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Game is sabai-sabai for engine.Game.
type Game struct{}

var _ engine.Game[*State, Action] = Game{}

// Info implements engine.Game.
func (Game) Info() engine.Info {
	return engine.Info{
		Name:     "sabaisabai",
		MinSeats: 2,
		MaxSeats: maxSeat,
		// Matchmaking's usual table: four, not twelve (a table of bots the player cannot follow).
		UsualSeats: 4,
		Options:    &pb.Options{},
		Action:     &pb.Action{},
		View:       &pb.View{},
	}
}

// Outcome implements engine.Game: victory points are the score.
func (Game) Outcome(s *State) (*gamev1.Outcome, bool) {
	if !s.over() {
		return nil, false
	}
	return s.outcome(), true
}

// Clone implements engine.Game.
func (Game) Clone(s *State) *State {
	c := *s
	c.mem = frames{}
	c.vp = append([]int32(nil), s.vp...)
	c.rows = make([][]uint8, len(s.rows))
	for i, r := range s.rows {
		c.rows[i] = append(make([]uint8, 0, max(8, len(r))), r...)
	}
	c.pile = append(make([]uint8, 0, NumCards), s.pile...)
	c.disc = append(make([]uint8, 0, NumCards), s.disc...)
	c.queue = append([]effect(nil), s.queue...)
	return &c
}

var _ proto.Message = (*pb.Event)(nil)

// Deadline implements engine.Game: the nose window's deadline, and with a turn timer the last
// action's time plus the turn time while a turn action or an effect is awaited.
func (Game) Deadline(s *State) (time.Time, bool) {
	d, ok := s.deadline()
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, d).UTC(), true
}

// NotBefore implements engine.Pacer: a bot seat's throw is allowed once its reaction delay to the
// card on top has passed since that card landed (Ruling B1). Any other action, or a person's, may be
// applied at once (a discard chosen early waits on the table's deadline instead).
func (Game) NotBefore(s *State, seat int, a Action) (time.Time, bool) {
	if a.Kind != KindThrow || seat < 0 || seat >= int(s.n) || s.bots&bit(uint8(seat)) == 0 || s.top() == noCard {
		return time.Time{}, false
	}
	return time.Unix(0, s.topAt+s.reaction(uint8(seat))).UTC(), true
}

// Timeout implements engine.Game. A passed nose deadline closes the window (every seat that has
// not touched draws a penalty card). A passed turn deadline makes the awaited move: the pending
// effect's first target (see autoResolve), the draw, or playing the drawn card.
func (Game) Timeout(s *State, at time.Time) ([]engine.Event, error) {
	d, ok := s.deadline()
	if !ok {
		return nil, engine.Refuse(engine.CodeNoDeadline, "nothing waits on a deadline")
	}
	now := nanos(at)
	if now < d {
		return nil, engine.Refuse(engine.CodeTooEarly, "the deadline has not passed")
	}
	evs := make([]engine.Event, 0, 6)
	switch {
	case s.noseOpen && now >= s.noseAt:
		s.closeNose(true, &evs)
		if s.ph == phaseEnding {
			s.score(&evs)
		}
	case s.pending() && now >= s.pendAt:
		s.landPending(now, &evs)
	case len(s.queue) > 0:
		a := s.autoResolve(s.queue[0])
		s.doResolve(&a, &evs)
	case s.ph == phaseDraw:
		s.drawAt = now
		s.doDraw(&evs, nil)
	default:
		s.doPlay(now, &evs, nil)
	}
	s.settle(&evs, nil)
	s.lastAt = now
	return evs, nil
}
