package engine

import (
	"math/bits"
	"math/rand/v2"
	"time"
)

type phase uint8

const (
	phaseDraw   phase = iota // the turn player must draw
	phaseDecide              // the turn player holds a drawn card
	phaseEnding              // the round is over, a nose window is still open
	phaseOver                // the game is over
)

// effectKind is a pending effect: a function card's (11–14) or a give back.
type effectKind uint8

const (
	effPeek effectKind = iota + 1
	effSpy
	effGive
	effSwitch
	effGiveBack
)

type effect struct {
	exec uint8
	kind effectKind
	to   uint8 // give back: the receiver
}

// State is one table of sabai-sabai. It is changed in place by Apply and Timeout.
type State struct {
	// options
	n         uint8
	peek      uint8
	forOthers bool
	rounds    uint8
	noseNS    int64
	turnNS    int64
	// Timing (Rulings R1, B1): the throw window, the bots' reaction range and think, the bot seats
	// and the seed their reactions are drawn from (apart from rng, which decides the cards).
	windowNS   int64
	reactMinNS int64
	reactMaxNS int64
	thinkNS    int64
	bots       uint16
	seed       uint64

	rng rand.PCG

	round      uint8
	starter    uint8
	cur        uint8
	ph         phase
	turnDone   bool   // the turn player has played or kept (or added the Ass Joker)
	turn       uint64 // turn number over the whole game, from 1
	roundTurns uint32 // turns completed this round
	drawn      uint8  // card held by the turn player, or noCard

	locked   uint16 // seats locked out of throwing by a wrong throw
	noseOpen bool
	touched  uint16
	noseAt   int64 // unix nanos of the nose deadline

	called    bool
	caller    uint8
	lastSeat  uint8 // shown after a call: whose turn is the last
	remaining uint8 // turns still to play after a call

	hall   int8 // seat in the Hall of Fame, or -1
	lastAt int64

	discAt int64 // unix nanos of the last discard (a play or keep landing): the window opens
	// discTurn is the turn in which the last discard landed: a throw naming that turn or a later one
	// aims at the top it found (Ruling T1), though turns may have started since without a discard
	// (an effect resolved, a call).
	discTurn uint64
	topAt    int64 // unix nanos of the last card landing (a discard or a throw): bots react to it
	drawAt   int64 // unix nanos of the turn player's draw: a bot thinks from it
	// A discard chosen inside the window (or a bot's think) waits: KindPlay or KindKeep (0: none),
	// the keep's slot, and when it lands.
	pend     Kind
	pendSlot uint8
	pendAt   int64

	// prio, in a world dealt by Sample, is the seat that acts before anybody else (plus one; 0:
	// none): the viewer, whose real decision the search's root is. Step clears it.
	prio uint8
	// ended holds each seat's card points at the end of the last round (the Ass Joker's holder
	// gets assCost more), for a world's Value; it is not encoded.
	ended [maxSeat]int16

	// mem lends the memory of frequent events (see frames); never encoded, never shared by clones.
	mem frames

	vp    []int32
	rows  [][]uint8 // per seat; noCard marks an empty slot
	known [NumCards]uint16
	pile  []uint8 // draw pile, top last
	disc  []uint8 // discard pile, top last
	queue []effect
}

func bit(seat uint8) uint16 { return 1 << seat }

func (s *State) all() uint16 { return 1<<s.n - 1 }

// public marks, in a card's knowledge, a card shown to everybody (face up, a wrong throw, the
// revealed Ass Joker): spectators see it too. Seat bits alone are not enough: every seat may have
// looked at a card privately.
const public uint16 = 1 << 15

func (s *State) reveal(id uint8) { s.known[id] = s.all() | public }

// next is the seat after seat in turn order (descending seat numbers, Ruling D3).
func (s *State) next(seat uint8) uint8 { return (seat + s.n - 1) % s.n }

// prev is the seat before seat in turn order.
func (s *State) prev(seat uint8) uint8 { return (seat + 1) % s.n }

func (s *State) final() bool { return s.round == s.rounds }

func (s *State) over() bool { return s.ph == phaseOver }

func (s *State) top() uint8 {
	if len(s.disc) == 0 {
		return noCard
	}
	return s.disc[len(s.disc)-1]
}

func (s *State) count(seat uint8) int {
	c := 0
	for _, id := range s.rows[seat] {
		if id != noCard {
			c++
		}
	}
	return c
}

// hasCards reports whether seat has a card left; it stops at the first one.
func (s *State) hasCards(seat uint8) bool {
	for _, id := range s.rows[seat] {
		if id != noCard {
			return true
		}
	}
	return false
}

func (s *State) occupied(seat uint8, slot uint8) bool {
	r := s.rows[seat]
	return int(slot) < len(r) && r[slot] != noCard
}

// place puts id into seat's row: the first empty slot, else a new one at the end.
func (s *State) place(seat, id uint8) uint8 {
	r := s.rows[seat]
	for i, c := range r {
		if c == noCard {
			r[i] = id
			return uint8(i)
		}
	}
	s.rows[seat] = append(r, id)
	return uint8(len(r))
}

func (s *State) remove(seat, slot uint8) uint8 {
	id := s.rows[seat][slot]
	s.rows[seat][slot] = noCard
	return id
}

func (s *State) intn(n int) int {
	return int((s.rng.Uint64() >> 32) * uint64(n) >> 32)
}

func (s *State) shuffle(ids []uint8) {
	for i := len(ids) - 1; i > 0; i-- {
		j := s.intn(i + 1)
		ids[i], ids[j] = ids[j], ids[i]
	}
}

func (s *State) otherHasCards(seat uint8) bool {
	for o := range s.n {
		if o != seat && s.hasCards(o) {
			return true
		}
	}
	return false
}

func popcount(m uint16) int { return bits.OnesCount16(m) }

func (s *State) deadline() (int64, bool) {
	var d int64
	ok := false
	if s.noseOpen {
		d, ok = s.noseAt, true
	}
	if s.pending() {
		// The turn player has chosen: no turn timer runs for them, their discard lands at pendAt.
		if !ok || s.pendAt < d {
			d, ok = s.pendAt, true
		}
	} else if s.turnNS > 0 && s.ph != phaseOver && s.ph != phaseEnding {
		t := s.lastAt + s.turnNS
		if !ok || t < d {
			d, ok = t, true
		}
	}
	return d, ok
}

// pending reports a chosen discard waiting to land now that no effect holds it up.
func (s *State) pending() bool {
	return s.pend != 0 && len(s.queue) == 0 && s.ph == phaseDecide
}

// landAt is the earliest time the turn player's discard may land: once the throw window after the
// last discard has passed (Ruling R1) and, for a bot, once it has thought since its draw (B1).
func (s *State) landAt() int64 {
	t := s.discAt + s.windowNS
	if s.bots&bit(s.cur) != 0 {
		t = max(t, s.drawAt+s.thinkNS)
	}
	return t
}

// reaction is bot seat's reaction delay to the card on top now (Ruling B1): drawn from the table's
// seed, the turn, the discard pile's size and the seat, so that it is new for every card landing
// and the same in every replay, without touching the seeded source that decides the cards.
func (s *State) reaction(seat uint8) int64 {
	if s.reactMaxNS <= s.reactMinNS {
		return s.reactMinNS
	}
	x := s.seed ^ s.turn*0x9e3779b97f4a7c15 ^ uint64(len(s.disc))<<40 ^ uint64(seat)<<56
	// splitmix64's finaliser.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return s.reactMinNS + int64(x%uint64(s.reactMaxNS-s.reactMinNS+1))
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Conservation counts every card of the table: rows, draw pile, discard pile and the drawn card.
// It is NumCards at every step.
func (s *State) Conservation() int {
	c := len(s.pile) + len(s.disc)
	if s.drawn != noCard {
		c++
	}
	for i := range s.n {
		c += s.count(i)
	}
	return c
}
