package engine

import (
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
)

// startRound deals a round: 8 cards to each seat one at a time clockwise from the dealer's left,
// the rest face up as the talon.
func (s *State) startRound(evs *[]engine.Event) {
	for p := range s.Seats {
		st := &s.Seats[p]
		*st = seat{Coins: st.Coins, Marker: st.Marker, LastWon: st.LastWon}
	}
	for i := range s.Bets {
		s.Bets[i] = bet{Owner: -1, Option: -1, Target: -1}
	}
	for t := range s.Tokens {
		s.Tokens[t] = -1
	}
	s.Combat, s.Trick, s.NPlayed, s.Redeem, s.LastTrick = NoCard, 0, 0, 0, -1
	s.Plays = [4]Card{NoCard, NoCard, NoCard, NoCard}
	s.PendingToken, s.PendingCards, s.Pending = -1, 0, -1

	var deck [36]Card
	n := 0
	for c := range Card(36) {
		if c.Colour() != s.Removed {
			deck[n] = c
			n++
		}
	}
	for i := n - 1; i > 0; i-- {
		j := s.intn(i + 1)
		deck[i], deck[j] = deck[j], deck[i]
	}
	dealt := 8 * int(s.Players)
	for k := range dealt {
		p := (int(s.Dealer) + 1 + k) % int(s.Players)
		s.Seats[p].Hand = s.Seats[p].Hand.With(deck[k])
	}
	s.Talon = 0
	for _, c := range deck[dealt:n] {
		s.Talon = s.Talon.With(c)
	}
	s.Phase, s.Decision, s.Turn = PhaseBetting, DecTurn, 0
	s.ToAct = s.left(s.Dealer)
	pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_RoundStarted{RoundStarted: &sponsiov1.RoundStarted{
		Round: uint32(s.Round), Dealer: uint32(s.Dealer), Talon: s.Talon.Protos(), RemovedColour: s.Removed.Proto()}}})
	for p := range s.Players {
		*evs = append(*evs, engine.Event{To: int(p), Payload: &sponsiov1.Event{Kind: &sponsiov1.Event_HandDealt{
			HandDealt: &sponsiov1.HandDealt{Cards: s.Seats[p].Hand.Protos()}}}})
	}
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
