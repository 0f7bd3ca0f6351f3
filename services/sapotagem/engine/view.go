package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// View implements engine.Game: public information, plus the viewer's own hand and secret choices.
func (Game) View(s *State, viewer int) proto.Message {
	if viewer < engine.Spectator || viewer >= int(s.N) {
		viewer = engine.Spectator
	}
	v := &pb.View{
		Options:      optionsPB(s.Variants),
		Viewer:       int32(viewer),
		Phase:        pb.Phase(s.Phase),
		Round:        uint32(s.Round),
		Rounds:       uint32(s.Rounds),
		StartingSeat: uint32(s.Starter),
		Lead:         colourPB(s.Lead),
		Trump:        colourPB(s.TrumpColour),
		TrumpCard:    cardPB(s.TrumpCard),
		Fugitives:    cardsPB(s.Fugitives),
		Discard:      cardsPB(s.Discard),
		Revealed:     cardsPB(s.Revealed),
		HiddenSize:   uint32(popcount(s.Hidden)),
	}
	if s.Phase != PhaseOver && s.Phase != PhaseSleeve {
		v.Turn = proto.Uint32(uint32(s.Turn))
	}
	if s.HasWinner {
		v.LastWinner = proto.Uint32(uint32(s.Starter))
	}
	var res scores
	over := s.Phase == PhaseOver
	if over {
		res = s.score()
		v.Outcome = res.outcome(s)
	}
	for seat := int8(0); seat < s.N; seat++ {
		sv := &pb.SeatView{Seat: uint32(seat), HandSize: uint32(popcount(s.Hands[seat])),
			JumpMarkers: uint32(s.Markers[seat]), JumpsUsed: uint32(s.JumpsUsed[seat]),
			Area: cardsPB(s.Areas[seat]), Team: uint32(s.teamOf(seat)), SleeveChosen: s.Sleeve[seat] >= 0}
		for col := int8(0); col < 4; col++ {
			if s.Voids[seat]&(1<<col) != 0 {
				sv.VoidColours = append(sv.VoidColours, colourPB(col))
			}
		}
		if s.sharedAreas() && seat >= s.N/2 {
			sv.Area = nil
		}
		if over {
			sv.Score = int64(res.unit[seat])
		}
		v.Seats = append(v.Seats, sv)
		if s.on(vPlantingMore) && s.Received&(1<<seat) != 0 {
			v.Received = append(v.Received, uint32(seat))
		}
	}
	if viewer >= 0 {
		v.Hand = cardsPB(s.Hands[viewer])
	}
	for i := 0; i < int(s.NPlayed); i++ {
		p := s.Table[i]
		owner := p.Owner
		if owner < 0 {
			owner = p.Seat
		}
		v.Table = append(v.Table, &pb.Played{Seat: uint32(p.Seat), Card: cardPB(p.Card), Owner: uint32(owner),
			FromArea: p.Source == srcArea, Remote: p.Source == srcRemote})
	}
	rest := s.Pile[s.PilePos:max(s.PilePos, s.PileLen)]
	switch {
	case s.on(vUnderArrest):
		v.OpenPile = cardsPB(s.OpenPile)
	case s.pileScheme() && s.on(vOpenInformation):
		v.OpenPile = seqPB(rest)
	}
	if s.pileScheme() && !s.on(vClosedInformation) && len(rest) > 0 {
		v.NextTrump = cardPB(rest[0])
	}
	v.PileSize = uint32(len(rest)) + uint32(s.GroupLen)
	if s.on(vOpenInformation) || (s.pileScheme() && !s.on(vClosedInformation) && len(rest) > 0) {
		v.PileSize-- // the next trump lies face up on the pile (all of it, with Open Information)
		if s.on(vOpenInformation) {
			v.PileSize = 0
		}
	}
	if s.on(vAceUpTheSleeve) {
		if s.Phase == PhaseSleeve {
			if viewer >= 0 && s.Sleeve[viewer] >= 0 {
				v.TrumpDeck = seqPB(s.Sleeve[viewer : viewer+1])
			}
		} else {
			v.TrumpDeck = seqPB(s.SleeveDeck[:s.N])
			v.TrumpCard = cardPB(s.SleeveDeck[s.SleevePos-1])
		}
	}
	if s.Phase == PhaseHiddenPick && viewer == int(s.Turn) {
		v.Hidden = cardsPB(s.Hidden)
	}
	return v
}

func optionsPB(variants uint32) *pb.Options {
	var on []int
	for v := 1; v <= numVariants; v++ {
		if variants&(1<<v) != 0 {
			on = append(on, v)
		}
	}
	return OptionsOf(on...)
}

// CardID is the engine's number (0-51) of a proto card, or -1 when it is not a card.
func CardID(c *pb.Card) int8 {
	id, v := cardFromPB(c, "")
	if v != nil {
		return -1
	}
	return id
}

// CardsScore is what a play area holding cards scores under the options' scoring (faction
// table, bombs, Wild Bomb and the table's goal), without team or jump penalties. Bots use it.
func CardsScore(o *pb.Options, cards []int8) int {
	s := State{}
	s.Variants = variantsOf(o)
	return s.areaPoints(setOf(cards))
}
