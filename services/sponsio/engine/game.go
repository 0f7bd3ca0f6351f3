// Package engine is Sponsio's rules: a pure, deterministic engine.Game for 3 and 4 players.
//
// A round is a betting phase (four turns each: pass, or lay a card face up and bet, take a token
// or change a card with the talon), eight tricks, and scoring (bets, counter-bet, Trolls, the
// sequence counter, redeem decisions, the round bonus). The game ends with 30 coins, position 9
// on the sequence counter, or after five rounds. Every number the rulebook leaves to its figures is
// in one data table, Rules (Standard by default).
package engine

import (
	"fmt"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
)

// Game is Sponsio as an engine.Game.
type Game struct{}

var _ engine.Game[*State, Action] = Game{}

// Info implements engine.Game.
func (Game) Info() engine.Info {
	return engine.Info{Name: "sponsio", MinSeats: 3, MaxSeats: 4,
		Options: &sponsiov1.Options{}, Action: &sponsiov1.Action{}, View: &sponsiov1.View{},
		DefaultOptions: defaultOptions}
}

// defaultOptions are made once: Info is asked often, and nobody changes them.
var defaultOptions = &sponsiov1.Options{CouponTable: StandardTable()}

// StandardTable is the standard coupon table as options carry it (docs/games/sponsio.md, C1).
func StandardTable() *sponsiov1.CouponTable {
	t := &sponsiov1.CouponTable{}
	for i := range Standard.Coupons {
		t.Coupons = append(t.Coupons, CouponProto(&Standard.Coupons[i]))
	}
	return t
}

// Deadline implements engine.Game: while someone must act and the table has a turn time, the
// last action's time plus the turn time.
func (Game) Deadline(s *State) (time.Time, bool) {
	if s.TurnTime <= 0 || s.Phase == PhaseOver {
		return time.Time{}, false
	}
	return time.Unix(s.LastSec, int64(s.LastNsec)).Add(time.Duration(s.TurnTime)), true
}

// Timeout implements engine.Game: the waited-on seat takes its default action (see defaultAction).
func (g Game) Timeout(s *State, at time.Time) ([]engine.Event, error) {
	d, ok := g.Deadline(s)
	if !ok {
		if s.Phase == PhaseOver {
			return nil, engine.Refuse(engine.CodeGameOver, "the game is over")
		}
		return nil, engine.Refuse(engine.CodeNoDeadline, "the table has no turn time")
	}
	if at.Before(d) {
		return nil, engine.Refuse(engine.CodeTooEarly, "the deadline is %v", d)
	}
	return g.Apply(s, engine.Move[Action]{Seat: int(s.ToAct), Action: s.defaultAction(), At: at})
}

// Outcome implements engine.Game: score is each seat's coins; the winners share rank 1, the others
// rank by coins, then coins won in the last round.
func (Game) Outcome(s *State) (*gamev1.Outcome, bool) {
	if s.Phase != PhaseOver {
		return nil, false
	}
	n := int(s.Players)
	out := &gamev1.Outcome{Results: make([]*gamev1.SeatResult, n)}
	better := func(a, b *seat) bool { // a ranks strictly above b
		if a.Winner != b.Winner {
			return a.Winner
		}
		if a.Winner {
			return false
		}
		if a.Coins != b.Coins {
			return a.Coins > b.Coins
		}
		return a.LastWon > b.LastWon
	}
	var winners []int
	for p := range n {
		rank := 1
		for q := range n {
			if better(&s.Seats[q], &s.Seats[p]) {
				rank++
			}
		}
		out.Results[p] = &gamev1.SeatResult{Seat: uint32(p), Score: int64(s.Seats[p].Coins), Rank: uint32(rank), Winner: s.Seats[p].Winner}
		if s.Seats[p].Winner {
			winners = append(winners, p)
		}
	}
	why := map[int8]string{endSequence: "position 9 on the sequence counter", endCoins: "30 coins or more", endRoundLimit: "most coins after five rounds"}[s.EndReason]
	if len(winners) == 1 {
		out.Summary = fmt.Sprintf("seat %d wins with %d coins (%s)", winners[0], s.Seats[winners[0]].Coins, why)
	} else {
		out.Summary = fmt.Sprintf("seats %v share the win with %d coins (%s)", winners, s.Seats[winners[0]].Coins, why)
	}
	return out, true
}

// Clone implements engine.Game.
func (Game) Clone(s *State) *State { return s.clone() }
