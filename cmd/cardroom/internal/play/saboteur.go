package play

import (
	"fmt"
	"strings"

	saboteurv1 "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	saboteur "cardroom.dev/services/saboteur/engine"
	"google.golang.org/protobuf/proto"
)

type saboteurGame struct{}

func (saboteurGame) toAct(v proto.Message) (int, bool) {
	sv, _ := v.(*saboteurv1.View)
	return int(sv.GetCurrentSeat()), sv.GetPhase() != saboteurv1.Phase_PHASE_GAME_OVER
}

// group chooses a card first, then where it goes (the cells are marked on the board) or whom it
// targets; discards are chosen among themselves.
func (saboteurGame) group(a proto.Message) (string, string) {
	act, _ := a.(*saboteurv1.Action)
	switch k := act.GetKind().(type) {
	case *saboteurv1.Action_Place:
		w := saboteurCard(k.Place.GetCard())
		return "place " + w, "place " + w + " …"
	case *saboteurv1.Action_Play:
		w := saboteurCard(k.Play.GetCard())
		return "play " + w, "play " + w + " …"
	case *saboteurv1.Action_Discard:
		return "discard", "discard cards and draw …"
	case *saboteurv1.Action_Remove:
		return "remove", "discard two cards to remove one in front of you …"
	}
	return "", ""
}

// saboteurCard is a card in words, as the game's labels name it: "curve N-E", "broken pick".
func saboteurCard(c saboteurv1.Card) string {
	if w := saboteur.CardName(uint8(c)); w != "a card" {
		return w
	}
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(c.String(), "CARD_")), "_", " ")
}

func words(s fmt.Stringer, prefix string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(s.String(), prefix)), "_", " ")
}

// render draws the board with its coordinates (x to the east along the top, y to the south down the
// left; the start is at 0,0), each card 3x3 as the engine documents it (S start, ? face-down goal,
// $ gold, c coal, + path, x dead end, # bridge, % double curve, H ladder, B/G door, * crystal), and
// the cells the moves on offer reach marked: an empty cell with "o", a card with "<" and ">"; the
// cell of the move under the cursor with "@", or "{" and "}".
func (saboteurGame) render(m proto.Message, seats *seating, marked []proto.Message, focus proto.Message) string {
	v, _ := m.(*saboteurv1.View)
	var b strings.Builder
	fmt.Fprintf(&b, "round %d of %d · %s · draw pile %d · discards %d\n", v.GetRound(), saboteur.Rounds,
		words(v.GetPhase(), "PHASE_"), v.GetDrawPile(), v.GetDiscardPile())
	if v.GetViewer() >= 0 {
		hand := make([]string, len(v.GetHand()))
		for i, c := range v.GetHand() {
			hand[i] = saboteurCard(c)
		}
		fmt.Fprintf(&b, "you are a %s; your hand: %s\n", words(v.GetRole(), "ROLE_"), strings.Join(hand, ", "))
	}
	type cell = [2]int
	cards := map[cell]*saboteurv1.BoardCard{}
	minX, maxX, minY, maxY := 0, 0, 0, 0
	grow := func(x, y int) {
		minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
	}
	for _, bc := range v.GetBoard() {
		x, y := int(bc.GetCell().GetX()), int(bc.GetCell().GetY())
		cards[cell{x, y}] = bc
		grow(x, y)
	}
	marks := map[cell]bool{}
	for _, a := range marked {
		if x, y, ok := saboteurTarget(a); ok {
			marks[cell{x, y}] = true
			grow(x, y)
		}
	}
	fx, fy, focused := saboteurTarget(focus)
	b.WriteString("    ")
	for x := minX; x <= maxX; x++ {
		fmt.Fprintf(&b, "%3d", x)
	}
	b.WriteString("  x\n")
	for y := minY; y <= maxY; y++ {
		var rows [3][]byte
		for x := minX; x <= maxX; x++ {
			block := [3][3]byte{{' ', ' ', ' '}, {' ', '.', ' '}, {' ', ' ', ' '}}
			bc, ok := cards[cell{x, y}]
			switch {
			case !ok:
				if focused && fx == x && fy == y {
					block[1][1] = '@'
				} else if marks[cell{x, y}] {
					block[1][1] = 'o'
				}
			case bc.GetFaceDown():
				block = [3][3]byte{{'[', '?', ']'}, {'[', saboteurGlyph(bc.GetCard(), true), ']'}, {'[', '?', ']'}}
			default:
				block[1][1] = saboteurGlyph(bc.GetCard(), false)
				open, _ := saboteur.Shape(uint8(bc.GetCard()), bc.GetRotated())
				if open&saboteur.EdgeN != 0 {
					block[0][1] = '|'
				}
				if open&saboteur.EdgeS != 0 {
					block[2][1] = '|'
				}
				if open&saboteur.EdgeW != 0 {
					block[1][0] = '-'
				}
				if open&saboteur.EdgeE != 0 {
					block[1][2] = '-'
				}
			}
			switch {
			case ok && focused && fx == x && fy == y:
				block[1][0], block[1][2] = '{', '}'
			case ok && marks[cell{x, y}]:
				block[1][0], block[1][2] = '<', '>'
			}
			for r := range 3 {
				rows[r] = append(rows[r], block[r][:]...)
			}
		}
		for r := range 3 {
			line := strings.TrimRight(string(rows[r]), " ")
			if r != 1 && line == "" {
				continue // no card of the row opens to the north (or south)
			}
			if r == 1 {
				fmt.Fprintf(&b, "%3d ", y)
			} else {
				b.WriteString("    ")
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	b.WriteString("  y\n")
	for i, si := range v.GetSeatInfo() {
		fmt.Fprintf(&b, "%-18s %d cards, %d nuggets", seats.name(i), si.GetHandCount(), si.GetNuggets())
		if si.GetRole() != saboteurv1.Role_ROLE_UNSPECIFIED {
			fmt.Fprintf(&b, ", %s", words(si.GetRole(), "ROLE_"))
		}
		for _, c := range si.GetInFront() {
			fmt.Fprintf(&b, " [%s]", saboteurCard(c))
		}
		b.WriteByte('\n')
	}
	if len(v.GetGoldOffer()) > 0 {
		fmt.Fprintf(&b, "gold on offer: %v\n", v.GetGoldOffer())
	}
	if lr := v.GetLastRound(); lr != nil {
		won := make([]string, len(lr.GetWinners()))
		for i, w := range lr.GetWinners() {
			won[i] = seats.name(int(w))
		}
		gold := "the gold was not reached"
		if lr.GetGoldReached() {
			gold = "the gold was reached by " + seats.name(int(lr.GetConnector()))
		}
		fmt.Fprintf(&b, "round %d: %s; winners: %s\n", lr.GetRound(), gold, strings.Join(won, ", "))
	}
	return b.String()
}

// saboteurTarget is the cell a move reaches: a path's, a rockfall's or a map's.
func saboteurTarget(a proto.Message) (x, y int, ok bool) {
	act, _ := a.(*saboteurv1.Action)
	var c *saboteurv1.Cell
	switch k := act.GetKind().(type) {
	case *saboteurv1.Action_Place:
		c = k.Place.GetCell()
	case *saboteurv1.Action_Play:
		if k.Play.GetCard() == saboteurv1.Card_CARD_ROCKFALL || k.Play.GetCard() == saboteurv1.Card_CARD_MAP {
			c = k.Play.GetCell()
		}
	}
	if c == nil {
		return 0, 0, false
	}
	return int(c.GetX()), int(c.GetY()), true
}

// saboteurGlyph is the character at the centre of a card's picture.
func saboteurGlyph(c saboteurv1.Card, faceDown bool) byte {
	switch {
	case faceDown && c == saboteurv1.Card_CARD_UNSPECIFIED:
		return '?'
	case faceDown:
		return "?gcc"[c-saboteurv1.Card_CARD_START]
	case c == saboteurv1.Card_CARD_START:
		return 'S'
	case c == saboteurv1.Card_CARD_GOAL_GOLD:
		return '$'
	case c == saboteurv1.Card_CARD_GOAL_COAL_NW || c == saboteurv1.Card_CARD_GOAL_COAL_NE:
		return 'c'
	case c == saboteurv1.Card_CARD_BRIDGE:
		return '#'
	case c == saboteurv1.Card_CARD_DOUBLE_CURVE_NE_SW || c == saboteurv1.Card_CARD_DOUBLE_CURVE_NW_SE:
		return '%'
	}
	name := c.String()
	switch {
	case strings.Contains(name, "LADDER"):
		return 'H'
	case strings.Contains(name, "DOOR_BLUE"):
		return 'B'
	case strings.Contains(name, "DOOR_GREEN"):
		return 'G'
	case strings.Contains(name, "CRYSTAL"):
		return '*'
	}
	if _, dead := saboteur.Shape(uint8(c), false); dead {
		return 'x'
	}
	return '+'
}
