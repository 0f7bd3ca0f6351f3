package play

import (
	"fmt"
	"strings"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	sabaisabai "cardroom.dev/services/sabaisabai/engine"
)

// sabaiCard is a card number as the table shows it: "??" unknown, "Jk" a joker, "AJ" the Ass Joker.
func sabaiCard(n uint32) string {
	switch n {
	case 0:
		return "??"
	case sabaisabai.Joker:
		return "Jk"
	case sabaisabai.AssJoker:
		return "AJ"
	}
	return fmt.Sprintf("%2d", n)
}

// renderSabai draws a sabai-sabai view as text.
func renderSabai(v *pb.View) string {
	var b strings.Builder
	who := "spectator"
	if v.GetViewer() >= 0 {
		who = fmt.Sprintf("seat %d", v.GetViewer()+1)
	}
	final := ""
	if v.GetFinalRound() {
		final = " (final round)"
	}
	fmt.Fprintf(&b, "sabai-sabai — %s — round %d/%d%s — turn %d: seat %d, %s\n", who, v.GetRound(), v.GetRounds(),
		final, v.GetTurn(), v.GetTurnSeat()+1, strings.ToLower(strings.TrimPrefix(v.GetPhase().String(), "PHASE_")))
	top := make([]string, len(v.GetDiscardTop()))
	for i, c := range v.GetDiscardTop() {
		top[i] = sabaiCard(c)
	}
	fmt.Fprintf(&b, "draw pile %d | discard %d [%s] (top last)\n", v.GetDrawSize(), v.GetDiscardSize(), strings.Join(top, " "))
	if v.GetCardDrawn() {
		if v.GetDrawnCard() != 0 {
			fmt.Fprintf(&b, "you drew: %s\n", sabaiCard(v.GetDrawnCard()))
		} else {
			fmt.Fprintf(&b, "seat %d holds a drawn card\n", v.GetTurnSeat()+1)
		}
	}
	for _, r := range v.GetRows() {
		marks := ""
		if r.GetThrowLocked() {
			marks += " locked"
		}
		if r.GetTouchedNose() {
			marks += " nose"
		}
		fmt.Fprintf(&b, "seat %2d (%d VP, %d cards%s):", r.GetSeat()+1, r.GetVictoryPoints(), r.GetCards(), marks)
		for _, sl := range r.GetSlots() {
			if sl.GetEmpty() {
				b.WriteString(" __")
			} else {
				b.WriteString(" " + sabaiCard(sl.GetCard()))
			}
		}
		b.WriteString("\n")
	}
	for _, e := range v.GetEffects() {
		fmt.Fprintf(&b, "pending: %s by seat %d\n", strings.ToLower(strings.TrimPrefix(e.GetEffect().String(), "EFFECT_")), e.GetExecutor()+1)
	}
	if v.GetNoseWindow() {
		fmt.Fprintf(&b, "FOUR TOGETHER: touch your nose before %s\n", v.GetNoseDeadline().AsTime().Format(time.RFC3339))
	}
	if v.GetSabaiCalled() {
		fmt.Fprintf(&b, "sabai sabai called by seat %d: the round ends after seat %d's turn\n", v.GetCaller()+1, v.GetLastTurnSeat()+1)
	}
	if v.HallOfFame != nil {
		fmt.Fprintf(&b, "Hall of Fame: seat %d\n", v.GetHallOfFame()+1)
	}
	return b.String()
}
