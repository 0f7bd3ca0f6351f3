package engine

import (
	"errors"
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

var errBadState = errors.New("not a sponsio state")

// left is the seat to p's left (the next clockwise).
func (s *State) left(p int8) int8 { return (p + 1) % s.Players }

// intn draws a number in [0, n) from the state's source.
func (s *State) intn(n int) int { return int(s.rng.Uint64() % uint64(n)) }
