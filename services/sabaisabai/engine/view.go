package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// View implements engine.Game: a seat sees the cards it knows (its own and others'), who knows
// each face-down card, and its drawn card; a spectator sees only what is public (face-down cards
// shown to everybody, e.g. by a wrong throw).
func (Game) View(s *State, viewer int) proto.Message {
	var me uint16
	if viewer >= 0 && viewer < int(s.n) {
		me = bit(uint8(viewer))
	} else {
		viewer = engine.Spectator
	}
	v := &pb.View{
		Viewer: int32(viewer), Seats: uint32(s.n), Round: uint32(s.round), Rounds: uint32(s.rounds),
		FinalRound: s.final(), Turn: s.turn, TurnSeat: uint32(s.cur), Phase: s.phasePB(),
		CardDrawn: s.drawn != noCard, DiscardSize: uint32(len(s.disc)), DrawSize: uint32(len(s.pile)),
		NoseWindow: s.noseOpen, SabaiCalled: s.called, Caller: uint32(s.caller),
		LastTurnSeat: uint32(s.lastSeat), ThrowForOthers: s.forOthers,
	}
	if s.drawn != noCard && me != 0 && uint8(viewer) == s.cur {
		v.DrawnCard = uint32(number(s.drawn))
	}
	for _, id := range s.disc[max(0, len(s.disc)-4):] {
		v.DiscardTop = append(v.DiscardTop, uint32(number(id)))
	}
	v.Rows = make([]*pb.Row, s.n)
	for seat := range s.n {
		r := &pb.Row{Seat: uint32(seat), VictoryPoints: s.vp[seat], ThrowLocked: s.locked&bit(seat) != 0,
			TouchedNose: s.noseOpen && s.touched&bit(seat) != 0}
		r.Slots = make([]*pb.Slot, len(s.rows[seat]))
		for i, id := range s.rows[seat] {
			sl := &pb.Slot{}
			if id == noCard {
				sl.Empty = true
			} else {
				r.Cards++
				sl.KnownBy = uint32(s.known[id] & s.all())
				if s.known[id]&(me|public) != 0 {
					sl.Card = uint32(number(id))
				}
			}
			r.Slots[i] = sl
		}
		v.Rows[seat] = r
	}
	for _, e := range s.queue {
		v.Effects = append(v.Effects, effectPB(e))
	}
	if s.noseOpen {
		v.NoseDeadline = timestamp(s.noseAt)
	}
	if s.hall >= 0 {
		h := uint32(s.hall)
		v.HallOfFame = &h
	}
	if d, ok := s.deadline(); ok && s.turnNS > 0 && (!s.noseOpen || d != s.noseAt) && !s.pending() {
		v.TurnDeadline = timestamp(d)
	}
	if s.windowNS > 0 && len(s.disc) > 0 && s.discAt != 0 {
		v.ThrowWindowEnds = timestamp(s.discAt + s.windowNS)
	}
	if s.pend != 0 {
		v.DiscardLandsAt = timestamp(s.pendAt)
	}
	return v
}

func (s *State) phasePB() pb.Phase {
	switch {
	case s.ph == phaseOver:
		return pb.Phase_PHASE_GAME_OVER
	case s.ph == phaseEnding:
		return pb.Phase_PHASE_ROUND_ENDING
	case len(s.queue) > 0:
		return pb.Phase_PHASE_EFFECTS
	case s.ph == phaseDraw:
		return pb.Phase_PHASE_DRAW
	default:
		return pb.Phase_PHASE_DECIDE
	}
}

func effectPB(e effect) *pb.PendingEffect {
	return &pb.PendingEffect{Executor: uint32(e.exec), Effect: pb.Effect(e.kind), ToSeat: uint32(e.to)}
}

func timestamp(ns int64) *timestamppb.Timestamp {
	return timestamppb.New(time.Unix(0, ns).UTC())
}

func summary(s *State, win []int) string {
	if s.hall >= 0 {
		return "seat " + strconv.Itoa(int(s.hall)) + " ends a round with the four jokers and enters the Hall of Fame"
	}
	points := strconv.Itoa(int(s.vp[win[0]]))
	if len(win) == 1 {
		return "seat " + strconv.Itoa(win[0]) + " wins with " + points + " victory points"
	}
	var b strings.Builder
	b.WriteString("seats ")
	for i, w := range win {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(w))
	}
	b.WriteString(" share the win with " + points + " victory points")
	return b.String()
}

// CardName is how Render writes a card number.
func CardName(n uint32) string {
	switch n {
	case 0:
		return "??"
	case Joker:
		return "Jk"
	case AssJoker:
		return "AJ"
	}
	return fmt.Sprintf("%2d", n)
}

// Render writes a view as text for a terminal.
func Render(v *pb.View) string {
	var b strings.Builder
	who := "spectator"
	if v.GetViewer() >= 0 {
		who = fmt.Sprintf("seat %d", v.GetViewer())
	}
	final := ""
	if v.GetFinalRound() {
		final = " (final round)"
	}
	fmt.Fprintf(&b, "sabai-sabai — %s — round %d/%d%s — turn %d: seat %d, %s\n", who, v.GetRound(), v.GetRounds(),
		final, v.GetTurn(), v.GetTurnSeat(), strings.ToLower(strings.TrimPrefix(v.GetPhase().String(), "PHASE_")))
	top := make([]string, len(v.GetDiscardTop()))
	for i, c := range v.GetDiscardTop() {
		top[i] = CardName(c)
	}
	fmt.Fprintf(&b, "draw pile %d | discard %d [%s] (top last)\n", v.GetDrawSize(), v.GetDiscardSize(), strings.Join(top, " "))
	if v.GetCardDrawn() {
		if v.GetDrawnCard() != 0 {
			fmt.Fprintf(&b, "you drew: %s\n", CardName(v.GetDrawnCard()))
		} else {
			fmt.Fprintf(&b, "seat %d holds a drawn card\n", v.GetTurnSeat())
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
		fmt.Fprintf(&b, "seat %2d (%d VP, %d cards%s):", r.GetSeat(), r.GetVictoryPoints(), r.GetCards(), marks)
		for _, sl := range r.GetSlots() {
			if sl.GetEmpty() {
				b.WriteString(" __")
			} else {
				b.WriteString(" " + CardName(sl.GetCard()))
			}
		}
		b.WriteString("\n")
	}
	for _, e := range v.GetEffects() {
		fmt.Fprintf(&b, "pending: %s by seat %d\n", strings.ToLower(strings.TrimPrefix(e.GetEffect().String(), "EFFECT_")), e.GetExecutor())
	}
	if v.GetNoseWindow() {
		fmt.Fprintf(&b, "FOUR TOGETHER: touch your nose before %s\n", v.GetNoseDeadline().AsTime().Format(time.RFC3339))
	}
	if v.GetSabaiCalled() {
		fmt.Fprintf(&b, "sabai sabai called by seat %d: the round ends after seat %d's turn\n", v.GetCaller(), v.GetLastTurnSeat())
	}
	if v.HallOfFame != nil {
		fmt.Fprintf(&b, "Hall of Fame: seat %d\n", v.GetHallOfFame())
	}
	return b.String()
}
