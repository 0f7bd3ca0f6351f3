// Package engine holds the rules of Saboteur and Saboteur 2: the tunnel board with its incremental
// reachability, roles, action cards, turns, round ends, scoring and the three rounds of a game. It is
// pure: no I/O, no clock, no randomness but the seeded generator kept in the state.
package engine

import (
	"fmt"
	"slices"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// Game is Saboteur as an engine.Game.
type Game struct{}

var _ engine.Game[*State, Action] = Game{}

// Name is the game id.
const Name = "saboteur"

// Info implements engine.Game.
func (Game) Info() engine.Info {
	// Six players is the box's usual table (Saboteur 2 takes 2 to 12).
	return engine.Info{Name: Name, MinSeats: 2, MaxSeats: MaxSeats, UsualSeats: 6,
		Options: &pb.Options{}, Action: &pb.Action{}, View: &pb.View{}}
}

// Deadline implements engine.Game.
func (Game) Deadline(s *State) (time.Time, bool) {
	if s.turnTime <= 0 || s.over {
		return time.Time{}, false
	}
	return time.Unix(0, s.lastAt+s.turnTime).UTC(), true
}

// Timeout implements engine.Game: a seat whose time runs out discards its lowest card (a pass); a
// gold picker takes the largest card; a thief robs the richest other seat.
func (g Game) Timeout(s *State, at time.Time) ([]engine.Event, error) {
	d, ok := g.Deadline(s)
	if !ok {
		return nil, engine.Refuse(engine.CodeNoDeadline, "nothing waits on time")
	}
	if at.Before(d) {
		return nil, engine.Refuse(engine.CodeTooEarly, "the deadline is %v", d)
	}
	a := s.timeoutAction()
	var evs []engine.Event
	s.exec(s.cur, a, &evs)
	s.lastAt = at.UnixNano()
	return evs, nil
}

func (s *State) timeoutAction() Action {
	switch s.phase {
	case phasePickGold:
		return Action{Kind: KindPick, Target: slices.Max(s.offer)}
	case phaseTheft:
		return Action{Kind: KindSteal, Target: uint8(s.richestVictim(s.cur))}
	}
	return Action{Kind: KindDiscard, N: 1, Cards: [3]uint8{slices.Min(s.hands[s.cur])}}
}

// richestVictim returns the seat with most nuggets other than thief (first clockwise on ties), or -1.
func (s *State) richestVictim(thief int) int {
	best := -1
	for k := 1; k < s.n; k++ {
		v := (thief + k) % s.n
		if s.nuggets[v] > 0 && (best < 0 || s.nuggets[v] > s.nuggets[best]) {
			best = v
		}
	}
	return best
}

// Outcome implements engine.Game.
func (Game) Outcome(s *State) (*gamev1.Outcome, bool) {
	if !s.over {
		return nil, false
	}
	out := &gamev1.Outcome{}
	best := slices.Max(s.nuggets)
	var top []int
	for i, v := range s.nuggets {
		rank := 1
		for _, w := range s.nuggets {
			if w > v {
				rank++
			}
		}
		out.Results = append(out.Results, &gamev1.SeatResult{Seat: uint32(i), Score: int64(v), Rank: uint32(rank), Winner: v == best})
		if v == best {
			top = append(top, i)
		}
	}
	if len(top) == 1 {
		out.Summary = fmt.Sprintf("seat %d wins with %d nuggets", top[0], best)
	} else {
		out.Summary = fmt.Sprintf("seats %v share the win with %d nuggets", top, best)
	}
	return out, true
}

// Clone implements engine.Game.
func (Game) Clone(s *State) *State { return s.clone() }
