package engine

import (
	"fmt"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
)

// CouponKind says what a coupon's bet measures.
type CouponKind int8

// Coupon kinds; the measure each compares with an option's range is in measure.
const (
	KindColourCount CouponKind = iota + 1 // cards of the coupon's colour in the tricks taken
	KindTricks                            // tricks taken
	KindMostTricks                        // 1 when more tricks than every opponent, else 0
	KindLastTrick                         // 1 when the last trick was taken, else 0
	KindNines                             // 0: no 9 played, 1: every 9 played took, 2: one failed
	KindCounterBet                        // 1 when the target lost at least one bet, else 0
)

// Family is a coupon's colour: nobody holds two coupons of the same family (V and VI are both
// cappuccino).
type Family int8

// Families: the four card colours, then cappuccino, brown, dark brown and the counter-bet.
const (
	FamilyCappuccino Family = 4 + iota
	FamilyBrown
	FamilyDarkBrown
	FamilyCounter
)

// Option is one bet on a coupon: won when Min <= measure <= Max; pays Odds x stake.
type Option struct {
	Min, Max, Odds int8
}

// Coupon is a betting coupon.
type Coupon struct {
	Number  int8 // 1 (I) to 16 (XVI)
	Kind    CouponKind
	Colour  Colour // KindColourCount only
	Options []Option
}

// Family is the coupon's colour for the one-coupon-per-colour rule.
func (c *Coupon) Family() Family {
	switch c.Kind {
	case KindColourCount:
		return Family(c.Colour)
	case KindTricks, KindMostTricks:
		return FamilyCappuccino
	case KindLastTrick:
		return FamilyBrown
	case KindNines:
		return FamilyDarkBrown
	default:
		return FamilyCounter
	}
}

// Price is a token's price: coins to the bank, or extra cards laid face up.
type Price struct {
	Coins     int8
	OpenCards int8
}

// Token is an ability token.
type Token int8

// Tokens, in the order of sponsiov1.Token less one.
const (
	TokenCombat Token = iota
	TokenDoubling
	TokenChanging
	TokenThreeCoin
	numTokens
)

// Rules is the one data table of every number the rulebook leaves to its figures (Rulings C1, T1
// and Q1 of the rules): the coupons, the token prices, the counter values, and the few constants
// around them. A publisher's figure replaces it without code changes.
type Rules struct {
	Coupons [16]Coupon
	// TokenPrices by Token.
	TokenPrices [numTokens]Price
	// CounterValues by sequence position 0 to 9 (9 ends the game and is never redeemed).
	CounterValues [10]int8
	// ThreeCoinStake is what the 3-Coin token holds.
	ThreeCoinStake int8
	// TrollPay is a Troll's pay per lost bet of the others; TrollPenalty what they pay when none
	// was lost.
	TrollPay, TrollPenalty int8
	// RoundBonus to a sole round winner; TiedBonus to each of several.
	RoundBonus, TiedBonus int8
	StartCoins            int8
	WinCoins              int8
	WinPosition           int8
	MaxRounds             int8
	MaxBets               int8
	DoubleStake           int8
}

func colourCount(n int8, c Colour, lo []Option) Coupon {
	return Coupon{Number: n, Kind: KindColourCount, Colour: c, Options: lo}
}

// Standard is the table the rules file's rulings give.
var Standard = Rules{
	Coupons: [16]Coupon{
		colourCount(1, Green, colour3),
		colourCount(2, Yellow, colour3),
		colourCount(3, Blue, colour3),
		colourCount(4, Red, colour3),
		{Number: 5, Kind: KindTricks, Options: []Option{{0, 0, 4}, {1, 1, 4}, {2, 2, 5}, {3, 3, 5}, {4, 8, 4}}},
		{Number: 6, Kind: KindTricks, Options: []Option{{0, 1, 2}, {2, 3, 2}, {4, 5, 3}, {6, 8, 5}}},
		{Number: 7, Kind: KindLastTrick, Options: []Option{{1, 1, 3}, {0, 0, 2}}},
		{Number: 8, Kind: KindNines, Options: []Option{{1, 1, 3}, {2, 2, 3}}},
		colourCount(9, Green, colour4),
		colourCount(10, Yellow, colour4),
		colourCount(11, Blue, colour4),
		colourCount(12, Red, colour4),
		{Number: 13, Kind: KindMostTricks, Options: []Option{{1, 1, 3}, {0, 0, 2}}},
		{Number: 14, Kind: KindLastTrick, Options: []Option{{1, 1, 3}, {0, 0, 2}}},
		{Number: 15, Kind: KindNines, Options: []Option{{1, 1, 3}, {2, 2, 3}}},
		{Number: 16, Kind: KindCounterBet, Options: []Option{{1, 1, 3}}},
	},
	TokenPrices: [numTokens]Price{
		TokenCombat:    {Coins: 1},
		TokenDoubling:  {OpenCards: 1},
		TokenChanging:  {Coins: 1},
		TokenThreeCoin: {OpenCards: 1},
	},
	CounterValues:  [10]int8{0, 1, 2, 4, 6, 9, 12, 16, 20, 0},
	ThreeCoinStake: 3,
	TrollPay:       2,
	TrollPenalty:   4,
	RoundBonus:     2,
	TiedBonus:      1,
	StartCoins:     10,
	WinCoins:       30,
	WinPosition:    9,
	MaxRounds:      5,
	MaxBets:        4,
	DoubleStake:    2,
}

var (
	colour3 = []Option{{0, 0, 4}, {1, 3, 2}, {4, 6, 3}, {7, 9, 5}}
	colour4 = []Option{{0, 0, 4}, {1, 4, 3}, {5, 7, 3}, {8, 9, 5}}
)

// inPlay reports whether coupon index i (number i+1) is used with n players and the removed colour.
func (r *Rules) inPlay(i int, n int, removed Colour) bool {
	num := i + 1
	if n == 4 {
		return num >= 5
	}
	if num > 8 && num < 16 {
		return false
	}
	c := &r.Coupons[i]
	return !(c.Kind == KindColourCount && c.Colour == removed)
}

// rulesFromProto validates a custom coupon table and returns Standard with its coupons replaced.
func rulesFromProto(t *sponsiov1.CouponTable) (*Rules, error) {
	r := Standard
	if len(t.GetCoupons()) != 16 {
		return nil, fmt.Errorf("%d coupons, want 16", len(t.GetCoupons()))
	}
	var seen [16]bool
	for _, pc := range t.GetCoupons() {
		n := pc.GetNumber()
		if n < 1 || n > 16 || seen[n-1] {
			return nil, fmt.Errorf("coupon number %d missing, repeated or out of 1-16", n)
		}
		seen[n-1] = true
		k := CouponKind(pc.GetKind())
		if k < KindColourCount || k > KindCounterBet {
			return nil, fmt.Errorf("coupon %d: unknown kind", n)
		}
		c := Coupon{Number: int8(n), Kind: k}
		if k == KindColourCount {
			col, ok := colourFromProto(pc.GetColour())
			if !ok {
				return nil, fmt.Errorf("coupon %d: a colour-count coupon needs a colour", n)
			}
			c.Colour = col
		} else if pc.GetColour() != sponsiov1.Colour_COLOUR_UNSPECIFIED {
			return nil, fmt.Errorf("coupon %d: only colour-count coupons have a colour", n)
		}
		if (k == KindCounterBet) != (n == 16) {
			return nil, fmt.Errorf("coupon %d: the counter-bet is coupon XVI and only XVI", n)
		}
		if len(pc.GetOptions()) < 1 || len(pc.GetOptions()) > 8 {
			return nil, fmt.Errorf("coupon %d: 1 to 8 options", n)
		}
		if k == KindCounterBet && len(pc.GetOptions()) != 1 {
			return nil, fmt.Errorf("coupon %d: the counter-bet has one option", n)
		}
		for _, o := range pc.GetOptions() {
			if o.GetMin() > o.GetMax() || o.GetMax() > 9 || o.GetOdds() < 1 || o.GetOdds() > 20 {
				return nil, fmt.Errorf("coupon %d: option needs min <= max <= 9 and odds 1-20", n)
			}
			c.Options = append(c.Options, Option{int8(o.GetMin()), int8(o.GetMax()), int8(o.GetOdds())})
		}
		r.Coupons[n-1] = c
	}
	return &r, nil
}

// CouponProto describes coupon c for views and options.
func CouponProto(c *Coupon) *sponsiov1.Coupon {
	pc := &sponsiov1.Coupon{Number: uint32(c.Number), Kind: sponsiov1.CouponKind(c.Kind)}
	if c.Kind == KindColourCount {
		pc.Colour = c.Colour.Proto()
	}
	for _, o := range c.Options {
		pc.Options = append(pc.Options, &sponsiov1.BetOption{Min: uint32(o.Min), Max: uint32(o.Max), Odds: uint32(o.Odds)})
	}
	return pc
}
