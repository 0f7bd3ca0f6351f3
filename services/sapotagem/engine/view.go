package engine

import (
	"fmt"
	"strings"

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

var colourNames = [5]string{"-", "green", "yellow", "red", "blue"}
var factionNames = [7]string{"bomb", "frogs", "ducks", "horses", "pigs", "bears", "birds"}

// CardString writes a proto card as e.g. "red 7 (horses)" or "blue 13 (bomb)".
func CardString(c *pb.Card) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%s %d (%s)", colourNames[c.GetColour()], c.GetRank(), factionNames[c.GetFaction()])
}

func cardList(cs []*pb.Card) string {
	if len(cs) == 0 {
		return "none"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = CardString(c)
	}
	return strings.Join(parts, ", ")
}

// Render writes a view as readable text for a terminal.
func Render(v *pb.View) string {
	var b strings.Builder
	who := "spectator"
	if v.GetViewer() >= 0 {
		who = fmt.Sprintf("seat %d", v.GetViewer())
	}
	fmt.Fprintf(&b, "Sapotagem (%s) — %s\n", describeVariants(variantsOf(v.GetOptions())), who)
	rounds := fmt.Sprint(v.GetRounds())
	if v.GetRounds() == 0 {
		rounds = "until the hands are empty"
	}
	fmt.Fprintf(&b, "Round %d of %s, phase %s, starting seat %d", v.GetRound(), rounds,
		strings.TrimPrefix(v.GetPhase().String(), "PHASE_"), v.GetStartingSeat())
	if v.Turn != nil {
		fmt.Fprintf(&b, ", seat %d to act", v.GetTurn())
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Trump: %s", colourNames[v.GetTrump()])
	if v.GetTrumpCard() != nil {
		fmt.Fprintf(&b, " (card %s)", CardString(v.GetTrumpCard()))
	}
	if v.GetNextTrump() != nil {
		fmt.Fprintf(&b, "; next trump %s", CardString(v.GetNextTrump()))
	}
	fmt.Fprintf(&b, "; pile %d face down; lead %s\n", v.GetPileSize(), colourNames[v.GetLead()])
	if len(v.GetOpenPile()) > 0 {
		fmt.Fprintf(&b, "Open pile: %s\n", cardList(v.GetOpenPile()))
	}
	if len(v.GetFugitives()) > 0 {
		fmt.Fprintf(&b, "Fugitives: %s\n", cardList(v.GetFugitives()))
	}
	if len(v.GetRevealed()) > 0 {
		fmt.Fprintf(&b, "Revealed: %s\n", cardList(v.GetRevealed()))
	}
	if len(v.GetTrumpDeck()) > 0 {
		fmt.Fprintf(&b, "Trump deck: %s\n", cardList(v.GetTrumpDeck()))
	}
	if len(v.GetDiscard()) > 0 {
		fmt.Fprintf(&b, "Discard: %s\n", cardList(v.GetDiscard()))
	}
	for _, p := range v.GetTable() {
		fmt.Fprintf(&b, "  table: seat %d played %s", p.GetSeat(), CardString(p.GetCard()))
		switch {
		case p.GetRemote():
			b.WriteString(" (remote bomb)")
		case p.GetFromArea():
			b.WriteString(" (from play area)")
		case p.GetOwner() != p.GetSeat():
			fmt.Fprintf(&b, " for seat %d", p.GetOwner())
		}
		b.WriteString("\n")
	}
	for _, sv := range v.GetSeats() {
		fmt.Fprintf(&b, "Seat %d: %d cards, %d jump markers (%d used)", sv.GetSeat(), sv.GetHandSize(), sv.GetJumpMarkers(), sv.GetJumpsUsed())
		if v.GetPhase() == pb.Phase_PHASE_OVER {
			fmt.Fprintf(&b, ", score %d", sv.GetScore())
		}
		fmt.Fprintf(&b, "\n  area: %s\n", cardList(sv.GetArea()))
	}
	if v.GetViewer() >= 0 {
		fmt.Fprintf(&b, "Your hand: %s\n", cardList(v.GetHand()))
	}
	if len(v.GetHidden()) > 0 {
		fmt.Fprintf(&b, "Closed pile: %s\n", cardList(v.GetHidden()))
	}
	if v.GetOutcome() != nil {
		fmt.Fprintf(&b, "Result: %s\n", v.GetOutcome().GetSummary())
	}
	return b.String()
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
