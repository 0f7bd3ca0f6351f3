package play

import (
	"fmt"
	"strings"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var sapotagemColours = [5]string{"-", "green", "yellow", "red", "blue"}

var sapotagemFactions = [7]string{"bomb", "frogs", "ducks", "horses", "pigs", "bears", "birds"}

// sapotagemCard writes a card as e.g. "red 7 (horses)" or "blue 13 (bomb)".
func sapotagemCard(c *pb.Card) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%s %d (%s)", sapotagemColours[c.GetColour()], c.GetRank(), sapotagemFactions[c.GetFaction()])
}

func sapotagemCards(cs []*pb.Card) string {
	if len(cs) == 0 {
		return "none"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = sapotagemCard(c)
	}
	return strings.Join(parts, ", ")
}

// renderSapotagem draws a Sapotagem view as text.
func renderSapotagem(v *pb.View) string {
	var b strings.Builder
	who := "spectator"
	if v.GetViewer() >= 0 {
		who = fmt.Sprintf("seat %d", v.GetViewer()+1)
	}
	fmt.Fprintf(&b, "Sapotagem (%s) — %s\n", sapotagemVariants(v.GetOptions()), who)
	rounds := fmt.Sprint(v.GetRounds())
	if v.GetRounds() == 0 {
		rounds = "until the hands are empty"
	}
	fmt.Fprintf(&b, "Round %d of %s, phase %s, starting seat %d", v.GetRound(), rounds,
		strings.TrimPrefix(v.GetPhase().String(), "PHASE_"), v.GetStartingSeat()+1)
	if v.Turn != nil {
		fmt.Fprintf(&b, ", seat %d to act", v.GetTurn()+1)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Trump: %s", sapotagemColours[v.GetTrump()])
	if v.GetTrumpCard() != nil {
		fmt.Fprintf(&b, " (card %s)", sapotagemCard(v.GetTrumpCard()))
	}
	if v.GetNextTrump() != nil {
		fmt.Fprintf(&b, "; next trump %s", sapotagemCard(v.GetNextTrump()))
	}
	fmt.Fprintf(&b, "; pile %d face down; lead %s\n", v.GetPileSize(), sapotagemColours[v.GetLead()])
	if len(v.GetOpenPile()) > 0 {
		fmt.Fprintf(&b, "Open pile: %s\n", sapotagemCards(v.GetOpenPile()))
	}
	if len(v.GetFugitives()) > 0 {
		fmt.Fprintf(&b, "Fugitives: %s\n", sapotagemCards(v.GetFugitives()))
	}
	if len(v.GetRevealed()) > 0 {
		fmt.Fprintf(&b, "Revealed: %s\n", sapotagemCards(v.GetRevealed()))
	}
	if len(v.GetTrumpDeck()) > 0 {
		fmt.Fprintf(&b, "Trump deck: %s\n", sapotagemCards(v.GetTrumpDeck()))
	}
	if len(v.GetDiscard()) > 0 {
		fmt.Fprintf(&b, "Discard: %s\n", sapotagemCards(v.GetDiscard()))
	}
	for _, p := range v.GetTable() {
		fmt.Fprintf(&b, "  table: seat %d played %s", p.GetSeat()+1, sapotagemCard(p.GetCard()))
		switch {
		case p.GetRemote():
			b.WriteString(" (remote bomb)")
		case p.GetFromArea():
			b.WriteString(" (from play area)")
		case p.GetOwner() != p.GetSeat():
			fmt.Fprintf(&b, " for seat %d", p.GetOwner()+1)
		}
		b.WriteString("\n")
	}
	for _, sv := range v.GetSeats() {
		fmt.Fprintf(&b, "Seat %d: %d cards, %d jump markers (%d used)", sv.GetSeat()+1, sv.GetHandSize(), sv.GetJumpMarkers(), sv.GetJumpsUsed())
		if v.GetPhase() == pb.Phase_PHASE_OVER {
			fmt.Fprintf(&b, ", score %d", sv.GetScore())
		}
		fmt.Fprintf(&b, "\n  area: %s\n", sapotagemCards(sv.GetArea()))
	}
	if v.GetViewer() >= 0 {
		fmt.Fprintf(&b, "Your hand: %s\n", sapotagemCards(v.GetHand()))
	}
	if len(v.GetHidden()) > 0 {
		fmt.Fprintf(&b, "Closed pile: %s\n", sapotagemCards(v.GetHidden()))
	}
	if v.GetOutcome() != nil {
		fmt.Fprintf(&b, "Result: %s\n", v.GetOutcome().GetSummary())
	}
	return b.String()
}

// sapotagemVariants lists the variants a table plays (its options set to true, by their field
// names, in the order of their numbers), or "base game".
func sapotagemVariants(o *pb.Options) string {
	var names []string
	m := o.ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		if f := fields.Get(i); f.Kind() == protoreflect.BoolKind && m.Get(f).Bool() {
			names = append(names, string(f.Name()))
		}
	}
	if len(names) == 0 {
		return "base game"
	}
	return strings.Join(names, ", ")
}
