package play

import (
	"fmt"
	"strings"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	sponsio "cardroom.dev/services/sponsio/engine"
)

// sponsioCardText is a card as colour initial and value: G9 is the green 9.
func sponsioCardText(c *sponsiov1.Card) string {
	if c == nil {
		return "-"
	}
	col := "N" // none
	if c.GetColour() >= sponsiov1.Colour_COLOUR_GREEN && c.GetColour() <= sponsiov1.Colour_COLOUR_RED {
		col = strings.TrimPrefix(c.GetColour().String(), "COLOUR_")[:1]
	}
	return fmt.Sprintf("%s%d", col, c.GetValue())
}

func sponsioCardsText(cs []*sponsiov1.Card) string {
	if len(cs) == 0 {
		return "-"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = sponsioCardText(c)
	}
	return strings.Join(parts, " ")
}

// renderSponsio draws a Sponsio view as text. Cards read as colour
// initial and value (G9 is the green 9).
func renderSponsio(v *sponsiov1.View) string {
	var b strings.Builder
	phase := strings.TrimPrefix(v.GetPhase().String(), "PHASE_")
	fmt.Fprintf(&b, "Sponsio, round %d, dealer seat %d, %s", v.GetRound(), v.GetDealer()+1, strings.ToLower(phase))
	if v.ToAct != nil {
		fmt.Fprintf(&b, ", seat %d to %s", v.GetToAct()+1, strings.ToLower(strings.TrimPrefix(v.GetDecision().String(), "DECISION_")))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "talon: %s   free coupons:", sponsioCardsText(v.GetTalon()))
	for _, n := range v.GetFreeCoupons() {
		b.WriteString(" " + sponsio.Numeral(int(n)))
	}
	b.WriteString("   free tokens:")
	for _, t := range v.GetFreeTokens() {
		b.WriteString(" " + strings.ToLower(strings.TrimPrefix(t.String(), "TOKEN_")))
	}
	b.WriteString("\n")
	for _, p := range v.GetSeats() {
		me := " "
		if int32(p.GetSeat()) == v.GetViewer() {
			me = "*"
		}
		fmt.Fprintf(&b, "%sseat %d: %d coins, marker %d, tricks %d", me, p.GetSeat()+1, p.GetCoins(), p.GetMarker(), p.GetTricks())
		if p.GetTroll() {
			b.WriteString(", troll")
		}
		if p.GetWinner() {
			b.WriteString(", WINNER")
		}
		fmt.Fprintf(&b, "\n    open: %s", sponsioCardsText(p.GetOpenCards()))
		if len(p.GetHand()) > 0 {
			fmt.Fprintf(&b, "   hand: %s", sponsioCardsText(p.GetHand()))
		} else {
			fmt.Fprintf(&b, "   hand: %d cards", p.GetHandSize())
		}
		for _, bt := range p.GetBets() {
			fmt.Fprintf(&b, "\n    coupon %s", sponsio.Numeral(int(bt.GetCoupon())))
			if bt.Option != nil {
				fmt.Fprintf(&b, " option %d", bt.GetOption())
			}
			if bt.GetDouble() {
				b.WriteString(" doubled")
			}
			if bt.Target != nil {
				fmt.Fprintf(&b, " against seat %d", bt.GetTarget()+1)
			}
			switch bt.GetResult() {
			case sponsiov1.BetResult_BET_RESULT_WON:
				fmt.Fprintf(&b, ": won %d", bt.GetCoinsWon())
			case sponsiov1.BetResult_BET_RESULT_LOST:
				b.WriteString(": lost")
			}
		}
		if len(p.GetTokens()) > 0 {
			b.WriteString("\n    tokens:")
			for _, t := range p.GetTokens() {
				b.WriteString(" " + strings.ToLower(strings.TrimPrefix(t.String(), "TOKEN_")))
			}
		}
		b.WriteString("\n")
	}
	if len(v.GetCurrentTrick()) > 0 || v.GetPhase() == sponsiov1.Phase_PHASE_TRICKS {
		fmt.Fprintf(&b, "trick %d:", v.GetTrick())
		for _, cp := range v.GetCurrentTrick() {
			fmt.Fprintf(&b, " seat %d %s", cp.GetSeat()+1, sponsioCardText(cp.GetCard()))
		}
		b.WriteString("\n")
	}
	return b.String()
}
