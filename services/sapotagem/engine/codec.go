package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
)

func trailing(m uint64) int { return bits.TrailingZeros64(m) }

// cardPB is the proto form of a card (nil for -1).
func cardPB(c int8) *pb.Card {
	if c < 0 {
		return nil
	}
	return &pb.Card{Colour: pb.Colour(colourOf(c) + 1), Rank: uint32(rankOf(c)), Faction: pb.Faction(factionOf(c) + 1)}
}

// cardsPB lists a set of cards in ascending order.
func cardsPB(m uint64) []*pb.Card {
	if m == 0 {
		return nil
	}
	// One backing array for the cards: two allocations per list instead of one per card.
	n := popcount(m)
	out, backing := make([]*pb.Card, 0, n), make([]pb.Card, n)
	eachCard(m, func(c int8) {
		card := &backing[len(out)]
		card.Colour, card.Rank, card.Faction = pb.Colour(colourOf(c)+1), uint32(rankOf(c)), pb.Faction(factionOf(c)+1)
		out = append(out, card)
	})
	return out
}

// seqPB lists cards in the given order.
func seqPB(cs []int8) []*pb.Card {
	out := make([]*pb.Card, 0, len(cs))
	for _, c := range cs {
		out = append(out, cardPB(c))
	}
	return out
}

func colourPB(c int8) pb.Colour {
	if c < 0 {
		return pb.Colour_COLOUR_UNSPECIFIED
	}
	return pb.Colour(c + 1)
}

// cardFromPB decodes a card; absent is -1; a card that does not exist is a Malformed violation.
func cardFromPB(c *pb.Card, field string) (int8, *engine.Violation) {
	if c == nil {
		return -1, nil
	}
	if c.GetColour() < pb.Colour_COLOUR_GREEN || c.GetColour() > pb.Colour_COLOUR_BLUE || c.GetRank() < 1 || c.GetRank() > bombRank {
		return -1, engine.Invalid(field, CodeBadCard, "no such card (colour %v, rank %d)", c.GetColour(), c.GetRank())
	}
	card := cardOf(int8(c.GetColour()-1), int8(c.GetRank()))
	if f := c.GetFaction(); f != pb.Faction_FACTION_UNSPECIFIED && f != pb.Faction(factionOf(card)+1) {
		return -1, engine.Invalid(field, CodeBadCard, "card %v %d is not of faction %v", c.GetColour(), c.GetRank(), f)
	}
	return card, nil
}

// stateVersion prefixes every encoded state.
const stateVersion = 1

// EncodeState implements engine.Game: a version byte, the random source, then the fixed-size core.
func (Game) EncodeState(s *State) ([]byte, error) {
	rng, err := s.rng.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode rng: %w", err)
	}
	var buf bytes.Buffer
	buf.Grow(1 + 1 + len(rng) + binary.Size(&s.core))
	buf.WriteByte(stateVersion)
	buf.WriteByte(byte(len(rng)))
	buf.Write(rng)
	if err := binary.Write(&buf, binary.LittleEndian, &s.core); err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return buf.Bytes(), nil
}

// DecodeState implements engine.Game.
func (Game) DecodeState(b []byte) (*State, error) {
	if len(b) < 2 || b[0] != stateVersion {
		return nil, errors.New("not a sapotagem state (version)")
	}
	n := int(b[1])
	if len(b) < 2+n {
		return nil, errors.New("truncated state")
	}
	s := &State{}
	if err := s.rng.UnmarshalBinary(b[2 : 2+n]); err != nil {
		return nil, fmt.Errorf("decode rng: %w", err)
	}
	rest := b[2+n:]
	if len(rest) != binary.Size(&s.core) {
		return nil, fmt.Errorf("state has %d bytes, want %d", len(rest), binary.Size(&s.core))
	}
	if err := binary.Read(bytes.NewReader(rest), binary.LittleEndian, &s.core); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	if s.N < int8(Data.MinSeats) || s.N > int8(Data.MaxSeats) {
		return nil, fmt.Errorf("state has %d seats", s.N)
	}
	return s, nil
}
