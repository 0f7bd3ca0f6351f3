package engine

import (
	"runtime/debug"
	"testing"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

// TestLabelsRandomGames labels every legal action of every state of random games (with random
// timeouts) and every event they make; a third of them with a custom coupon table whose coupons
// have options that read alike.
func TestLabelsRandomGames(t *testing.T) {
	games := 2000
	if raceEnabled {
		games = 200
	}
	p := enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.02}
	enginetest.CheckLabels(t, p, Game{}, games, func(i int) engine.Config {
		c := cfg(3+i%2, uint64(i)*31+5)
		if i%3 == 2 {
			c.Options = &sponsiov1.Options{CouponTable: twinTable()}
		}
		if i%4 == 0 {
			c.TurnTime = time.Minute
		}
		return c
	})
}

// twinTable is the standard table with coupon V's options all betting on exactly 1 trick at
// the same odds, and coupon VI's given odd ranges.
func twinTable() *sponsiov1.CouponTable {
	t := &sponsiov1.CouponTable{}
	for i := range Standard.Coupons {
		t.Coupons = append(t.Coupons, CouponProto(&Standard.Coupons[i]))
	}
	t.Coupons[4].Options = []*sponsiov1.BetOption{{Min: 1, Max: 1, Odds: 4}, {Min: 1, Max: 1, Odds: 4}, {Min: 1, Max: 1, Odds: 5}}
	t.Coupons[5].Options = []*sponsiov1.BetOption{{Min: 0, Max: 9, Odds: 1}, {Min: 0, Max: 3, Odds: 2}, {Min: 5, Max: 9, Odds: 3}}
	return t
}

func TestLabelsOfTwinOptionsDiffer(t *testing.T) {
	r, err := rulesFromProto(twinTable())
	if err != nil {
		t.Fatal(err)
	}
	for o, want := range []string{"option 1: exactly 1 trick (×4)", "option 2: exactly 1 trick (×4)", "exactly 1 trick (×5)"} {
		if got := optionWords(r, 4, o); got != want {
			t.Errorf("option %d: %q, want %q", o, got, want)
		}
	}
	for o, want := range []string{"any number of tricks (×1)", "0 to 3 tricks (×2)", "5 or more tricks (×3)"} {
		if got := optionWords(r, 5, o); got != want {
			t.Errorf("option %d: %q, want %q", o, got, want)
		}
	}
}

func TestActionLabels(t *testing.T) {
	g := Game{}
	s := newTable(t, 4)
	// Seat 1 opens (left of dealer 0).
	arrange(s, 1, MakeCard(Green, 2), MakeCard(Red, 3))
	s.Talon = s.Talon.With(MakeCard(Yellow, 7)) // only the label's words matter here
	s.Seats[1].Doubling = true
	g2 := MakeCard(Green, 2)
	for _, c := range []struct {
		a    Action
		want string
	}{
		{Action{Kind: ActPass, Card: NoCard}, "pass"},
		{Action{Kind: ActOpenBet, Card: g2, A: 2}, "open green 2, bet on coupon III (blue cards)"},
		{Action{Kind: ActOpenBet, Card: g2, A: 4, B: 1}, "open green 2, bet on coupon V (tricks), doubled"},
		{Action{Kind: ActOpenBet, Card: g2, A: 15}, "open green 2, bet on coupon XVI (counter-bet)"},
		{Action{Kind: ActOpenToken, Card: g2, A: int8(TokenCombat)}, "open green 2, take the Combat token (1 coin)"},
		{Action{Kind: ActOpenToken, Card: g2, A: int8(TokenThreeCoin)}, "open green 2, take the 3-Coin token (1 more open card)"},
		{Action{Kind: ActOpenChange, Card: g2, A: int8(MakeCard(Yellow, 7)), B: int8(MakeCard(Red, 3))},
			"open green 2, change red 3 for yellow 7 from the talon"},
		{Action{Kind: ActPlay, Card: MakeCard(Blue, 9)}, "play blue 9"},
		{Action{Kind: ActKeepBet, Card: NoCard}, "keep every bet"},
		{Action{Kind: ActTarget, Card: NoCard, A: 3}, "place the counter-bet in front of {seat:3}"},
		{Action{Kind: ActChangeBet, Card: NoCard, A: 5, B: 1}, "change coupon VI to 2 to 3 tricks (×2)"},
		{Action{Kind: ActChangeBet, Card: NoCard, A: 7, B: 1}, "change coupon VIII to at least one 9 you play fails (×3)"},
		{Action{Kind: ActChangeBet, Card: NoCard, A: 12, B: 0}, "change coupon XIII to more tricks than every opponent (×3)"},
		{Action{Kind: ActChangeBet, Card: NoCard, A: 13, B: 1}, "change coupon XIV to not win the last trick (×2)"},
	} {
		if got := g.DescribeAction(s, 1, c.a); got != c.want {
			t.Errorf("%v: %q, want %q", c.a, got, c.want)
		}
	}

	// The option decision names the pending coupon's options.
	do(t, s, 1, Action{Kind: ActOpenBet, Card: g2, A: 8})
	want := []string{"bet on no green cards (×4)", "bet on 1 to 4 green cards (×3)", "bet on 5 to 7 green cards (×3)", "bet on 8 or more green cards (×5)"}
	for i, a := range g.Legal(s, 1, nil) {
		if got := g.DescribeAction(s, 1, a); got != want[i] {
			t.Errorf("option %d: %q, want %q", i, got, want[i])
		}
	}

	// A token's price card, then the Combat card, and the counter at redeem time.
	s = newTable(t, 4)
	do(t, s, 1, Action{Kind: ActOpenToken, Card: lowCard(s, 1), A: int8(TokenDoubling)})
	if got := g.DescribeAction(s, 1, Action{Kind: ActLay, Card: MakeCard(Red, 4)}); got != "lay red 4 face up for the Doubling token" {
		t.Errorf("price card: %q", got)
	}
	s.Decision = DecCombatCard
	if got := g.DescribeAction(s, 1, Action{Kind: ActLay, Card: MakeCard(Red, 4)}); got != "lay red 4 under the Combat token" {
		t.Errorf("combat card: %q", got)
	}
	s.Seats[2].Marker = 4
	if got := g.DescribeAction(s, 2, Action{Kind: ActRedeem, Card: NoCard}); got != "redeem the counter for 6 coins" {
		t.Errorf("redeem: %q", got)
	}
	if got := g.DescribeAction(s, 2, Action{Kind: ActKeepCounter, Card: NoCard}); got != "keep the counter at position 4" {
		t.Errorf("keep: %q", got)
	}
}

// raceEnabled reports a test binary built with the race detector, which slows the engine about
// tenfold.
var raceEnabled = func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}()

func card(c Colour, v int) *sponsiov1.Card { return MakeCard(c, v).Proto() }

func TestEventLabels(t *testing.T) {
	two := uint32(2)
	for _, c := range []struct {
		ev   proto.Message
		want string
	}{
		{&sponsiov1.RoundStarted{Round: 1, Dealer: 0, Talon: []*sponsiov1.Card{card(Green, 1), card(Red, 9), card(Yellow, 4)}, RemovedColour: sponsiov1.Colour_COLOUR_BLUE},
			"round 1: {seat:0} deals, without the blue cards; the talon is green 1, red 9, yellow 4"},
		{&sponsiov1.HandDealt{Cards: []*sponsiov1.Card{card(Green, 1), card(Blue, 2)}}, "your hand: green 1, blue 2"},
		{&sponsiov1.Passed{Seat: 3}, "{seat:3} passes"},
		{&sponsiov1.CardOpened{Seat: 1, Card: card(Yellow, 5), Reason: sponsiov1.CardOpenedReason_CARD_OPENED_REASON_TURN}, "{seat:1} opens yellow 5"},
		{&sponsiov1.CardOpened{Seat: 1, Card: card(Yellow, 5), Reason: sponsiov1.CardOpenedReason_CARD_OPENED_REASON_PRICE}, "{seat:1} lays yellow 5 face up to pay for a token"},
		{&sponsiov1.CouponTaken{Seat: 1, Coupon: 3, Double: true, CoinsPaid: 2}, "{seat:1} takes coupon III for a double bet and pays 2 coins"},
		{&sponsiov1.BetMarked{Seat: 1, Coupon: 5, Option: 2}, "{seat:1} marks option 3 on coupon V"},
		{&sponsiov1.BetMarked{Seat: 1, Coupon: 16, Target: &two}, "{seat:1} places the counter-bet (coupon XVI) in front of {seat:2}"},
		{&sponsiov1.TokenTaken{Seat: 0, Token: sponsiov1.Token_TOKEN_THREE_COIN, CoinsStaked: 3}, "{seat:0} takes the 3-Coin token and puts 3 coins on it"},
		{&sponsiov1.TokenTaken{Seat: 0, Token: sponsiov1.Token_TOKEN_COMBAT, CoinsPaid: 1}, "{seat:0} takes the Combat token for 1 coin"},
		{&sponsiov1.CardChanged{Seat: 2, FromTalon: card(Red, 9), ToTalon: card(Green, 1)}, "{seat:2} takes red 9 from the talon and puts green 1 there"},
		{&sponsiov1.BetChanged{Seat: 2, Changed: true, Coupon: 6, Option: 0}, "{seat:2} changes coupon VI to option 1"},
		{&sponsiov1.BetChanged{Seat: 2}, "{seat:2} keeps every bet"},
		{&sponsiov1.TricksStarted{Leader: 1, Trolls: []uint32{0, 2, 3}}, "the tricks begin: {seat:1} leads; {seat:0}, {seat:2} and {seat:3} are Trolls"},
		{&sponsiov1.CardPlayed{Seat: 1, Card: card(Blue, 9)}, "{seat:1} plays blue 9"},
		{&sponsiov1.TrickWon{Seat: 1, Trick: 3, Cards: []*sponsiov1.Card{card(Blue, 1), card(Blue, 9), card(Red, 2)}, CapturedNine: card(Blue, 9)},
			"{seat:1} takes trick 3 (blue 1, blue 9, red 2) and keeps blue 9 face up"},
		{&sponsiov1.BetSettled{Seat: 1, Coupon: 5, Won: true, Coins: 5}, "{seat:1} wins the bet on coupon V: 5 coins"},
		{&sponsiov1.BetSettled{Seat: 1, Coupon: 15}, "{seat:1} loses the bet on coupon XV"},
		{&sponsiov1.TrollSettled{Seat: 0, LostBets: 1, CoinsWon: 2}, "{seat:0}, a Troll, gets 2 coins for 1 lost bet"},
		{&sponsiov1.TrollSettled{Seat: 0, CoinsPaid: 4}, "{seat:0}, a Troll, pays 4 coins: nobody lost a bet"},
		{&sponsiov1.MarkerMoved{Seat: 1, Position: 4}, "{seat:1}'s sequence marker is at position 4"},
		{&sponsiov1.CounterRedeemed{Seat: 1, Redeemed: true, Coins: 6}, "{seat:1} redeems the counter for 6 coins"},
		{&sponsiov1.RoundEnded{Round: 2, CoinsWon: []uint32{16, 0, 2}, Bonus: []uint32{2, 0, 0}, Coins: []uint32{28, 9, 11}},
			"round 2 ends: {seat:0} won 16 + 2 bonus, has 28 coins; {seat:1} won 0, has 9 coins; {seat:2} won 2, has 11 coins"},
		{&sponsiov1.GameEnded{Reason: sponsiov1.EndReason_END_REASON_COINS, Winners: []uint32{0}, Coins: []uint32{31, 9, 11}},
			"game over (30 coins): {seat:0} wins; {seat:0} 31 coins, {seat:1} 9 coins, {seat:2} 11 coins"},
	} {
		got := Game{}.DescribeEvent(c.ev)
		if got != c.want {
			t.Errorf("%T: %q, want %q", c.ev, got, c.want)
		}
		if wrapped := (Game{}).DescribeEvent(enginetest.WrapEvent(t, &sponsiov1.Event{}, c.ev)); wrapped != got {
			t.Errorf("%T in an Event: %q, want %q", c.ev, wrapped, got)
		}
	}
}

// TestEveryEventKindHasALabel labels each kind of Event, even empty, so a kind added to the proto
// without words fails here.
func TestEveryEventKindHasALabel(t *testing.T) {
	enginetest.CheckEveryKindLabelled(t, Game{}.DescribeEvent, &sponsiov1.Event{}, &sponsiov1.Action{})
}
