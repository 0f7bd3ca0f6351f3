package engine

import (
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
)

// Game is Sapotagem's rules.
type Game struct{}

var _ engine.Game[*State, Action] = Game{}

// Info implements engine.Game.
func (Game) Info() engine.Info {
	return engine.Info{Name: "sapotagem", MinSeats: Data.MinSeats, MaxSeats: Data.MaxSeats,
		Options: &pb.Options{}, Action: &pb.Action{}, View: &pb.View{}}
}

// Deadline implements engine.Game.
func (Game) Deadline(s *State) (time.Time, bool) {
	if s.TurnTime <= 0 || s.Phase == PhaseOver {
		return time.Time{}, false
	}
	return time.Unix(0, s.LastAt+s.TurnTime).UTC(), true
}

// Timeout implements engine.Game: every seat waited on gets its automatic move (timeoutAction).
func (g Game) Timeout(s *State, at time.Time) ([]engine.Event, error) {
	d, ok := g.Deadline(s)
	if !ok {
		return nil, engine.Refuse(engine.CodeNoDeadline, "nothing waits on time")
	}
	if at.Before(d) {
		return nil, engine.Refuse(engine.CodeTooEarly, "the deadline has not passed")
	}
	var evs []engine.Event
	if s.Phase == PhaseSleeve {
		for seat := int8(0); seat < s.N; seat++ {
			if s.Sleeve[seat] < 0 {
				s.apply(seat, s.timeoutAction(seat), &evs)
			}
		}
	} else {
		s.apply(s.Turn, s.timeoutAction(s.Turn), &evs)
	}
	s.LastAt = at.UnixNano()
	return evs, nil
}

// timeoutAction is the automatic move: decline an optional choice; otherwise the lowest legal
// card (played, planted or picked) or, with no card to play, the first legal jump; the first
// colour when choosing a trump.
func (s *State) timeoutAction(seat int8) Action {
	legal := Game{}.Legal(s, int(seat), make([]Action, 0, 16))
	best := legal[0]
	if best.Kind == KindDecline || best.Kind == KindChooseTrump {
		return best
	}
	for _, a := range legal {
		if (a.Kind == KindPlay || a.Kind == KindPick) && (best.Kind == KindJump || rankOf(a.Card) < rankOf(best.Card)) {
			best = a
		}
	}
	return best
}

// Outcome implements engine.Game.
func (Game) Outcome(s *State) (*gamev1.Outcome, bool) {
	if s.Phase != PhaseOver {
		return nil, false
	}
	return s.score().outcome(s), true
}

// Clone implements engine.Game.
func (Game) Clone(s *State) *State { c := *s; return &c }
