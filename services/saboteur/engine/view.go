package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"fmt"
	"google.golang.org/protobuf/proto"
	"strings"
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

// cardGlyph is the character at the centre of a card's picture.
func cardGlyph(c pb.Card, faceDown bool) byte {
	switch {
	case faceDown && c == pb.Card_CARD_UNSPECIFIED:
		return '?'
	case faceDown:
		return "?gcc"[c-pb.Card_CARD_START]
	case c == pb.Card_CARD_START:
		return 'S'
	case c == pb.Card_CARD_GOAL_GOLD:
		return '$'
	case c == pb.Card_CARD_GOAL_COAL_NW || c == pb.Card_CARD_GOAL_COAL_NE:
		return 'c'
	}
	u := uint8(c)
	switch {
	case defs[u].ladder:
		return 'H'
	case defs[u].door == doorBlue:
		return 'B'
	case defs[u].door == doorGreen:
		return 'G'
	case defs[u].crystal:
		return '*'
	case c == pb.Card_CARD_BRIDGE:
		return '#'
	case c == pb.Card_CARD_DOUBLE_CURVE_NE_SW || c == pb.Card_CARD_DOUBLE_CURVE_NW_SE:
		return '%'
	}
	if _, dead := Shape(u, false); dead {
		return 'x'
	}
	return '+'
}

// Render draws a view as text: a header, the board as ASCII art (each card 3x3: its open edges and
// a centre mark: S start, ? face-down goal, $ gold, c coal, + path, x dead end, # bridge, % double
// curve, H ladder, B/G door, * crystal), the seats and the viewer's hand.
func Render(v *pb.View) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "saboteur %v  round %d/%d  %v  seat %d to act  pile %d  discards %d\n",
		v.Mode, v.Round, Rounds, v.Phase, v.CurrentSeat, v.DrawPile, v.DiscardPile)
	minX, maxX, minY, maxY := 0, 0, 0, 0
	type cardAt struct {
		c        pb.Card
		rot, fd  bool
		occupied bool
	}
	grid := map[[2]int]cardAt{}
	for _, bc := range v.Board {
		x, y := int(bc.Cell.GetX()), int(bc.Cell.GetY())
		minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
		grid[[2]int{x, y}] = cardAt{bc.Card, bc.Rotated, bc.FaceDown, true}
	}
	for y := minY; y <= maxY; y++ {
		var rows [3][]byte
		for x := minX; x <= maxX; x++ {
			ca := grid[[2]int{x, y}]
			block := [3][3]byte{{' ', ' ', ' '}, {' ', ' ', ' '}, {' ', ' ', ' '}}
			switch {
			case !ca.occupied:
				block[1][1] = '.'
			case ca.fd:
				block = [3][3]byte{{'[', '?', ']'}, {'[', cardGlyph(ca.c, true), ']'}, {'[', '?', ']'}}
			default:
				open, _ := Shape(uint8(ca.c), ca.rot)
				if open&EdgeN != 0 {
					block[0][1] = '|'
				}
				if open&EdgeS != 0 {
					block[2][1] = '|'
				}
				if open&EdgeW != 0 {
					block[1][0] = '-'
				}
				if open&EdgeE != 0 {
					block[1][2] = '-'
				}
				block[1][1] = cardGlyph(ca.c, false)
			}
			for r := range 3 {
				rows[r] = append(rows[r], block[r][:]...)
			}
		}
		for r := range 3 {
			sb.WriteString(strings.TrimRight(string(rows[r]), " "))
			sb.WriteByte('\n')
		}
	}
	for i, si := range v.SeatInfo {
		fmt.Fprintf(&sb, "seat %2d: %d cards, %d nuggets", i, si.HandCount, si.Nuggets)
		if si.Role != pb.Role_ROLE_UNSPECIFIED {
			fmt.Fprintf(&sb, ", role %v", si.Role)
		}
		for _, c := range si.InFront {
			fmt.Fprintf(&sb, " [%v]", c)
		}
		sb.WriteByte('\n')
	}
	if v.Viewer >= 0 {
		fmt.Fprintf(&sb, "you are seat %d, %v; hand:", v.Viewer, v.Role)
		for _, c := range v.Hand {
			fmt.Fprintf(&sb, " %v", c)
		}
		sb.WriteByte('\n')
	}
	if len(v.GoldOffer) > 0 {
		fmt.Fprintf(&sb, "gold on offer: %v\n", v.GoldOffer)
	}
	if lr := v.LastRound; lr != nil {
		fmt.Fprintf(&sb, "round %d: gold reached %v, winners %v, payouts %v\n", lr.Round, lr.GoldReached, lr.Winners, lr.Payouts)
	}
	return sb.String()
}

// View implements engine.Game.
func (Game) View(s *State, viewer int) proto.Message { return s.view(viewer) }
