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
	"google.golang.org/protobuf/proto"
)

// Sponsio's own violation codes (stable API).
const (
	CodeWrongDecision         = "WRONG_DECISION"
	CodeCardNotInHand         = "CARD_NOT_IN_HAND"
	CodeCardNotInTalon        = "CARD_NOT_IN_TALON"
	CodeCouponNotInPlay       = "COUPON_NOT_IN_PLAY"
	CodeCouponTaken           = "COUPON_TAKEN"
	CodeSameKindCoupon        = "SAME_KIND_COUPON"
	CodeTooManyBets           = "TOO_MANY_BETS"
	CodeNoCoins               = "NO_COINS"
	CodeNotEnoughCoins        = "NOT_ENOUGH_COINS"
	CodeNoDoublingToken       = "NO_DOUBLING_TOKEN"
	CodeTokenTaken            = "TOKEN_TAKEN"
	CodeChangeUnderCounterBet = "CHANGE_UNDER_COUNTER_BET"
	CodeChangeDoubledBet      = "CHANGE_DOUBLED_BET"
	CodeNothingToChange       = "NOTHING_TO_CHANGE"
	CodeNotYourCoupon         = "NOT_YOUR_COUPON"
	CodeBadOption             = "BAD_OPTION"
	CodeSameOption            = "SAME_OPTION"
	CodeBadTarget             = "BAD_TARGET"
	CodeMustBet               = "MUST_BET"
	CodeMustFollowColour      = "MUST_FOLLOW_COLOUR"
	CodeMustPlayCombatCard    = "MUST_PLAY_COMBAT_CARD"
	CodeNoCardToLay           = "NO_CARD_TO_LAY"
)

// Game is Sponsio as an engine.Game.
type Game struct{}

var _ engine.Game[*State, Action] = Game{}

// Info implements engine.Game.
func (Game) Info() engine.Info {
	return engine.Info{Name: "sponsio", MinSeats: 3, MaxSeats: 4,
		Options: &sponsiov1.Options{}, Action: &sponsiov1.Action{}, View: &sponsiov1.View{}}
}

// Setup implements engine.Game.
func (Game) Setup(cfg engine.Config) (*State, []engine.Event, error) {
	if cfg.Seats < 3 || cfg.Seats > 4 {
		return nil, nil, engine.Invalid("seats", engine.CodeBadSeatCount, "sponsio is for 3 or 4 players, not %d", cfg.Seats)
	}
	var opts *sponsiov1.Options
	if cfg.Options != nil {
		o, ok := cfg.Options.(*sponsiov1.Options)
		if !ok {
			return nil, nil, engine.Invalid("options", engine.CodeBadOptions, "options are not cardroom.sponsio.v1.Options")
		}
		opts = o
	}
	s := &State{rules: &Standard}
	s.rng.Seed(cfg.Seed, cfg.Seed^0x5350_4f4e_5349_4f21)
	s.Players = int8(cfg.Seats)
	s.Removed = NoColour
	if rc := opts.GetRemovedColour(); rc != sponsiov1.Colour_COLOUR_UNSPECIFIED {
		c, ok := colourFromProto(rc)
		if !ok || cfg.Seats == 4 {
			return nil, nil, engine.Invalid("options.removed_colour", engine.CodeBadOptions,
				"removed_colour %v: only with 3 players, and one of the four colours", rc)
		}
		s.Removed = c
	} else if cfg.Seats == 3 {
		s.Removed = Colour(s.intn(4))
	}
	if t := opts.GetCouponTable(); t != nil {
		r, err := rulesFromProto(t)
		if err != nil {
			return nil, nil, engine.Invalid("options.coupon_table", engine.CodeBadOptions, "coupon_table: %v", err)
		}
		s.rules, s.custom = r, true
	}
	s.TurnTime = int64(cfg.TurnTime)
	s.LastSec, s.LastNsec = cfg.Start.Unix(), int32(cfg.Start.Nanosecond())
	for p := range s.Players {
		s.Seats[p].Coins = int32(s.rules.StartCoins)
	}
	s.Round = 1
	s.Dealer = 0 // Ruling K3: the oldest player, seat 0, deals first.
	evs := make([]engine.Event, 0, 8)
	s.startRound(&evs)
	return s, evs, nil
}

// Apply implements engine.Game.
func (g Game) Apply(s *State, m engine.Move[Action]) ([]engine.Event, error) {
	if err := s.check(m.Seat, m.Action); err != nil {
		return nil, err
	}
	var evs []engine.Event
	s.apply(m.Seat, m.Action, &evs)
	s.LastSec, s.LastNsec = m.At.Unix(), int32(m.At.Nanosecond())
	return evs, nil
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

// Legal implements engine.Game.
func (Game) Legal(s *State, seat int, buf []Action) []Action {
	if s.Phase == PhaseOver || seat != int(s.ToAct) {
		return buf
	}
	return s.legal(buf)
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

// EncodeState implements engine.Game.
func (Game) EncodeState(s *State) ([]byte, error) { return s.encode() }

// DecodeState implements engine.Game.
func (Game) DecodeState(b []byte) (*State, error) { return decodeState(b) }

// View implements engine.Game.
func (Game) View(s *State, viewer int) proto.Message { return s.view(viewer) }
