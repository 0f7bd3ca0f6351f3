package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
)

// Phases of a round.
const (
	PhaseBetting int8 = iota + 1
	PhaseTricks
	PhaseScoring
	PhaseOver
)

// Decisions the seat to act faces (sponsiov1.Decision values).
const (
	DecTurn int8 = iota + 1
	DecOption
	DecTarget
	DecPriceCard
	DecCombatCard
	DecChangeBet
	DecPlay
	DecRedeem
)

// Bet results.
const (
	resultNone int8 = iota
	resultWon
	resultLost
)

// End reasons (sponsiov1.EndReason values).
const (
	endSequence int8 = iota + 1
	endCoins
	endRoundLimit
)

// seat is one player's part of the state.
type seat struct {
	Coins  int32
	Marker int8
	// Hand holds the hidden cards, Open the face-up ones; both are played in the tricks.
	Hand, Open Cards
	// Taken holds the cards of the tricks taken; Played the cards this seat played this round.
	Taken, Played Cards
	// Nines are the 9s with which the seat won a trick.
	Nines    Cards
	Tricks   int8
	Bets     int8
	Troll    bool
	Doubling bool // holds the Doubling token, not yet used
	Staked   int8 // coins on the 3-Coin token
	Won      int32
	LastWon  int32
	Winner   bool
	Final    int32 // coins of the final redeem after the last round
}

// bet is one coupon's fate this round.
type bet struct {
	Owner    int8 // -1: nobody took it
	Option   int8 // -1: still to be marked
	Target   int8 // counter-bet only
	Double   bool
	Result   int8
	CoinsWon int16
}

// core is the state's fixed-size part, encoded as is.
type core struct {
	Players  int8
	Removed  Colour
	Round    int8
	Dealer   int8
	Phase    int8
	Decision int8
	ToAct    int8
	Turn     int8 // betting turns finished this round
	Pending  int8 // coupon being marked
	// PendingToken is the token whose price (PendingCards extra open cards) is being paid.
	PendingToken int8
	PendingCards int8
	Tokens       [numTokens]int8 // owner, -1 free
	Combat       Card
	Trick        int8 // 0 to 7
	Leader       int8
	LastTrick    int8 // winner of the eighth trick
	NPlayed      int8
	Plays        [4]Card
	Redeem       int8 // redeem decisions done, clockwise from the dealer's left
	EndReason    int8
	Talon        Cards
	Seats        [4]seat
	Bets         [16]bet
	// BankIn and BankOut count coins paid to and by the bank over the game.
	BankIn, BankOut int64
	TurnTime        int64 // nanoseconds; 0: no limit
	LastSec         int64
	LastNsec        int32
}

// State is a Sponsio table.
type State struct {
	core
	rng   rand.PCG
	rules *Rules
	// custom is set when rules came from the table's options (and is encoded with the state).
	custom bool
}

const stateVersion = 1

func (s *State) clone() *State {
	c := *s
	return &c
}

func (s *State) encode() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte(stateVersion)
	rng, err := s.rng.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode rng: %w", err)
	}
	buf.WriteByte(byte(len(rng)))
	buf.Write(rng)
	if s.custom {
		buf.WriteByte(1)
		encodeRules(&buf, s.rules)
	} else {
		buf.WriteByte(0)
	}
	e := encoder{b: buf.Bytes()}
	s.core.walk(&e)
	return e.b, nil
}

var errBadState = errors.New("not a sponsio state")

func decodeState(b []byte) (*State, error) {
	r := bytes.NewReader(b)
	if v, err := r.ReadByte(); err != nil || v != stateVersion {
		return nil, errBadState
	}
	n, err := r.ReadByte()
	if err != nil || int(n) > r.Len() {
		return nil, errBadState
	}
	s := &State{rules: &Standard}
	rng := make([]byte, n)
	_, _ = r.Read(rng)
	if err := s.rng.UnmarshalBinary(rng); err != nil {
		return nil, fmt.Errorf("decode rng: %w", err)
	}
	custom, err := r.ReadByte()
	if err != nil {
		return nil, errBadState
	}
	if custom == 1 {
		s.custom = true
		if s.rules, err = decodeRules(r); err != nil {
			return nil, err
		}
	}
	rest := make([]byte, r.Len())
	_, _ = r.Read(rest)
	d := decoder{b: rest}
	s.core.walk(&d)
	if d.bad || len(d.b) != 0 || !s.valid() {
		return nil, errBadState
	}
	return s, nil
}

// valid checks the decoded state's ranges that indexing relies on.
func (s *State) valid() bool {
	in := func(v, lo, hi int8) bool { return v >= lo && v <= hi }
	if !in(s.Players, 3, 4) || !in(int8(s.Removed), -1, 3) || !in(s.Dealer, 0, s.Players-1) ||
		!in(s.Phase, PhaseBetting, PhaseOver) || !in(s.Decision, 0, DecRedeem) || !in(s.ToAct, -1, s.Players-1) ||
		!in(s.Pending, -1, 15) || !in(s.PendingToken, -1, int8(numTokens)-1) || !in(s.Leader, 0, s.Players-1) ||
		!in(s.LastTrick, -1, 3) || !in(s.NPlayed, 0, s.Players) || !in(s.Redeem, 0, s.Players) {
		return false
	}
	if s.Phase != PhaseOver && s.ToAct < 0 {
		return false
	}
	for i := range s.Seats {
		if !in(s.Seats[i].Marker, 0, 9) {
			return false
		}
	}
	for i := range s.Bets {
		b := &s.Bets[i]
		if !in(b.Owner, -1, s.Players-1) || !in(b.Target, -1, s.Players-1) || !in(b.Option, -1, int8(len(s.rules.Coupons[i].Options))-1) {
			return false
		}
	}
	for _, c := range s.Plays {
		if !in(int8(c), -1, 35) {
			return false
		}
	}
	return in(int8(s.Combat), -1, 35)
}

func encodeRules(buf *bytes.Buffer, r *Rules) {
	for i := range r.Coupons {
		c := &r.Coupons[i]
		buf.Write([]byte{byte(c.Number), byte(c.Kind), byte(c.Colour), byte(len(c.Options))})
		for _, o := range c.Options {
			buf.Write([]byte{byte(o.Min), byte(o.Max), byte(o.Odds)})
		}
	}
}

func decodeRules(r *bytes.Reader) (*Rules, error) {
	rules := Standard
	for i := range rules.Coupons {
		var h [4]byte
		if _, err := r.Read(h[:]); err != nil {
			return nil, errBadState
		}
		c := Coupon{Number: int8(h[0]), Kind: CouponKind(h[1]), Colour: Colour(int8(h[2]))}
		if int(c.Number) != i+1 || c.Kind < KindColourCount || c.Kind > KindCounterBet || c.Colour < 0 || c.Colour > 3 ||
			h[3] < 1 || h[3] > 8 || (c.Kind == KindCounterBet) != (i == 15) {
			return nil, errBadState
		}
		for range h[3] {
			var o [3]byte
			if _, err := r.Read(o[:]); err != nil {
				return nil, errBadState
			}
			c.Options = append(c.Options, Option{int8(o[0]), int8(o[1]), int8(o[2])})
		}
		rules.Coupons[i] = c
	}
	return &rules, nil
}

// left is the seat to p's left (the next clockwise).
func (s *State) left(p int8) int8 { return (p + 1) % s.Players }

// intn draws a number in [0, n) from the state's source.
func (s *State) intn(n int) int { return int(s.rng.Uint64() % uint64(n)) }
