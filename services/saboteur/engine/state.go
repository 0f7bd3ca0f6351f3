package engine

import (
	"math/rand/v2"
	"slices"
)

// Phases (the proto Phase numbers).
const (
	phaseTurn     uint8 = 1
	phasePickGold uint8 = 2
	phaseTheft    uint8 = 3
	phaseOver     uint8 = 4
)

// Rounds is the number of rounds of a game.
const Rounds = 3

// RemovedCards is how many cards Saboteur 2 sets aside unseen at each round's start.
const RemovedCards = 10

// State is one table. It is changed in place by Apply and Timeout.
type State struct {
	classic  bool
	discard2 bool // classic optional rule: discard two to remove a broken tool
	n        int
	turnTime int64 // nanoseconds; 0 = no timer
	lastAt   int64 // unix nanoseconds of the last action (or the table's start)
	rng      rand.PCG

	round      int
	phase      uint8
	cur        int
	lastPlayer int
	nuggets    []int

	roles   []uint8
	aside   []uint8 // roles not dealt: the classic spare, or saboteur2's unused roles
	roleOut []uint8 // roles discarded by Swap your hats
	hands   [][]uint8
	front   []uint8  // in-front bits per seat
	theftAt []uint16 // when each seat laid the Theft in front of it (0: none)
	seq     uint16

	pile    []uint8
	removed []uint8 // saboteur2: the cards set aside unseen
	spent   []uint8 // played, discarded and removed cards

	b      board
	goals  [3]uint8 // card of each goal
	mapped []uint8  // per seat: goals it has looked at (bits)
	seen   []uint8  // seen[viewer*n+seat]: role the viewer's inspection showed (0: none)

	goldDeck []uint8 // classic: gold cards left in the box
	offer    []uint8 // classic: face-up gold cards still to pick
	thieves  []int   // saboteur2: thieves still to steal, in order

	last roundResult
	over bool

	sampled int // the round a world of Sample was dealt in (0: a real table)
	// What a world of Sample was when dealt: GoldFront and BlockedBuilders.
	front0, blocked0 int
}

// roundResult is what a finished round gave.
type roundResult struct {
	round       int
	goldReached bool
	connector   int
	roles       []uint8
	winners     []int
	payouts     []int
	blueOpen    bool
	greenOpen   bool
	crystals    int
}

func (s *State) intn(n int) int { return int(s.rng.Uint64() % uint64(n)) }

func shuffle[T any](s *State, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := s.intn(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}

func (s *State) clone() *State {
	c := *s
	c.nuggets = slices.Clone(s.nuggets)
	c.roles = slices.Clone(s.roles)
	c.aside = slices.Clone(s.aside)
	c.roleOut = slices.Clone(s.roleOut)
	c.hands = make([][]uint8, len(s.hands))
	for i, h := range s.hands {
		c.hands[i] = slices.Clone(h)
	}
	c.front = slices.Clone(s.front)
	c.theftAt = slices.Clone(s.theftAt)
	c.pile = slices.Clone(s.pile)
	c.removed = slices.Clone(s.removed)
	c.spent = slices.Clone(s.spent)
	c.b.slots = slices.Clone(s.b.slots)
	c.b.queue = nil
	c.b.frontier = slices.Clone(s.b.frontier)
	c.mapped = slices.Clone(s.mapped)
	c.seen = slices.Clone(s.seen)
	c.goldDeck = slices.Clone(s.goldDeck)
	c.offer = slices.Clone(s.offer)
	c.thieves = slices.Clone(s.thieves)
	c.last.roles = slices.Clone(s.last.roles)
	c.last.winners = slices.Clone(s.last.winners)
	c.last.payouts = slices.Clone(s.last.payouts)
	return &c
}

// count returns how many cards of type c the hand holds.
func count(hand []uint8, c uint8) int {
	n := 0
	for _, h := range hand {
		if h == c {
			n++
		}
	}
	return n
}

// holds reports whether the hand holds every card of cards (as a multiset).
func holds(hand []uint8, cards []uint8) bool {
	for i, c := range cards {
		need := 0
		for _, d := range cards[:i+1] {
			if d == c {
				need++
			}
		}
		if count(hand, c) < need {
			return false
		}
	}
	return true
}

// take removes one card of type c from seat's hand.
func (s *State) take(seat int, c uint8) {
	h := s.hands[seat]
	i := slices.Index(h, c)
	s.hands[seat] = append(h[:i], h[i+1:]...)
}

// Conserved reports whether the round's path and action cards (pile, removed, hands, spent, board and
// in front of the players) are exactly the mode's deck.
func (s *State) Conserved() bool {
	var n [numCards]int
	for _, c := range deckOf[b2i(s.classic)] {
		n[c]++
	}
	sub := func(cs []uint8) {
		for _, c := range cs {
			n[c]--
		}
	}
	sub(s.pile)
	sub(s.removed)
	sub(s.spent)
	for _, h := range s.hands {
		sub(h)
	}
	for i := 4; i < len(s.b.slots); i++ {
		n[s.b.slots[i].card]--
	}
	for _, f := range s.front {
		for i, c := range frontCards {
			if f&(1<<i) != 0 {
				n[c]--
			}
		}
	}
	return n == [numCards]int{}
}

var deckOf = [2][]uint8{deck(false), deck(true)}

// Deck returns the sorted deck of the state's mode.
func (s *State) Deck() []uint8 { return deck(s.classic) }

// BoardConsistent reports whether every card on the board matches its neighbours and the incremental
// reachability equals a full recomputation.
func (s *State) BoardConsistent() bool {
	if !s.b.consistent() {
		return false
	}
	before := make([][4]uint8, len(s.b.slots))
	for i := range s.b.slots {
		before[i] = s.b.slots[i].reach
	}
	c := s.clone()
	c.b.rebuildFrontier()
	if !slices.Equal(c.b.frontier, s.b.frontier) {
		return false
	}
	c.b.recompute()
	for i := range c.b.slots {
		if c.b.slots[i].reach != before[i] {
			return false
		}
	}
	return true
}

// Round returns the current round (1..3).
func (s *State) Round() int { return s.round }

// RoleOf returns a seat's role (for tests and tools; never shown to other seats).
func (s *State) RoleOf(seat int) uint8 { return s.roles[seat] }

// LastRoundGold reports whether the last finished round reached the gold (0 rounds: false).
func (s *State) LastRoundGold() bool { return s.last.goldReached }

// Nuggets returns each seat's nuggets.
func (s *State) Nuggets() []int { return slices.Clone(s.nuggets) }
