package engine

import (
	"strconv"
	"strings"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

var _ engine.Describer[*State, Action] = Game{}

// cardWords names each card as the rules do. A path card's name carries its open edges upright
// (N, E, S, W): "-" joins edges of one tunnel, "+" separates tunnels that do not meet (a dead end
// opens each edge on its own).
var cardWords = [numCards]string{
	pb.Card_CARD_STRAIGHT_NS:           "straight N-S",
	pb.Card_CARD_STRAIGHT_EW:           "straight E-W",
	pb.Card_CARD_CROSSROADS:            "crossroads",
	pb.Card_CARD_T_NS_E:                "T N-S-E",
	pb.Card_CARD_T_EW_N:                "T N-E-W",
	pb.Card_CARD_CURVE_NW:              "curve N-W",
	pb.Card_CARD_CURVE_NE:              "curve N-E",
	pb.Card_CARD_DEAD_N:                "dead end N",
	pb.Card_CARD_DEAD_E:                "dead end E",
	pb.Card_CARD_DEAD_NS:               "dead end N+S",
	pb.Card_CARD_DEAD_EW:               "dead end E+W",
	pb.Card_CARD_DEAD_NW:               "dead end N+W",
	pb.Card_CARD_DEAD_NE:               "dead end N+E",
	pb.Card_CARD_DEAD_NSE:              "dead end N+E+S",
	pb.Card_CARD_DEAD_EWN:              "dead end N+E+W",
	pb.Card_CARD_DEAD_NESW:             "dead end N+E+S+W",
	pb.Card_CARD_BRIDGE:                "bridge N-S+E-W",
	pb.Card_CARD_DOUBLE_CURVE_NW_SE:    "double curve N-W+E-S",
	pb.Card_CARD_DOUBLE_CURVE_NE_SW:    "double curve N-E+S-W",
	pb.Card_CARD_LADDER_CROSSROADS:     "ladder crossroads",
	pb.Card_CARD_LADDER_EW:             "ladder E-W",
	pb.Card_CARD_LADDER_T_EW_N:         "ladder T N-E-W",
	pb.Card_CARD_LADDER_DEAD_E:         "ladder dead end E",
	pb.Card_CARD_DOOR_BLUE_EW:          "blue door E-W",
	pb.Card_CARD_DOOR_BLUE_T_EW_N:      "blue door T N-E-W",
	pb.Card_CARD_DOOR_BLUE_CROSSROADS:  "blue door crossroads",
	pb.Card_CARD_DOOR_GREEN_EW:         "green door E-W",
	pb.Card_CARD_DOOR_GREEN_T_EW_N:     "green door T N-E-W",
	pb.Card_CARD_DOOR_GREEN_CROSSROADS: "green door crossroads",
	pb.Card_CARD_CRYSTAL_EW:            "crystal E-W",
	pb.Card_CARD_CRYSTAL_NS:            "crystal N-S",
	pb.Card_CARD_CRYSTAL_CROSSROADS:    "crystal crossroads",
	pb.Card_CARD_CRYSTAL_T_NS_E:        "crystal T N-S-E",
	pb.Card_CARD_CRYSTAL_T_EW_N:        "crystal T N-E-W",
	pb.Card_CARD_CRYSTAL_CURVE_NW:      "crystal curve N-W",
	pb.Card_CARD_CRYSTAL_CURVE_NE:      "crystal curve N-E",
	pb.Card_CARD_CRYSTAL_DEAD_EW:       "crystal dead end E+W",
	pb.Card_CARD_CRYSTAL_DEAD_NE:       "crystal dead end N+E",
	pb.Card_CARD_START:                 "start",
	pb.Card_CARD_GOAL_GOLD:             "gold",
	pb.Card_CARD_GOAL_COAL_NW:          "coal N-W",
	pb.Card_CARD_GOAL_COAL_NE:          "coal N-E",
	pb.Card_CARD_BREAK_PICK:            "broken pick",
	pb.Card_CARD_BREAK_LANTERN:         "broken lantern",
	pb.Card_CARD_BREAK_CART:            "broken cart",
	pb.Card_CARD_REPAIR_PICK:           "repair pick",
	pb.Card_CARD_REPAIR_LANTERN:        "repair lantern",
	pb.Card_CARD_REPAIR_CART:           "repair cart",
	pb.Card_CARD_REPAIR_PICK_LANTERN:   "repair pick or lantern",
	pb.Card_CARD_REPAIR_PICK_CART:      "repair pick or cart",
	pb.Card_CARD_REPAIR_LANTERN_CART:   "repair lantern or cart",
	pb.Card_CARD_ROCKFALL:              "rockfall",
	pb.Card_CARD_MAP:                   "map",
	pb.Card_CARD_INSPECTION:            "inspection",
	pb.Card_CARD_THEFT:                 "theft",
	pb.Card_CARD_HANDS_OFF:             "hands off",
	pb.Card_CARD_SWAP_HATS:             "swap your hats",
	pb.Card_CARD_SWAP_HAND:             "swap your hand",
	pb.Card_CARD_TRAPPED:               "trapped",
	pb.Card_CARD_FREE_AT_LAST:          "free at last",
}

// CardName is card's name in labels ("curve N-E", "broken pick", "swap your hats").
func CardName(card uint8) string {
	if card >= numCards || cardWords[card] == "" {
		return "a card"
	}
	return cardWords[card]
}

// cardPlaced names a card as it lies: turned 180 degrees, with the edges it then opens
// ("curve N-E turned to S-W").
func cardPlaced(card uint8, rotated bool) string {
	return string(appendCardPlaced(nil, card, rotated))
}

// appendCardPlaced appends cardPlaced(card, rotated).
func appendCardPlaced(b []byte, card uint8, rotated bool) []byte {
	b = append(b, CardName(card)...)
	if !rotated || card >= numCards || symmetric[card] {
		return b
	}
	return appendEdges(append(b, " turned to "...), card, true)
}

// appendEdges appends card's tunnels in one orientation as its name writes them: "S-W", "N-S-W",
// "S+W".
func appendEdges(b []byte, card uint8, rotated bool) []byte {
	o := &shapes[card][b2i(rotated)]
	for i := range o.nseg {
		if i > 0 {
			b = append(b, '+')
		}
		first := true
		for e, letter := range [4]byte{'N', 'E', 'S', 'W'} {
			if o.segs[i]&(1<<e) != 0 {
				if !first {
					b = append(b, '-')
				}
				b = append(b, letter)
				first = false
			}
		}
	}
	return b
}

// cellWords is a board cell as the view gives it: x grows to the east, y to the south.
func cellWords(x, y int) string { return string(appendCell(nil, x, y)) }

// appendCell appends cellWords(x, y).
func appendCell(b []byte, x, y int) []byte {
	b = strconv.AppendInt(append(b, '('), int64(x), 10)
	b = strconv.AppendInt(append(b, ", "...), int64(y), 10)
	return append(b, ')')
}

var toolWords = [4]string{"tool", "pick", "lantern", "cart"}

func toolName(t uint8) string {
	if int(t) >= len(toolWords) {
		return "tool"
	}
	return toolWords[t]
}

var roleWords = map[pb.Role]string{
	pb.Role_ROLE_DIGGER:       "a gold digger",
	pb.Role_ROLE_SABOTEUR:     "a saboteur",
	pb.Role_ROLE_BLUE_DIGGER:  "a blue gold digger",
	pb.Role_ROLE_GREEN_DIGGER: "a green gold digger",
	pb.Role_ROLE_BOSS:         "the boss",
	pb.Role_ROLE_GEOLOGIST:    "a geologist",
	pb.Role_ROLE_PROFITEER:    "the profiteer",
}

func roleName(r pb.Role) string {
	if w, ok := roleWords[r]; ok {
		return w
	}
	return "unknown"
}

// DescribeAction implements engine.Describer: the label AppendLabel writes.
func (g Game) DescribeAction(s *State, seat int, a Action) string {
	var buf [128]byte // on the stack: the label is the one allocation
	return string(g.AppendLabel(buf[:0], s, seat, a))
}

// AppendLabel implements engine.ActionAppender: a placement names the card, how it is turned and
// its cell ("place curve N-E turned to S-W at (3, -1)"); an action card names its target.
func (Game) AppendLabel(b []byte, s *State, seat int, a Action) []byte {
	switch a.Kind {
	case KindPlace:
		b = appendCardPlaced(append(b, "place "...), a.Card, a.Rot)
		return appendCell(append(b, " at "...), int(a.X), int(a.Y))
	case KindPlay:
		return appendPlay(append(b, "play "...), s, a)
	case KindRemove:
		b = append(append(append(b, "remove the "...), CardName(a.InFront)...), " in front of you; discard "...)
		return appendCardList(b, a.Cards[:2])
	case KindDiscard:
		n := min(int(a.N), len(a.Cards))
		if n == 1 {
			return append(append(b, "discard "...), CardName(a.Cards[0])...)
		}
		b = appendPlural(append(b, "discard "...), n, "card")
		return appendCardList(append(b, ": "...), a.Cards[:n])
	case KindPick:
		return appendPlural(append(b, "take a gold card worth "...), int(a.Target), "nugget")
	case KindSteal:
		return engine.AppendSeatRef(append(b, "steal a nugget from "...), int(a.Target))
	}
	return append(b, "nothing"...)
}

// appendPlay appends what playing action card a.Card does, after "play".
func appendPlay(b []byte, s *State, a Action) []byte {
	b = append(b, CardName(a.Card)...)
	switch a.Card {
	case cRepairPL, cRepairPC, cRepairLC:
		b = engine.AppendSeatRef(append(b, " on "...), int(a.Target))
		return append(append(b, "'s "...), toolName(a.Tool)...)
	case cRockfall:
		if s != nil {
			if i := s.b.at(int(a.X), int(a.Y)); i >= 0 {
				b = appendCardPlaced(append(b, " on the "...), s.b.slots[i].card, s.b.slots[i].rot)
				return appendCell(append(b, " at "...), int(a.X), int(a.Y))
			}
		}
		return appendCell(append(b, " on the card at "...), int(a.X), int(a.Y))
	case cMap:
		return appendCell(append(b, ": look at the goal at "...), int(a.X), int(a.Y))
	case cInspection:
		return append(engine.AppendSeatRef(append(b, ": look at "...), int(a.Target)), "'s role"...)
	case cTheft:
		return append(b, " in front of yourself"...)
	case cHandsOff:
		return append(engine.AppendSeatRef(append(b, " on "...), int(a.Target)), "'s theft"...)
	case cSwapHand:
		return engine.AppendSeatRef(append(b, " with "...), int(a.Target))
	}
	return engine.AppendSeatRef(append(b, " on "...), int(a.Target))
}

// appendPlural appends plural(n, noun).
func appendPlural(b []byte, n int, noun string) []byte {
	if n == 1 {
		return append(append(b, "1 "...), noun...)
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return append(append(append(b, ' '), noun...), 's')
}

// DescribeEvent implements engine.Describer. It takes a cardroom.saboteur.v1.Event or one of its
// inner messages.
func (Game) DescribeEvent(payload proto.Message) string {
	if e, ok := payload.(*pb.Event); ok {
		payload = eventKind(e)
	}
	switch m := payload.(type) {
	case *pb.RoundStarted:
		return "round " + strconv.Itoa(int(m.GetRound())) + " begins: " + plural(int(m.GetHandSize()), "card") +
			" each, " + strconv.Itoa(int(m.GetDrawPile())) + " in the pile; " + engine.SeatRef(int(m.GetFirstSeat())) + " plays first"
	case *pb.RoleDealt:
		return "you are " + roleName(m.GetRole())
	case *pb.HandDealt:
		return "your hand: " + protoCardList(m.GetCards())
	case *pb.PathPlaced:
		return engine.SeatRef(int(m.GetSeat())) + " places " + cardPlaced(uint8(m.GetCard()), m.GetRotated()) +
			" at " + protoCell(m.GetCell())
	case *pb.GoalRevealed:
		return "the goal at " + protoCell(m.GetCell()) + " is " + goalWords(m.GetCard(), m.GetRotated())
	case *pb.ActionPlayed:
		return engine.SeatRef(int(m.GetSeat())) + " " + playedWords(m)
	case *pb.MapResult:
		return "your map shows " + goalWords(m.GetCard(), false) + " at " + protoCell(m.GetCell())
	case *pb.InspectionResult:
		return "your inspection shows " + engine.SeatRef(int(m.GetSeat())) + " is " + roleName(m.GetRole())
	case *pb.HandsSwapped:
		return engine.SeatRef(int(m.GetSeat())) + " and " + engine.SeatRef(int(m.GetTargetSeat())) + " swap hands"
	case *pb.Discarded:
		l := engine.SeatRef(int(m.GetSeat())) + " discards " + plural(int(m.GetCount()), "card") + " face down"
		if c := m.GetRemovedInFront(); c != pb.Card_CARD_UNSPECIFIED {
			l += " to remove the " + CardName(uint8(c)) + " in front of them"
		}
		return l
	case *pb.Drew:
		if len(m.GetCards()) > 0 {
			return engine.SeatRef(int(m.GetSeat())) + " draws " + protoCardList(m.GetCards())
		}
		return engine.SeatRef(int(m.GetSeat())) + " draws " + plural(int(m.GetCount()), "card")
	case *pb.Skipped:
		return engine.SeatRef(int(m.GetSeat())) + " has no cards and is skipped"
	case *pb.GoldOffered:
		vals := make([]string, len(m.GetValues()))
		for i, v := range m.GetValues() {
			vals[i] = strconv.Itoa(int(v))
		}
		return "gold cards on offer: " + strings.Join(vals, ", ") + "; " + engine.SeatRef(int(m.GetFirstPicker())) + " picks first"
	case *pb.GoldPicked:
		return engine.SeatRef(int(m.GetSeat())) + " takes a gold card worth " + nuggets(int(m.GetValue()))
	case *pb.Stolen:
		if !m.GetTook() {
			return engine.SeatRef(int(m.GetThief())) + " finds nobody with a nugget to steal"
		}
		return engine.SeatRef(int(m.GetThief())) + " steals a nugget from " + engine.SeatRef(int(m.GetVictim()))
	case *pb.RoundEnded:
		return roundEndedWords(m.GetResult())
	case *pb.GameEnded:
		return gameEndedWords(m.GetNuggets())
	}
	return ""
}

// playedWords is an action card's event after its player's name.
func playedWords(m *pb.ActionPlayed) string {
	name, target := CardName(uint8(m.GetCard())), engine.SeatRef(int(m.GetTargetSeat()))
	switch c := m.GetCard(); c {
	case pb.Card_CARD_REPAIR_PICK, pb.Card_CARD_REPAIR_LANTERN, pb.Card_CARD_REPAIR_CART,
		pb.Card_CARD_REPAIR_PICK_LANTERN, pb.Card_CARD_REPAIR_PICK_CART, pb.Card_CARD_REPAIR_LANTERN_CART:
		return "plays " + name + " on " + target + "'s " + toolName(uint8(m.GetTool()))
	case pb.Card_CARD_ROCKFALL:
		return "plays rockfall on the " + CardName(uint8(m.GetRemoved())) + " at " + protoCell(m.GetCell())
	case pb.Card_CARD_MAP:
		return "looks at the goal at " + protoCell(m.GetCell()) + " with a map"
	case pb.Card_CARD_INSPECTION:
		return "looks at " + target + "'s role with an inspection"
	case pb.Card_CARD_THEFT:
		return "lays a theft in front of them"
	case pb.Card_CARD_HANDS_OFF:
		return "plays hands off on " + target + "'s theft"
	case pb.Card_CARD_SWAP_HAND:
		return "plays swap your hand with " + target
	}
	return "plays " + name + " on " + target
}

// goalWords names a goal card as it lies ("gold", "coal N-W turned to S-E").
func goalWords(c pb.Card, rotated bool) string {
	switch c {
	case pb.Card_CARD_GOAL_GOLD:
		return "gold"
	case pb.Card_CARD_GOAL_COAL_NW, pb.Card_CARD_GOAL_COAL_NE:
		return cardPlaced(uint8(c), rotated)
	}
	return CardName(uint8(c))
}

func roundEndedWords(r *pb.RoundResult) string {
	var b strings.Builder
	b.WriteString("round " + strconv.Itoa(int(r.GetRound())) + " ends")
	if r.GetGoldReached() {
		b.WriteString(": " + engine.SeatRef(int(r.GetConnector())) + " reached the gold")
	} else {
		b.WriteString(" without gold")
	}
	switch w := r.GetWinners(); len(w) {
	case 0:
		b.WriteString("; nobody wins")
	case 1:
		b.WriteString("; " + engine.SeatRef(int(w[0])) + " wins")
	default:
		b.WriteString("; " + engine.SeatList(w) + " win")
	}
	var paid []string
	for p, n := range r.GetPayouts() {
		if n > 0 {
			paid = append(paid, engine.SeatRef(p)+" "+nuggets(int(n)))
		}
	}
	if len(paid) > 0 {
		b.WriteString("; gold: " + strings.Join(paid, ", "))
	}
	if roles := r.GetRoles(); len(roles) > 0 {
		b.WriteString("; roles:")
		for p, role := range roles {
			if p > 0 {
				b.WriteByte(',')
			}
			b.WriteString(" " + engine.SeatRef(p) + " " + strings.TrimPrefix(strings.TrimPrefix(roleName(role), "a "), "the "))
		}
	}
	return b.String()
}

func gameEndedWords(ns []uint32) string {
	var best uint32
	for _, n := range ns {
		best = max(best, n)
	}
	var winners []uint32
	parts := make([]string, len(ns))
	for p, n := range ns {
		if n == best {
			winners = append(winners, uint32(p))
		}
		parts[p] = engine.SeatRef(p) + " " + nuggets(int(n))
	}
	l := "game over"
	switch len(winners) {
	case 0:
	case 1:
		l += ": " + engine.SeatRef(int(winners[0])) + " wins"
	default:
		l += ": " + engine.SeatList(winners) + " share the win"
	}
	if len(parts) > 0 {
		l += "; " + strings.Join(parts, ", ")
	}
	return l
}

// eventKind is the inner message of e's oneof (nil when unset).
func eventKind(e *pb.Event) proto.Message {
	switch k := e.GetKind().(type) {
	case *pb.Event_RoundStarted:
		return k.RoundStarted
	case *pb.Event_RoleDealt:
		return k.RoleDealt
	case *pb.Event_HandDealt:
		return k.HandDealt
	case *pb.Event_PathPlaced:
		return k.PathPlaced
	case *pb.Event_GoalRevealed:
		return k.GoalRevealed
	case *pb.Event_ActionPlayed:
		return k.ActionPlayed
	case *pb.Event_MapResult:
		return k.MapResult
	case *pb.Event_InspectionResult:
		return k.InspectionResult
	case *pb.Event_HandsSwapped:
		return k.HandsSwapped
	case *pb.Event_Discarded:
		return k.Discarded
	case *pb.Event_Drew:
		return k.Drew
	case *pb.Event_Skipped:
		return k.Skipped
	case *pb.Event_GoldOffered:
		return k.GoldOffered
	case *pb.Event_GoldPicked:
		return k.GoldPicked
	case *pb.Event_Stolen:
		return k.Stolen
	case *pb.Event_RoundEnded:
		return k.RoundEnded
	case *pb.Event_GameEnded:
		return k.GameEnded
	}
	return nil
}

func protoCell(c *pb.Cell) string { return cellWords(int(c.GetX()), int(c.GetY())) }

// appendCardList appends card names joined with commas only ("map, repair pick or cart"): a
// name may hold "and" or "or".
func appendCardList(b []byte, cs []uint8) []byte {
	for i, c := range cs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, CardName(c)...)
	}
	return b
}

func protoCardList(cs []pb.Card) string {
	if len(cs) == 0 {
		return "no cards"
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = CardName(uint8(c))
	}
	return strings.Join(names, ", ")
}

func nuggets(n int) string { return plural(n, "nugget") }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
