package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"google.golang.org/protobuf/proto"
)

// view is what viewer (a seat, or -1 for a spectator) may see.
func (s *State) view(viewer int) *pb.View {
	mode := pb.Mode_MODE_SABOTEUR2
	if s.classic {
		mode = pb.Mode_MODE_CLASSIC
	}
	own := viewer >= 0 && viewer < s.n
	v := &pb.View{
		Mode: mode, Seats: uint32(s.n), Viewer: int32(viewer), Round: uint32(s.round), Phase: pb.Phase(s.phase),
		CurrentSeat: uint32(s.cur), DrawPile: uint32(len(s.pile)), DiscardPile: uint32(len(s.spent)),
		Removed: uint32(len(s.removed)), GoldDeck: uint32(len(s.goldDeck)), LastRound: s.resultProto(),
		ClassicDiscardTwoToRepair: s.discard2,
	}
	if !own {
		v.Viewer = -1
	}
	for i := range s.b.slots {
		sl := &s.b.slots[i]
		bc := &pb.BoardCard{Cell: cell(sl.x, sl.y), Rotated: sl.rot, FaceDown: sl.faceDown}
		if !sl.faceDown || (own && s.mapped[viewer]&(1<<(i-1)) != 0) {
			bc.Card = pb.Card(sl.card)
		}
		v.Board = append(v.Board, bc)
	}
	for i := range s.n {
		si := &pb.Seat{HandCount: uint32(len(s.hands[i])), Nuggets: uint32(s.nuggets[i])}
		for b, c := range frontCards {
			if s.front[i]&(1<<b) != 0 {
				si.InFront = append(si.InFront, pb.Card(c))
			}
		}
		if own && i == viewer {
			si.Role = pb.Role(s.roles[i])
		} else if own {
			si.Role = pb.Role(s.seen[viewer*s.n+i])
		}
		v.SeatInfo = append(v.SeatInfo, si)
	}
	if own {
		v.Role = pb.Role(s.roles[viewer])
		v.Hand = cards(s.hands[viewer])
	}
	for _, g := range s.offer {
		v.GoldOffer = append(v.GoldOffer, uint32(g))
	}
	return v
}

// View implements engine.Game.
func (Game) View(s *State, viewer int) proto.Message { return s.view(viewer) }
