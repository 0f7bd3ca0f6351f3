package engine

import (
	"math/bits"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
)

// Colour is a card colour, 0 to 3.
type Colour int8

// The four colours, in the order of sponsiov1.Colour less one.
const (
	Green Colour = iota
	Yellow
	Blue
	Red
	NoColour Colour = -1
)

var colourNames = [4]string{"green", "yellow", "blue", "red"}

func (c Colour) String() string {
	if c < 0 || c > 3 {
		return "none"
	}
	return colourNames[c]
}

// Proto is c as the API's enum.
func (c Colour) Proto() sponsiov1.Colour {
	if c < 0 || c > 3 {
		return sponsiov1.Colour_COLOUR_UNSPECIFIED
	}
	return sponsiov1.Colour(c + 1)
}

func colourFromProto(c sponsiov1.Colour) (Colour, bool) {
	if c < sponsiov1.Colour_COLOUR_GREEN || c > sponsiov1.Colour_COLOUR_RED {
		return NoColour, false
	}
	return Colour(c - 1), true
}

// Card is one of 36 cards: colour*9 + value-1.
type Card int8

// NoCard marks an absent card.
const NoCard Card = -1

// MakeCard returns the card of colour c and value v (1-9).
func MakeCard(c Colour, v int) Card { return Card(int(c)*9 + v - 1) }

// Colour of the card.
func (c Card) Colour() Colour { return Colour(c / 9) }

// Value of the card, 1 to 9.
func (c Card) Value() int { return int(c%9) + 1 }

func (c Card) String() string {
	if c < 0 || c > 35 {
		return "-"
	}
	return c.Colour().String() + " " + string(rune('0'+c.Value()))
}

// cardMsgs are the 36 card messages, made once: events and views share them, so that a card in
// a message costs no allocation. They must never be modified.
var cardMsgs = func() (m [36]*sponsiov1.Card) {
	for c := range Card(36) {
		m[c] = &sponsiov1.Card{Colour: c.Colour().Proto(), Value: uint32(c.Value())}
	}
	return m
}()

// Proto is c as the API's message (shared: read only).
func (c Card) Proto() *sponsiov1.Card { return cardMsgs[c] }

// cardFromProto decodes a card; ok is false for anything that is not one of the 36 cards.
func cardFromProto(pc *sponsiov1.Card) (Card, bool) {
	col, ok := colourFromProto(pc.GetColour())
	if !ok || pc.GetValue() < 1 || pc.GetValue() > 9 {
		return NoCard, false
	}
	return MakeCard(col, int(pc.GetValue())), true
}

// Cards is a set of cards (bit i: card i).
type Cards uint64

func (s Cards) Has(c Card) bool      { return c >= 0 && c < 36 && s&(1<<uint(c)) != 0 }
func (s Cards) With(c Card) Cards    { return s | 1<<uint(c) }
func (s Cards) Without(c Card) Cards { return s &^ (1 << uint(c)) }
func (s Cards) Len() int             { return bits.OnesCount64(uint64(s)) }

// First returns the lowest card of the set (NoCard when empty).
func (s Cards) First() Card {
	if s == 0 {
		return NoCard
	}
	return Card(bits.TrailingZeros64(uint64(s)))
}

// OfColour returns the cards of colour c in s.
func (s Cards) OfColour(c Colour) Cards { return s & (colourMask << (9 * uint(c))) }

const colourMask Cards = 1<<9 - 1

// nines are the four 9s.
const nines Cards = 1<<8 | 1<<17 | 1<<26 | 1<<35

// allCards is the full 36-card deck.
const allCards Cards = 1<<36 - 1

// each calls f for every card of s, lowest first.
func (s Cards) each(f func(Card)) {
	for s != 0 {
		c := Card(bits.TrailingZeros64(uint64(s)))
		s &= s - 1
		f(c)
	}
}

// Protos lists s as messages, lowest card first.
func (s Cards) Protos() []*sponsiov1.Card {
	if s == 0 {
		return nil
	}
	out := make([]*sponsiov1.Card, 0, s.Len())
	s.each(func(c Card) { out = append(out, c.Proto()) })
	return out
}
