package engine

import (
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
