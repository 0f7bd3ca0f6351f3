package engine

import (
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"google.golang.org/protobuf/proto"
)

// view is what viewer (a seat, or -1 for a spectator) may see: everything but other seats' hands.
func (s *State) view(viewer int) *sponsiov1.View {
	v := &sponsiov1.View{
		Viewer:        int32(viewer),
		Players:       uint32(s.Players),
		Round:         uint32(s.Round),
		Dealer:        uint32(s.Dealer),
		Phase:         sponsiov1.Phase(s.Phase),
		Decision:      sponsiov1.Decision(s.Decision),
		BettingTurn:   uint32(s.Turn),
		RemovedColour: s.Removed.Proto(),
		Talon:         s.Talon.Protos(),
		Trick:         uint32(s.Trick) + 1,
		Leader:        uint32(s.Leader),
	}
	if s.Phase != PhaseTricks {
		v.Trick = 0
	}
	if s.Phase != PhaseOver {
		t := uint32(s.ToAct)
		v.ToAct = &t
	}
	if s.Decision == DecOption || s.Decision == DecTarget {
		v.PendingCoupon = uint32(s.Pending) + 1
	}
	if s.Decision == DecPriceCard || s.Decision == DecCombatCard || s.Decision == DecChangeBet {
		v.PendingToken = sponsiov1.Token(s.PendingToken + 1)
		v.PendingCards = uint32(s.PendingCards)
	}
	if s.Combat != NoCard {
		v.CombatCard = s.Combat.Proto()
	}
	for _, c := range s.rules.CounterValues {
		v.CounterValues = append(v.CounterValues, uint32(c))
	}
	for i := range s.rules.Coupons {
		if !s.rules.inPlay(i, int(s.Players), s.Removed) {
			continue
		}
		v.Coupons = append(v.Coupons, CouponProto(&s.rules.Coupons[i]))
		if s.Bets[i].Owner < 0 {
			v.FreeCoupons = append(v.FreeCoupons, uint32(i)+1)
		}
	}
	for t := range numTokens {
		if s.Tokens[t] < 0 {
			v.FreeTokens = append(v.FreeTokens, sponsiov1.Token(t+1))
		}
	}
	if s.Phase == PhaseTricks {
		for k := range s.Players {
			q := (s.Leader + k) % s.Players
			if s.Plays[q] != NoCard {
				v.CurrentTrick = append(v.CurrentTrick, &sponsiov1.CardPlay{Seat: uint32(q), Card: s.Plays[q].Proto()})
			}
		}
	}
	for p := range s.Players {
		st := &s.Seats[p]
		pv := &sponsiov1.PlayerView{
			Seat:          uint32(p),
			Coins:         uint32(st.Coins),
			Marker:        uint32(st.Marker),
			OpenCards:     st.Open.Protos(),
			HandSize:      uint32(st.Hand.Len()),
			StakedCoins:   uint32(st.Staked),
			Tricks:        uint32(st.Tricks),
			CapturedNines: st.Nines.Protos(),
			Taken:         st.Taken.Protos(),
			Troll:         st.Troll,
			Winner:        st.Winner,
		}
		if s.Phase == PhaseScoring || s.Phase == PhaseOver {
			pv.CoinsWon = uint32(st.Won)
		}
		if int(p) == viewer {
			pv.Hand = st.Hand.Protos()
		}
		for i := range s.Bets {
			b := &s.Bets[i]
			if b.Owner != p {
				continue
			}
			pb := &sponsiov1.Bet{Coupon: uint32(i) + 1, Double: b.Double, Result: sponsiov1.BetResult(b.Result), CoinsWon: uint32(b.CoinsWon)}
			if b.Option >= 0 {
				o := uint32(b.Option)
				pb.Option = &o
			}
			if b.Target >= 0 {
				t := uint32(b.Target)
				pb.Target = &t
			}
			pv.Bets = append(pv.Bets, pb)
		}
		for t := range numTokens {
			if s.Tokens[t] == p {
				pv.Tokens = append(pv.Tokens, sponsiov1.Token(t+1))
			}
		}
		v.Seats = append(v.Seats, pv)
	}
	return v
}

// View implements engine.Game.
func (Game) View(s *State, viewer int) proto.Message { return s.view(viewer) }
