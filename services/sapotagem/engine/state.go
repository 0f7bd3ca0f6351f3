// Package engine is Sapotagem's rules: the base game for 3-6 players and the rulebook's 25
// variants as table options. It is pure: no clock, no I/O, randomness only from the seeded source
// kept in the state.
package engine

import (
	"math/bits"
	"math/rand/v2"
)

// A card is 0-51: colour = card / 13 (green, yellow, red, blue), rank = card % 13 + 1 (13 = bomb).
// Sets of cards are uint64 bit masks.

const (
	numCards = 52
	bombRank = 13
	allCards = uint64(1)<<numCards - 1
	noCard   = int8(-1)
)

func colourOf(c int8) int8 { return c / 13 }
func rankOf(c int8) int8   { return c%13 + 1 }
func cardOf(colour, rank int8) int8 {
	return colour*13 + rank - 1
}
func bit(c int8) uint64 { return 1 << uint(c) }

// factionOf returns 0-5, or -1 for a bomb.
func factionOf(c int8) int8 {
	r := rankOf(c)
	if r == bombRank {
		return -1
	}
	return Data.Factions[colourOf(c)][(r+2)%3]
}

// colourMask[c] is every card of colour c.
var colourMask = func() (m [4]uint64) {
	for c := int8(0); c < numCards; c++ {
		m[colourOf(c)] |= bit(c)
	}
	return m
}()

// bombMask is the four bombs.
var bombMask = bit(12) | bit(25) | bit(38) | bit(51)

// Variant numbers as in the rulebook.
const (
	vUnderArrest       = 1
	vFrogsOnDuty       = 2
	vAceUpTheSleeve    = 3
	vCostlyAbsence     = 4
	vDoubleAgent       = 5
	vAgencyTogether    = 6
	vAgencyClever      = 7
	vAgencyDouble      = 8
	vInnocentOrGuilty  = 9
	vSoapedFrog        = 10
	vFrogBack          = 11
	vSpyInitiative     = 12
	vOpenInformation   = 13
	vFugitiveFrogs     = 14
	vNegotiatingFrogs  = 15
	vWildBomb          = 16
	vRemoteBomb        = 17
	vPlanting          = 18
	vClosedInformation = 19
	vAnonymousHelp     = 20
	vFourPiles         = 21
	vBlindPile         = 22
	vWeakFrog          = 23
	vHidingTheGame     = 24
	vPlantingMore      = 25
	numVariants        = 25
)

// Phase is what the state waits for (values match the proto Phase enum).
type Phase int8

const (
	PhaseSleeve      Phase = 1
	PhasePlay        Phase = 2
	PhasePick        Phase = 3
	PhaseHelp        Phase = 4
	PhaseTakeBack    Phase = 5
	PhaseChooseTrump Phase = 6
	PhaseHiddenPick  Phase = 7
	PhaseOver        Phase = 8
)

// play is one card put on the table this round.
type play struct {
	Seat   int8 // who put it there
	Card   int8
	Owner  int8 // who it counts for (planting), -1 for a remote-control bomb
	Source int8 // srcHand, srcArea, srcRemote
}

const (
	srcHand   = 0
	srcArea   = 1
	srcRemote = 2
)

// core is the whole state but the random source. Every field has a fixed size, so the state
// encodes with encoding/binary into deterministic bytes and clones by plain assignment.
type core struct {
	N        int8
	Variants uint32 // bit v set: variant v on
	TurnTime int64  // nanoseconds, 0 = no limit
	LastAt   int64  // unix nanoseconds of the last action (or the start)

	Phase   Phase
	Round   int8 // current round, 1-based (the last one once over)
	Rounds  int8 // total rounds; 0 = until every hand is empty (Costly Absence)
	Starter int8
	Turn    int8 // the seat expected to act (not used in PhaseSleeve)
	Acted   int8 // seats that have acted or passed this round

	Hands     [6]uint64
	Markers   [6]int8
	JumpsUsed [6]int8
	Areas     [6]uint64 // by area index (see areaOf)
	Discard   uint64    // public discard pile
	Removed   uint64    // removed unseen

	Pile    [16]int8 // the trump pile in order (also the piles of variants 21/22)
	PileLen int8
	PilePos int8 // next pile card to be revealed

	TrumpCard   int8 // the current trump card, or -1
	TrumpColour int8 // the current trump colour, or -1 (no trump)
	GameColour  int8 // the fixed trump colour of some variants, or -1
	OpenPile    uint64
	Fugitives   uint64
	Revealed    uint64 // variant 21: the current pile's revealed cards other than the trump
	Group       [4]int8
	GroupLen    int8
	Hidden      uint64 // variant 24: the closed pile

	Sleeve     [6]int8 // variant 3: each seat's chosen card, -1 while choosing
	SleeveDeck [6]int8
	SleevePos  int8

	Table    [6]play
	NPlayed  int8
	Lead     int8  // lead colour or -1
	Received uint8 // variant 25: seats that have received a card this round

	Winner      int8   // last round's winner or -1
	HasWinner   bool   // some round has been won
	Won         uint64 // cards the winner took this round (variant 11)
	Chooser     int8   // variant 23/24: who chooses the next trump, -1 = random
	NextColour  int8   // variant 23/24: the colour chosen for the next round
	HelpPending [6]int8
	Voids       [6]uint8 // colours (bit per colour) each seat has shown it does not hold
}

// State is one table's state.
type State struct {
	core
	rng rand.PCG
}

func (s *State) on(v int) bool { return s.Variants&(1<<v) != 0 }

// teams reports whether the table plays in teams, and whether they share one play area.
func (s *State) teams() bool {
	return s.on(vAgencyTogether) || s.on(vAgencyClever) || s.on(vAgencyDouble)
}
func (s *State) sharedAreas() bool { return s.on(vAgencyTogether) || s.on(vAgencyDouble) }

// teamOf is the seat's team: partners sit opposite.
func (s *State) teamOf(seat int8) int8 {
	if s.teams() {
		return seat % (s.N / 2)
	}
	return seat
}

// areaOf is the play area a seat's captures go to.
func (s *State) areaOf(seat int8) int8 {
	if s.sharedAreas() {
		return seat % (s.N / 2)
	}
	return seat
}

func (s *State) lowGoal() bool { return s.on(vDoubleAgent) || s.on(vAgencyDouble) }

// noJumps: variants without jump markers.
func (s *State) noJumps() bool {
	return s.on(vFrogsOnDuty) || s.on(vAceUpTheSleeve) || s.on(vPlanting) || s.on(vPlantingMore)
}
func (s *State) planting() bool { return s.on(vPlanting) || s.on(vPlantingMore) }
func (s *State) weakFrog() bool { return s.on(vWeakFrog) || s.on(vHidingTheGame) }

// pileScheme: the trump comes from the sequential trump pile (base, 13, 14, 19, 20).
func (s *State) pileScheme() bool {
	return s.Variants&(1<<vUnderArrest|1<<vFrogsOnDuty|1<<vAceUpTheSleeve|1<<vCostlyAbsence|
		1<<vPlanting|1<<vPlantingMore|1<<vFourPiles|1<<vBlindPile|1<<vWeakFrog|1<<vHidingTheGame) == 0
}

func (s *State) rand() *rand.Rand { return rand.New(&s.rng) }

func popcount(m uint64) int { return bits.OnesCount64(m) }

// eachCard calls f for every card of m in ascending order.
func eachCard(m uint64, f func(c int8)) {
	for m != 0 {
		c := int8(bits.TrailingZeros64(m))
		m &= m - 1
		f(c)
	}
}

// follow narrows a set of cards to the lead colour when it holds any.
func follow(m uint64, lead int8) uint64 {
	if lead >= 0 && m&colourMask[lead] != 0 {
		return m & colourMask[lead]
	}
	return m
}

func (s *State) gameOver() bool {
	if s.Rounds == 0 {
		for i := int8(0); i < s.N; i++ {
			if s.Hands[i] != 0 {
				return false
			}
		}
		return true
	}
	return s.Round >= s.Rounds
}
