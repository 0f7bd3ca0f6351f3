package engine

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

var at = time.Unix(1_800_000_100, 0)

func newTable(t *testing.T, n int) *State {
	t.Helper()
	s, _, err := Game{}.Setup(cfg(n, 42))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func do(t *testing.T, s *State, seat int, a Action) []engine.Event {
	t.Helper()
	evs, err := Game{}.Apply(s, engine.Move[Action]{Seat: seat, Action: a, At: at})
	if err != nil {
		t.Fatalf("seat %d %v: %v", seat, a, err)
	}
	return evs
}

func refused(t *testing.T, s *State, seat int, a Action, code string) {
	t.Helper()
	m := engine.Move[Action]{Seat: seat, Action: a, At: at}
	if err := enginetest.CheckUnchangedOnError(Game{}, s, m); err != nil {
		t.Fatal(err)
	}
	_, err := Game{}.Apply(s.clone(), m)
	var v *engine.Violation
	if !errors.As(err, &v) || v.Code != code {
		t.Fatalf("seat %d %v: got %v, want %s", seat, a, err, code)
	}
}

// arrange puts cards into p's hand by swapping them with other cards of p's hand, wherever they are
// (another hand or the talon), so the deal stays a deal.
func arrange(s *State, p int8, cards ...Card) {
	var want Cards
	for _, c := range cards {
		want = want.With(c)
	}
	for _, c := range cards {
		st := &s.Seats[p]
		if st.Hand.Has(c) {
			continue
		}
		x := (st.Hand &^ want).First()
		st.Hand = st.Hand.Without(x).With(c)
		if s.Talon.Has(c) {
			s.Talon = s.Talon.Without(c).With(x)
			continue
		}
		for q := range s.Players {
			if o := &s.Seats[q]; q != p && o.Hand.Has(c) {
				o.Hand = o.Hand.Without(c).With(x)
			}
		}
	}
}

func betOn(c Card, coupon int, double bool) Action {
	a := Action{Kind: ActOpenBet, Card: c, A: int8(coupon - 1)}
	if double {
		a.B = 1
	}
	return a
}

func option(o int) Action { return Action{Kind: ActOption, Card: NoCard, A: int8(o)} }
func target(p int) Action { return Action{Kind: ActTarget, Card: NoCard, A: int8(p)} }
func lay(c Card) Action   { return Action{Kind: ActLay, Card: c} }
func play(c Card) Action  { return Action{Kind: ActPlay, Card: c} }
func token(c Card, t Token) Action {
	return Action{Kind: ActOpenToken, Card: c, A: int8(t)}
}

var pass = Action{Kind: ActPass, Card: NoCard}

// passUntil passes for every seat until seat p is to act in the betting phase.
func passUntil(t *testing.T, s *State, p int8) {
	t.Helper()
	for s.ToAct != p {
		do(t, s, int(s.ToAct), pass)
	}
}

func lowCard(s *State, p int8) Card { return s.Seats[p].Hand.First() }

func events[M any](evs []engine.Event, get func(*sponsiov1.Event) *M) []*M {
	var out []*M
	for _, e := range evs {
		if m := get(e.Payload.(*sponsiov1.Event)); m != nil {
			out = append(out, m)
		}
	}
	return out
}

var (
	R9, G9, B9 = MakeCard(Red, 9), MakeCard(Green, 9), MakeCard(Blue, 9)
)

// peterBets plays the betting phase of the rulebook's example: Peter (seat 1, left of the dealer)
// bets on exactly 2 tricks (V), 1-4 red cards (XII), every 9 taking (XV) and not the last trick
// (XIV); everybody else passes.
func peterBets(t *testing.T) *State {
	s := newTable(t, 4)
	arrange(s, 1, R9, G9, B9)
	for _, b := range []struct{ coupon, option int }{{5, 2}, {12, 1}, {15, 0}, {14, 1}} {
		passUntil(t, s, 1)
		c := (s.Seats[1].Hand &^ (0 | Cards(0).With(R9).With(G9).With(B9))).First()
		do(t, s, 1, betOn(c, b.coupon, false))
		do(t, s, 1, option(b.option))
	}
	passUntil(t, s, 0)
	do(t, s, 0, pass)
	if s.Phase != PhaseTricks || s.Seats[1].Coins != 6 {
		t.Fatalf("after betting: phase %d, Peter has %d coins", s.Phase, s.Seats[1].Coins)
	}
	return s
}

// peterTricks sets the trick phase's result: Peter took two tricks, with the red 9 and the green 9,
// holding 3 red cards, not the last trick; blueFails says whether he also played the blue 9 on
// another colour.
func peterTricks(s *State, blueFails bool) {
	for p := range s.Players {
		st := &s.Seats[p]
		st.Hand, st.Open, st.Taken, st.Played, st.Tricks = 0, 0, 0, 0, 0
	}
	peter := &s.Seats[1]
	peter.Taken = Cards(0).With(R9).With(MakeCard(Red, 2)).With(MakeCard(Green, 3)).With(MakeCard(Yellow, 4)).
		With(G9).With(MakeCard(Red, 5)).With(MakeCard(Blue, 1)).With(MakeCard(Yellow, 2))
	peter.Tricks = 2
	peter.Played = Cards(0).With(R9).With(G9)
	if blueFails {
		peter.Played = peter.Played.With(B9)
	}
	peter.Nines = Cards(0).With(R9).With(G9)
	s.Seats[2].Tricks, s.Seats[3].Tricks, s.Seats[0].Tricks = 3, 2, 1
	s.LastTrick = 2
	s.Trick = 8
}

func TestWorkedExamplePeter(t *testing.T) {
	s := peterBets(t)
	s.Seats[1].Marker = 3
	peterTricks(s, true)
	var evs []engine.Event
	s.score(&evs)
	want := map[uint32]struct {
		won   bool
		coins uint32
	}{5: {true, 5}, 12: {true, 3}, 15: {false, 0}, 14: {true, 2}}
	settled := events(evs, (*sponsiov1.Event).GetBetSettled)
	if len(settled) != 4 {
		t.Fatalf("%d bets settled, want 4", len(settled))
	}
	for _, b := range settled {
		if w := want[b.GetCoupon()]; b.GetSeat() != 1 || b.GetWon() != w.won || b.GetCoins() != w.coins {
			t.Errorf("coupon %d: %v", b.GetCoupon(), b)
		}
	}
	if got := s.Seats[1].Won; got != 10 {
		t.Errorf("Peter won %d coins, the rulebook says 10", got)
	}
	if m := s.Seats[1].Marker; m != 0 {
		t.Errorf("Peter's marker at %d, want back at the start", m)
	}
	// The other three are Trolls: one lost bet pays each of them 2 coins and moves them 1 space.
	for _, p := range []int8{0, 2, 3} {
		if st := s.Seats[p]; !st.Troll || st.Won != 2 || st.Marker != 1 {
			t.Errorf("troll %d: won %d marker %d", p, st.Won, st.Marker)
		}
	}
}

func TestWorkedExamplePeterAllWon(t *testing.T) {
	s := peterBets(t)
	peterTricks(s, false)
	var evs []engine.Event
	s.score(&evs)
	for _, b := range events(evs, (*sponsiov1.Event).GetBetSettled) {
		if !b.GetWon() {
			t.Errorf("coupon %d lost", b.GetCoupon())
		}
	}
	if s.Seats[1].Marker != 4 || s.rules.CounterValues[4] != 6 {
		t.Fatalf("marker %d worth %d, want 4 spaces worth 6", s.Seats[1].Marker, s.rules.CounterValues[4])
	}
	// No bet was lost: every Troll pays 4 and goes back to 0.
	for _, p := range []int8{0, 2, 3} {
		if st := s.Seats[p]; st.Marker != 0 || st.Coins != 6 {
			t.Errorf("troll %d: marker %d coins %d", p, st.Marker, st.Coins)
		}
	}
	if s.Decision != DecRedeem || s.ToAct != 1 {
		t.Fatalf("Peter (left of the dealer) should decide first; decision %d seat %d", s.Decision, s.ToAct)
	}
	before := s.Seats[1].Coins
	evs = do(t, s, 1, Action{Kind: ActRedeem, Card: NoCard})
	if r := events(evs, (*sponsiov1.Event).GetCounterRedeemed); len(r) != 1 || r[0].GetCoins() != 6 {
		t.Fatalf("redeem events %v", r)
	}
	// 6 redeemed; 10 + 6 = 16 won this round, the most: the 2-coin bonus.
	if got := s.Seats[1].Coins - before; got != 6+2 {
		t.Errorf("Peter got %d coins from redeem and bonus, want 8", got)
	}
}

func TestSameKindCouponRefused(t *testing.T) {
	s := newTable(t, 4)
	do(t, s, 1, betOn(lowCard(s, 1), 5, false))
	do(t, s, 1, option(0))
	passUntil(t, s, 1)
	refused(t, s, 1, betOn(lowCard(s, 1), 6, false), CodeSameKindCoupon)
	refused(t, s, 1, betOn(lowCard(s, 1), 13, false), CodeSameKindCoupon)
	refused(t, s, 2, betOn(lowCard(s, 2), 7, false), engine.CodeNotYourTurn)
	do(t, s, 1, betOn(lowCard(s, 1), 7, false))
}

func TestFifthBetRefused(t *testing.T) {
	// Four turns allow four bets at most; a fifth can only be tried when a seat already holds four
	// (here set directly).
	s := newTable(t, 4)
	for _, i := range []int{4, 6, 7, 8} {
		s.Bets[i] = bet{Owner: 1, Option: 0, Target: -1}
	}
	s.Seats[1].Bets = 4
	refused(t, s, 1, betOn(lowCard(s, 1), 10, false), CodeTooManyBets)
	for _, a := range s.legal(nil) {
		if a.Kind == ActOpenBet {
			t.Fatalf("legal lists a fifth bet %v", a)
		}
	}
}

func TestBetWithoutCoinsRefused(t *testing.T) {
	s := newTable(t, 4)
	s.Seats[1].Coins = 0
	refused(t, s, 1, betOn(lowCard(s, 1), 5, false), CodeNoCoins)
	refused(t, s, 1, token(lowCard(s, 1), TokenCombat), CodeNoCoins)
	for _, a := range s.legal(nil) {
		if a.Kind == ActOpenBet || (a.Kind == ActOpenToken && (Token(a.A) == TokenCombat || Token(a.A) == TokenChanging)) {
			t.Fatalf("legal lists %v without coins", a)
		}
	}
	// The Doubling token costs a card, not a coin; a double bet needs two coins.
	s.Seats[1].Coins = 1
	do(t, s, 1, token(lowCard(s, 1), TokenDoubling))
	if v := s.view(2); v.GetPendingToken() != sponsiov1.Token_TOKEN_DOUBLING || v.GetPendingCards() != 1 ||
		v.GetDecision() != sponsiov1.Decision_DECISION_PRICE_CARD {
		t.Fatalf("view while paying: %v %d %v", v.GetPendingToken(), v.GetPendingCards(), v.GetDecision())
	}
	do(t, s, 1, lay(lowCard(s, 1)))
	passUntil(t, s, 1)
	refused(t, s, 1, betOn(lowCard(s, 1), 5, true), CodeNotEnoughCoins)
	do(t, s, 1, betOn(lowCard(s, 1), 5, false))
}

func TestChangingTokenRefusedOnDoubledBet(t *testing.T) {
	s := newTable(t, 4)
	do(t, s, 1, token(lowCard(s, 1), TokenDoubling))
	do(t, s, 1, lay(lowCard(s, 1)))
	passUntil(t, s, 1)
	do(t, s, 1, betOn(lowCard(s, 1), 5, true))
	do(t, s, 1, option(2))
	if s.Seats[1].Coins != 8 {
		t.Fatalf("a double bet costs 2: %d coins", s.Seats[1].Coins)
	}
	passUntil(t, s, 1)
	refused(t, s, 1, token(lowCard(s, 1), TokenChanging), CodeNothingToChange)
	do(t, s, 1, betOn(lowCard(s, 1), 7, false))
	do(t, s, 1, option(0))
	passUntil(t, s, 1)
	do(t, s, 1, token(lowCard(s, 1), TokenChanging))
	refused(t, s, 1, Action{Kind: ActChangeBet, Card: NoCard, A: 4, B: 0}, CodeChangeDoubledBet)
	refused(t, s, 1, Action{Kind: ActChangeBet, Card: NoCard, A: 6, B: 0}, CodeSameOption)
	do(t, s, 1, Action{Kind: ActChangeBet, Card: NoCard, A: 6, B: 1})
	if s.Bets[6].Option != 1 {
		t.Fatal("bet not changed")
	}
}

func TestChangingTokenRefusedUnderCounterBet(t *testing.T) {
	s := newTable(t, 4)
	do(t, s, 1, betOn(lowCard(s, 1), 5, false))
	do(t, s, 1, option(0))
	do(t, s, 2, betOn(lowCard(s, 2), 16, false))
	refused(t, s, 2, target(2), CodeBadTarget)
	do(t, s, 2, target(1))
	passUntil(t, s, 1)
	refused(t, s, 1, token(lowCard(s, 1), TokenChanging), CodeChangeUnderCounterBet)
}

// scoringTable is a 4-player table whose tricks are over: seat 0 took every trick.
func scoringTable(t *testing.T) *State {
	s := newTable(t, 4)
	for p := range s.Players {
		st := &s.Seats[p]
		st.Hand, st.Open = 0, 0
		if p != 1 && p != 2 {
			st.Troll = true
		}
	}
	s.Seats[0].Tricks, s.LastTrick, s.Trick = 8, 0, 8
	return s
}

func TestTrollPaidAndPenalty(t *testing.T) {
	s := scoringTable(t)
	// Seat 1 bets on 0 tricks (won) and winning the last trick (lost); seat 2 on the most tricks
	// (lost): 2 lost bets pay each Troll 4 coins and move them 2 spaces.
	s.Bets[4] = bet{Owner: 1, Option: 0, Target: -1}
	s.Bets[13] = bet{Owner: 1, Option: 0, Target: -1}
	s.Bets[12] = bet{Owner: 2, Option: 0, Target: -1}
	s.Seats[1].Bets, s.Seats[2].Bets = 2, 1
	var evs []engine.Event
	s.score(&evs)
	for _, p := range []int8{0, 3} {
		if st := s.Seats[p]; st.Coins != 14 || st.Marker != 2 {
			t.Errorf("troll %d: %d coins marker %d, want 14 and 2", p, st.Coins, st.Marker)
		}
	}
	if len(events(evs, (*sponsiov1.Event).GetTrollSettled)) != 2 {
		t.Error("want two TrollSettled events")
	}

	// Nobody loses: each Troll pays 4, or what it has (Ruling K1), and goes back to 0.
	s = scoringTable(t)
	s.Bets[4] = bet{Owner: 1, Option: 0, Target: -1}
	s.Seats[1].Bets = 1
	s.Seats[3].Coins, s.Seats[3].Marker, s.Seats[0].Marker = 3, 5, 2
	s.score(&evs)
	if s.Seats[0].Coins != 6 || s.Seats[3].Coins != 0 || s.Seats[0].Marker != 0 || s.Seats[3].Marker != 0 {
		t.Errorf("trolls after penalty: %d/%d coins, markers %d/%d", s.Seats[0].Coins, s.Seats[3].Coins, s.Seats[0].Marker, s.Seats[3].Marker)
	}
}

func TestCounterBetDoubled(t *testing.T) {
	s := scoringTable(t)
	s.Bets[4] = bet{Owner: 1, Option: 1, Target: -1} // seat 1 bets on exactly 1 trick: lost
	s.Bets[15] = bet{Owner: 2, Option: 0, Target: 1, Double: true}
	s.Seats[1].Bets, s.Seats[2].Bets = 1, 1
	var evs []engine.Event
	s.score(&evs)
	if s.Bets[15].Result != resultWon || s.Bets[15].CoinsWon != 6 {
		t.Fatalf("doubled counter-bet: result %d coins %d", s.Bets[15].Result, s.Bets[15].CoinsWon)
	}
}

func TestDealerForcedToBet(t *testing.T) {
	s := newTable(t, 4)
	for s.Turn < 15 {
		do(t, s, int(s.ToAct), pass)
	}
	if s.ToAct != s.Dealer {
		t.Fatal("the last turn is the dealer's")
	}
	refused(t, s, 0, pass, CodeMustBet)
	refused(t, s, 0, token(lowCard(s, 0), TokenThreeCoin), CodeMustBet)
	for _, a := range s.legal(nil) {
		if a.Kind != ActOpenBet {
			t.Fatalf("forced dealer may %v", a)
		}
	}
	// A timeout bets for the dealer.
	s.TurnTime = int64(time.Minute)
	d, _ := Game{}.Deadline(s)
	if _, err := (Game{}).Timeout(s, d.Add(-time.Second)); err == nil {
		t.Fatal("timeout before the deadline accepted")
	}
	if _, err := (Game{}).Timeout(s, d); err != nil {
		t.Fatal(err)
	}
	if s.Seats[0].Bets != 1 || s.Decision != DecOption {
		t.Fatalf("the timeout did not bet: bets %d decision %d", s.Seats[0].Bets, s.Decision)
	}
}

// TestDealerWithoutCoinsMayPass is the ruling on Ruling B2's edge: a dealer with no coin cannot
// bet (a bet stakes a coin, and coins never go below 0), so it is not forced and may pass; nobody
// has bet, and every seat is a Troll.
func TestDealerWithoutCoinsMayPass(t *testing.T) {
	s := newTable(t, 4)
	s.Seats[0].Coins = 0
	var last []engine.Event
	for s.Phase == PhaseBetting {
		if s.ToAct == s.Dealer && int(s.Turn) == 4*int(s.Players)-1 {
			if s.forced() {
				t.Fatal("a dealer without coins is forced to bet")
			}
			for _, a := range s.legal(nil) {
				if a.Kind == ActOpenBet {
					t.Fatalf("a dealer without coins may bet: %v", a)
				}
			}
		}
		last = do(t, s, int(s.ToAct), pass)
	}
	started := events(last, (*sponsiov1.Event).GetTricksStarted)
	if len(started) != 1 || len(started[0].GetTrolls()) != 4 {
		t.Fatalf("every seat must be a Troll: %v", started)
	}
	for p := range s.Players {
		if !s.Seats[p].Troll {
			t.Fatalf("seat %d is no Troll", p)
		}
	}
}

// roundEndTable is a 4-player table in its scoring phase with the given coins won this round.
func roundEndTable(t *testing.T, won [4]int32) *State {
	s := newTable(t, 4)
	for p := range s.Players {
		s.Seats[p].Won = won[p]
	}
	s.Phase = PhaseScoring
	return s
}

func TestRoundBonusTies(t *testing.T) {
	for _, tc := range []struct {
		won   [4]int32
		bonus [4]uint32
	}{
		{[4]int32{5, 3, 0, 1}, [4]uint32{2, 0, 0, 0}},
		{[4]int32{5, 5, 0, 1}, [4]uint32{1, 1, 0, 0}},
		{[4]int32{0, 0, 0, 0}, [4]uint32{1, 1, 1, 1}},
	} {
		s := roundEndTable(t, tc.won)
		var evs []engine.Event
		s.finishRound(&evs)
		re := events(evs, (*sponsiov1.Event).GetRoundEnded)[0]
		for p := range 4 {
			if re.GetBonus()[p] != tc.bonus[p] {
				t.Errorf("won %v: bonus %v, want %v", tc.won, re.GetBonus(), tc.bonus)
				break
			}
		}
	}
}

func TestThreeCoinTokenCountsAsWon(t *testing.T) {
	s := newTable(t, 4)
	do(t, s, 1, token(lowCard(s, 1), TokenThreeCoin))
	do(t, s, 1, lay(lowCard(s, 1)))
	if s.Seats[1].Coins != 7 || s.Seats[1].Staked != 3 {
		t.Fatalf("coins %d staked %d", s.Seats[1].Coins, s.Seats[1].Staked)
	}
	s.Phase = PhaseScoring
	var evs []engine.Event
	s.finishRound(&evs)
	// 3 coins won, the most: the bonus; the 3 coins come back.
	if s.Seats[1].Coins != 12 || s.Seats[1].LastWon != 3 {
		t.Fatalf("coins %d won %d", s.Seats[1].Coins, s.Seats[1].LastWon)
	}
}

// TestThreeCoinTokenWithFewerCoins is the ruling on the 3-Coin token for a seat with fewer than 3
// coins: the token's price is an open card, and the 3 coins are a stake that comes back at the
// round's end, so the seat may take it and stakes what it has (even nothing); the stake counts as
// coins won.
func TestThreeCoinTokenWithFewerCoins(t *testing.T) {
	for _, coins := range []int32{2, 1, 0} {
		s := newTable(t, 4)
		s.Seats[1].Coins = coins
		evs := do(t, s, 1, token(lowCard(s, 1), TokenThreeCoin))
		tt := events(evs, (*sponsiov1.Event).GetTokenTaken)
		if len(tt) != 1 || tt[0].GetCoinsStaked() != uint32(coins) || s.Seats[1].Coins != 0 || s.Seats[1].Staked != int8(coins) {
			t.Fatalf("%d coins: staked %v, coins left %d", coins, tt, s.Seats[1].Coins)
		}
		do(t, s, 1, lay(lowCard(s, 1)))
		s.Phase = PhaseScoring
		var end []engine.Event
		s.finishRound(&end)
		if s.Seats[1].LastWon < coins || s.Seats[1].Coins < coins {
			t.Fatalf("%d coins: won %d, coins %d after the round", coins, s.Seats[1].LastWon, s.Seats[1].Coins)
		}
	}
}

func TestSequenceBeatsCoins(t *testing.T) {
	s := roundEndTable(t, [4]int32{})
	s.Seats[1].Marker, s.Seats[1].Coins = 9, 12
	s.Seats[2].Coins = 35
	var evs []engine.Event
	s.finishRound(&evs)
	end := events(evs, (*sponsiov1.Event).GetGameEnded)
	if len(end) != 1 || end[0].GetReason() != sponsiov1.EndReason_END_REASON_SEQUENCE || len(end[0].GetWinners()) != 1 || end[0].GetWinners()[0] != 1 {
		t.Fatalf("end %v", end)
	}
	o, ok := Game{}.Outcome(s)
	if !ok || !o.GetResults()[1].GetWinner() || o.GetResults()[1].GetRank() != 1 || o.GetResults()[2].GetRank() != 2 {
		t.Fatalf("outcome %v", o)
	}
}

func TestCoinVictoryTieBreaks(t *testing.T) {
	// Same coins: most won in the last round wins.
	s := roundEndTable(t, [4]int32{0, 4, 3, 0})
	s.Seats[1].Coins, s.Seats[2].Coins = 30, 33 // seat 1 gets the bonus: 32 against 33
	var evs []engine.Event
	s.finishRound(&evs)
	if !s.Seats[2].Winner || s.Seats[1].Winner {
		t.Fatalf("most coins wins: winners %v %v (coins %d %d)", s.Seats[1].Winner, s.Seats[2].Winner, s.Seats[1].Coins, s.Seats[2].Coins)
	}
	s = roundEndTable(t, [4]int32{0, 4, 3, 0})
	s.Seats[1].Coins, s.Seats[2].Coins = 30, 32 // 30+2 bonus = 32 = 32: seat 1 won more this round
	s.finishRound(&evs)
	if !s.Seats[1].Winner || s.Seats[2].Winner {
		t.Fatalf("tie on coins: the last round's winnings decide (coins %d %d)", s.Seats[1].Coins, s.Seats[2].Coins)
	}
	s = roundEndTable(t, [4]int32{0, 3, 3, 0})
	s.Seats[1].Coins, s.Seats[2].Coins = 31, 31
	s.finishRound(&evs)
	if !s.Seats[1].Winner || !s.Seats[2].Winner || s.Seats[0].Winner {
		t.Fatal("a full tie is a shared win")
	}
}

func TestFiveRoundLimit(t *testing.T) {
	s := roundEndTable(t, [4]int32{})
	s.Round = 5
	s.Seats[0].Coins, s.Seats[0].Marker = 20, 0
	s.Seats[3].Coins, s.Seats[3].Marker = 15, 4 // redeems 6 at the end: 21 + 1 (tied bonus)
	var evs []engine.Event
	s.finishRound(&evs)
	end := events(evs, (*sponsiov1.Event).GetGameEnded)
	if len(end) != 1 || end[0].GetReason() != sponsiov1.EndReason_END_REASON_ROUND_LIMIT {
		t.Fatalf("end %v", end)
	}
	if !s.Seats[3].Winner || s.Seats[3].Coins != 22 || end[0].GetFinalRedeem()[3] != 6 {
		t.Fatalf("seat 3: winner %v coins %d", s.Seats[3].Winner, s.Seats[3].Coins)
	}
	if s.Phase != PhaseOver || len(s.legal(nil)) != 0 {
		t.Fatal("game not over")
	}
	refused(t, s, 0, pass, engine.CodeGameOver)
}

func TestNextDealer(t *testing.T) {
	s := roundEndTable(t, [4]int32{})
	s.Seats[2].Coins = 13
	var evs []engine.Event
	s.finishRound(&evs)
	if s.Dealer != 2 || s.Round != 2 || s.ToAct != 3 {
		t.Fatalf("dealer %d round %d to act %d", s.Dealer, s.Round, s.ToAct)
	}
	s.Phase = PhaseScoring
	s.Seats[0].Coins, s.Seats[1].Coins, s.Seats[2].Coins, s.Seats[3].Coins = 15, 15, 11, 11
	s.finishRound(&evs)
	if s.Dealer != 2 {
		t.Fatalf("a tie for most coins keeps the dealer: %d", s.Dealer)
	}
}

func TestCombatCardLeads(t *testing.T) {
	s := newTable(t, 4)
	do(t, s, 1, token(lowCard(s, 1), TokenCombat))
	c := lowCard(s, 1)
	do(t, s, 1, lay(c))
	for s.Phase == PhaseBetting {
		if s.forced() {
			do(t, s, int(s.ToAct), betOn(lowCard(s, s.ToAct), 5, false))
			do(t, s, int(s.ToAct), option(0))
			continue
		}
		do(t, s, int(s.ToAct), pass)
	}
	if s.ToAct != 1 || s.Combat != c {
		t.Fatalf("combat holder does not lead: %d", s.ToAct)
	}
	other := (s.Seats[1].Hand | s.Seats[1].Open).Without(c).First()
	refused(t, s, 1, play(other), CodeMustPlayCombatCard)
	do(t, s, 1, play(c))
	// Seat 2 must follow the colour if it can.
	st := &s.Seats[2]
	if own := (st.Hand | st.Open).OfColour(c.Colour()); own != 0 {
		if off := (st.Hand | st.Open) &^ own; off != 0 {
			refused(t, s, 2, play(off.First()), CodeMustFollowColour)
		}
		do(t, s, 2, play(own.First()))
	}
}

func TestSetupRefusals(t *testing.T) {
	g := Game{}
	for _, tc := range []struct {
		seats int
		opts  *sponsiov1.Options
		code  string
	}{
		{2, &sponsiov1.Options{}, engine.CodeBadSeatCount},
		{5, &sponsiov1.Options{}, engine.CodeBadSeatCount},
		{4, &sponsiov1.Options{RemovedColour: sponsiov1.Colour_COLOUR_RED}, engine.CodeBadOptions},
		{3, &sponsiov1.Options{RemovedColour: sponsiov1.Colour(9)}, engine.CodeBadOptions},
		{3, &sponsiov1.Options{CouponTable: &sponsiov1.CouponTable{}}, engine.CodeBadOptions},
	} {
		c := cfg(tc.seats, 1)
		c.Options = tc.opts
		_, _, err := g.Setup(c)
		var v *engine.Violation
		if !errors.As(err, &v) || v.Code != tc.code || v.Kind != engine.Malformed {
			t.Errorf("%d seats %v: %v, want %s", tc.seats, tc.opts, err, tc.code)
		}
	}
}

func TestThreePlayersRemovedColour(t *testing.T) {
	c := cfg(3, 5)
	c.Options = &sponsiov1.Options{RemovedColour: sponsiov1.Colour_COLOUR_BLUE}
	s, _, err := Game{}.Setup(c)
	if err != nil {
		t.Fatal(err)
	}
	if s.Removed != Blue || s.Talon.Len() != 3 || s.Talon.OfColour(Blue) != 0 {
		t.Fatalf("removed %v talon %d", s.Removed, s.Talon.Len())
	}
	if err := checkCards(s); err != nil {
		t.Fatal(err)
	}
	refused(t, s, 1, betOn(lowCard(s, 1), 3, false), CodeCouponNotInPlay) // III is blue
	refused(t, s, 1, betOn(lowCard(s, 1), 9, false), CodeCouponNotInPlay) // 4-player coupon
	do(t, s, 1, betOn(lowCard(s, 1), 4, false))
	if v := s.view(1); len(v.GetCoupons()) != 8 {
		t.Fatalf("%d coupons in play, want 8", len(v.GetCoupons()))
	}
}

func TestCustomCouponTable(t *testing.T) {
	table := &sponsiov1.CouponTable{}
	for i := range Standard.Coupons {
		pc := CouponProto(&Standard.Coupons[i])
		if pc.GetNumber() == 14 {
			pc.Options[1].Odds = 7
		}
		table.Coupons = append(table.Coupons, pc)
	}
	c := cfg(4, 5)
	c.Options = &sponsiov1.Options{CouponTable: table}
	s, _, err := Game{}.Setup(c)
	if err != nil {
		t.Fatal(err)
	}
	if s.rules.Coupons[13].Options[1].Odds != 7 {
		t.Fatal("custom odds ignored")
	}
	if err := enginetest.CheckStateRoundTrip(Game{}, s); err != nil {
		t.Fatal(err)
	}
	b, _ := s.encode()
	s2, _ := decodeState(b)
	if s2.rules.Coupons[13].Options[1].Odds != 7 {
		t.Fatal("custom table lost in encoding")
	}
}

func TestRedeemOrderAndDeadline(t *testing.T) {
	s := scoringTable(t)
	s.Seats[3].Marker, s.Seats[2].Marker = 2, 0
	// Seats 1 and 2 bet and won; seat 2 first... set up: seat 2 wins one bet, seat 1 none.
	s.Bets[12] = bet{Owner: 2, Option: 1, Target: -1} // not the most tricks: won
	s.Seats[2].Bets = 1
	s.Seats[1].Troll = true
	var evs []engine.Event
	s.score(&evs)
	// Nobody lost: Trolls go to 0; seat 2 is at 1. Only seat 2 decides.
	if s.Decision != DecRedeem || s.ToAct != 2 {
		t.Fatalf("decision %d seat %d", s.Decision, s.ToAct)
	}
	refused(t, s, 1, Action{Kind: ActRedeem, Card: NoCard}, engine.CodeNotYourTurn)
	do(t, s, 2, Action{Kind: ActKeepCounter, Card: NoCard})
	if s.Phase != PhaseBetting || s.Round != 2 || s.Seats[2].Marker != 1 {
		t.Fatalf("phase %d round %d marker %d", s.Phase, s.Round, s.Seats[2].Marker)
	}
}

// cardsOf parses "R9 G9 B9" into cards.
func cardsOf(t *testing.T, txt string) []Card {
	t.Helper()
	cols := map[byte]Colour{'G': Green, 'Y': Yellow, 'B': Blue, 'R': Red}
	var out []Card
	for _, f := range strings.Fields(txt) {
		c, ok := cols[f[0]]
		if !ok || len(f) != 2 || f[1] < '1' || f[1] > '9' {
			t.Fatalf("bad card %q", f)
		}
		out = append(out, MakeCard(c, int(f[1]-'0')))
	}
	return out
}

func setOf(cs []Card) Cards {
	var s Cards
	for _, c := range cs {
		s = s.With(c)
	}
	return s
}

// playPeter plays the rulebook's example out move by move: Peter (seat 1, left of the dealer)
// bets on exactly 2 tricks (V), 1-4 red cards (XII), every 9 taking (XV) and not the last trick
// (XIV); he takes two tricks with the red and the green 9 (3 red cards in them) and seat 2 takes the
// last trick. With blueNine he also holds the blue 9 and must throw it on a red lead, where it
// fails; without, he holds the blue 3 instead (every bet is won). It returns the last move's events.
func playPeter(t *testing.T, blueNine bool, marker int8) (*State, []engine.Event) {
	s := newTable(t, 4)
	hands := [4]string{
		"G3 G5 Y6 B1 B2 Y4 G6 B6",
		"R9 G9 B9 Y1 Y2 Y3 G4 R1",
		"R2 G1 Y9 R8 R4 Y8 G8 B8",
		"R5 G2 Y5 R6 R3 Y7 G7 B7",
	}
	talon := "R7 B3 B4 B5"
	fifth := "R4 R3 B2 B9" // Peter has no red left: the blue 9 fails
	if !blueNine {
		hands[1] = strings.Replace(hands[1], "B9", "B3", 1)
		talon = strings.Replace(talon, "B3", "B9", 1)
		fifth = "R4 R3 B2 B3"
	}
	for p, h := range hands {
		s.Seats[p].Hand = setOf(cardsOf(t, h))
	}
	s.Talon = setOf(cardsOf(t, talon))
	if err := checkCards(s); err != nil {
		t.Fatal(err)
	}
	s.Seats[1].Marker = marker
	open := cardsOf(t, "Y1 Y2 Y3 G4")
	for k, b := range []struct{ coupon, option int }{{5, 2}, {12, 1}, {15, 0}, {14, 1}} {
		passUntil(t, s, 1)
		do(t, s, 1, betOn(open[k], b.coupon, false))
		do(t, s, 1, option(b.option))
	}
	for s.Phase == PhaseBetting {
		do(t, s, int(s.ToAct), pass)
	}
	if s.ToAct != 1 || s.Seats[1].Coins != 6 {
		t.Fatalf("tricks start with seat %d; Peter has %d coins", s.ToAct, s.Seats[1].Coins)
	}
	tricks := []string{ // in playing order, from the leader
		"R9 R2 R5 G3", // Peter, 2, 3, 0: Peter takes (3 red cards)
		"G9 G1 G2 G5", // Peter takes
		"Y1 Y9 Y5 Y6", // seat 2 takes and leads from now on
		"R8 R6 B1 R1", // seat 2, 3, 0, Peter
		fifth,
		"Y8 Y7 Y4 Y2",
		"G8 G7 G6 G4",
		"B8 B7 B6 Y3", // the last trick: seat 2
	}
	var evs []engine.Event
	for _, tr := range tricks {
		for _, c := range cardsOf(t, tr) {
			evs = do(t, s, int(s.ToAct), play(c))
		}
	}
	if s.Seats[1].Tricks != 2 || s.Seats[1].Taken.OfColour(Red).Len() != 3 || s.Seats[1].Nines != setOf(cardsOf(t, "R9 G9")) {
		t.Fatalf("Peter: %d tricks, %d red cards, nines %b", s.Seats[1].Tricks, s.Seats[1].Taken.OfColour(Red).Len(), s.Seats[1].Nines)
	}
	return s, evs
}

func TestWorkedExamplePeterPlayed(t *testing.T) {
	s, evs := playPeter(t, true, 3)
	want := map[uint32]struct {
		won   bool
		coins uint32
	}{5: {true, 5}, 12: {true, 3}, 15: {false, 0}, 14: {true, 2}}
	settled := events(evs, (*sponsiov1.Event).GetBetSettled)
	if len(settled) != 4 {
		t.Fatalf("%d bets settled, want 4", len(settled))
	}
	for _, b := range settled {
		if w := want[b.GetCoupon()]; b.GetSeat() != 1 || b.GetWon() != w.won || b.GetCoins() != w.coins {
			t.Errorf("coupon %d: %v", b.GetCoupon(), b)
		}
	}
	if s.Seats[1].Won != 10 || s.Seats[1].Marker != 0 {
		t.Fatalf("Peter won %d coins, marker %d; want 10 and back to the start", s.Seats[1].Won, s.Seats[1].Marker)
	}
}

func TestWorkedExamplePeterPlayedAllWon(t *testing.T) {
	s, evs := playPeter(t, false, 0)
	for _, b := range events(evs, (*sponsiov1.Event).GetBetSettled) {
		if !b.GetWon() {
			t.Errorf("coupon %d lost", b.GetCoupon())
		}
	}
	if s.Seats[1].Marker != 4 || s.Decision != DecRedeem || s.ToAct != 1 {
		t.Fatalf("marker %d, decision %d for seat %d", s.Seats[1].Marker, s.Decision, s.ToAct)
	}
	evs = do(t, s, 1, Action{Kind: ActRedeem, Card: NoCard})
	if r := events(evs, (*sponsiov1.Event).GetCounterRedeemed); len(r) != 1 || r[0].GetCoins() != 6 {
		t.Fatalf("4 spaces should be worth 6: %v", r)
	}
}

// TestDefaultOptionsDealAsStandard: the options the game offers editors as its defaults (the
// standard coupon table written out) deal exactly as the empty options do, at 3 and 4 seats.
func TestDefaultOptionsDealAsStandard(t *testing.T) {
	def := Game{}.Info().DefaultOptions
	if n := len(def.(*sponsiov1.Options).GetCouponTable().GetCoupons()); n != 16 {
		t.Fatalf("the default coupon table has %d coupons, want 16", n)
	}
	for _, seats := range []int{3, 4} {
		for seed := uint64(1); seed <= 20; seed++ {
			plain, withDef := cfg(seats, seed), cfg(seats, seed)
			withDef.Options = def
			a, _, err := Game{}.Setup(plain)
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := Game{}.Setup(withDef)
			if err != nil {
				t.Fatalf("%d seats: the default options are refused: %v", seats, err)
			}
			if !reflect.DeepEqual(a.rules.Coupons, b.rules.Coupons) {
				t.Fatalf("%d seats, seed %d: the default coupon table differs from the standard one", seats, seed)
			}
			for v := -1; v < seats; v++ {
				if !proto.Equal(Game{}.View(a, v), Game{}.View(b, v)) {
					t.Fatalf("%d seats, seed %d: seat %d's view differs between the default and empty options", seats, seed, v)
				}
			}
		}
	}
}
