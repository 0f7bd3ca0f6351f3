package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
)

// Edges of a card, as bits of a mask. A card stands upright and may only be turned 180 degrees.
const (
	EdgeN uint8 = 1 << iota
	EdgeE
	EdgeS
	EdgeW
)

// Card types are the proto Card enum numbers.
const (
	cStraightNS    uint8 = uint8(pb.Card_CARD_STRAIGHT_NS)
	cBridge              = uint8(pb.Card_CARD_BRIDGE)
	cStart               = uint8(pb.Card_CARD_START)
	cGold                = uint8(pb.Card_CARD_GOAL_GOLD)
	cCoalNW              = uint8(pb.Card_CARD_GOAL_COAL_NW)
	cCoalNE              = uint8(pb.Card_CARD_GOAL_COAL_NE)
	cBreakPick           = uint8(pb.Card_CARD_BREAK_PICK)
	cBreakLantern        = uint8(pb.Card_CARD_BREAK_LANTERN)
	cBreakCart           = uint8(pb.Card_CARD_BREAK_CART)
	cRepairPick          = uint8(pb.Card_CARD_REPAIR_PICK)
	cRepairLantern       = uint8(pb.Card_CARD_REPAIR_LANTERN)
	cRepairCart          = uint8(pb.Card_CARD_REPAIR_CART)
	cRepairPL            = uint8(pb.Card_CARD_REPAIR_PICK_LANTERN)
	cRepairPC            = uint8(pb.Card_CARD_REPAIR_PICK_CART)
	cRepairLC            = uint8(pb.Card_CARD_REPAIR_LANTERN_CART)
	cRockfall            = uint8(pb.Card_CARD_ROCKFALL)
	cMap                 = uint8(pb.Card_CARD_MAP)
	cInspection          = uint8(pb.Card_CARD_INSPECTION)
	cTheft               = uint8(pb.Card_CARD_THEFT)
	cHandsOff            = uint8(pb.Card_CARD_HANDS_OFF)
	cSwapHats            = uint8(pb.Card_CARD_SWAP_HATS)
	cSwapHand            = uint8(pb.Card_CARD_SWAP_HAND)
	cTrapped             = uint8(pb.Card_CARD_TRAPPED)
	cFree                = uint8(pb.Card_CARD_FREE_AT_LAST)
	numCards             = cFree + 1
)

// Door colours.
const (
	doorNone uint8 = iota
	doorBlue
	doorGreen
)

// cardDef is one card type: for a path card its segments (each a set of open edges joined inside the
// card), whether it is a ladder, its door colour and whether it shows a crystal.
type cardDef struct {
	path    bool
	segs    []uint8
	ladder  bool
	door    uint8
	crystal bool
	// copies in the base game and in the expansion
	base, exp int
}

func dead(edges ...uint8) []uint8 { return edges }

var defs = [numCards]cardDef{
	pb.Card_CARD_STRAIGHT_NS: {path: true, segs: []uint8{EdgeN | EdgeS}, base: 4},
	pb.Card_CARD_STRAIGHT_EW: {path: true, segs: []uint8{EdgeE | EdgeW}, base: 3},
	pb.Card_CARD_CROSSROADS:  {path: true, segs: []uint8{15}, base: 5},
	pb.Card_CARD_T_NS_E:      {path: true, segs: []uint8{EdgeN | EdgeS | EdgeE}, base: 5},
	pb.Card_CARD_T_EW_N:      {path: true, segs: []uint8{EdgeE | EdgeW | EdgeN}, base: 5},
	pb.Card_CARD_CURVE_NW:    {path: true, segs: []uint8{EdgeN | EdgeW}, base: 4},
	pb.Card_CARD_CURVE_NE:    {path: true, segs: []uint8{EdgeN | EdgeE}, base: 5},
	pb.Card_CARD_DEAD_N:      {path: true, segs: dead(EdgeN), base: 1},
	pb.Card_CARD_DEAD_E:      {path: true, segs: dead(EdgeE), base: 1},
	pb.Card_CARD_DEAD_NS:     {path: true, segs: dead(EdgeN, EdgeS), base: 1},
	pb.Card_CARD_DEAD_EW:     {path: true, segs: dead(EdgeE, EdgeW), base: 1},
	pb.Card_CARD_DEAD_NW:     {path: true, segs: dead(EdgeN, EdgeW), base: 1},
	pb.Card_CARD_DEAD_NE:     {path: true, segs: dead(EdgeN, EdgeE), base: 1},
	pb.Card_CARD_DEAD_NSE:    {path: true, segs: dead(EdgeN, EdgeS, EdgeE), base: 1},
	pb.Card_CARD_DEAD_EWN:    {path: true, segs: dead(EdgeE, EdgeW, EdgeN), base: 1},
	pb.Card_CARD_DEAD_NESW:   {path: true, segs: dead(EdgeN, EdgeE, EdgeS, EdgeW), base: 1},

	pb.Card_CARD_BRIDGE:                {path: true, segs: []uint8{EdgeN | EdgeS, EdgeE | EdgeW}, exp: 2},
	pb.Card_CARD_DOUBLE_CURVE_NW_SE:    {path: true, segs: []uint8{EdgeN | EdgeW, EdgeS | EdgeE}, exp: 1},
	pb.Card_CARD_DOUBLE_CURVE_NE_SW:    {path: true, segs: []uint8{EdgeN | EdgeE, EdgeS | EdgeW}, exp: 1},
	pb.Card_CARD_LADDER_CROSSROADS:     {path: true, ladder: true, segs: []uint8{15}, exp: 1},
	pb.Card_CARD_LADDER_EW:             {path: true, ladder: true, segs: []uint8{EdgeE | EdgeW}, exp: 1},
	pb.Card_CARD_LADDER_T_EW_N:         {path: true, ladder: true, segs: []uint8{EdgeE | EdgeW | EdgeN}, exp: 1},
	pb.Card_CARD_LADDER_DEAD_E:         {path: true, ladder: true, segs: []uint8{EdgeE}, exp: 1},
	pb.Card_CARD_DOOR_BLUE_EW:          {path: true, door: doorBlue, segs: []uint8{EdgeE | EdgeW}, exp: 1},
	pb.Card_CARD_DOOR_BLUE_T_EW_N:      {path: true, door: doorBlue, segs: []uint8{EdgeE | EdgeW | EdgeN}, exp: 1},
	pb.Card_CARD_DOOR_BLUE_CROSSROADS:  {path: true, door: doorBlue, segs: []uint8{15}, exp: 1},
	pb.Card_CARD_DOOR_GREEN_EW:         {path: true, door: doorGreen, segs: []uint8{EdgeE | EdgeW}, exp: 1},
	pb.Card_CARD_DOOR_GREEN_T_EW_N:     {path: true, door: doorGreen, segs: []uint8{EdgeE | EdgeW | EdgeN}, exp: 1},
	pb.Card_CARD_DOOR_GREEN_CROSSROADS: {path: true, door: doorGreen, segs: []uint8{15}, exp: 1},
	pb.Card_CARD_CRYSTAL_EW:            {path: true, crystal: true, segs: []uint8{EdgeE | EdgeW}, exp: 2},
	pb.Card_CARD_CRYSTAL_NS:            {path: true, crystal: true, segs: []uint8{EdgeN | EdgeS}, exp: 2},
	pb.Card_CARD_CRYSTAL_CROSSROADS:    {path: true, crystal: true, segs: []uint8{15}, exp: 2},
	pb.Card_CARD_CRYSTAL_T_NS_E:        {path: true, crystal: true, segs: []uint8{EdgeN | EdgeS | EdgeE}, exp: 2},
	pb.Card_CARD_CRYSTAL_T_EW_N:        {path: true, crystal: true, segs: []uint8{EdgeE | EdgeW | EdgeN}, exp: 2},
	pb.Card_CARD_CRYSTAL_CURVE_NW:      {path: true, crystal: true, segs: []uint8{EdgeN | EdgeW}, exp: 2},
	pb.Card_CARD_CRYSTAL_CURVE_NE:      {path: true, crystal: true, segs: []uint8{EdgeN | EdgeE}, exp: 2},
	pb.Card_CARD_CRYSTAL_DEAD_EW:       {path: true, crystal: true, segs: dead(EdgeE, EdgeW), exp: 1},
	pb.Card_CARD_CRYSTAL_DEAD_NE:       {path: true, crystal: true, segs: dead(EdgeN, EdgeE), exp: 1},
	pb.Card_CARD_START:                 {segs: []uint8{15}},
	pb.Card_CARD_GOAL_GOLD:             {segs: []uint8{15}},
	pb.Card_CARD_GOAL_COAL_NW:          {segs: []uint8{EdgeN | EdgeW}},
	pb.Card_CARD_GOAL_COAL_NE:          {segs: []uint8{EdgeN | EdgeE}},
	pb.Card_CARD_BREAK_PICK:            {base: 3},
	pb.Card_CARD_BREAK_LANTERN:         {base: 3},
	pb.Card_CARD_BREAK_CART:            {base: 3},
	pb.Card_CARD_REPAIR_PICK:           {base: 2},
	pb.Card_CARD_REPAIR_LANTERN:        {base: 2},
	pb.Card_CARD_REPAIR_CART:           {base: 2},
	pb.Card_CARD_REPAIR_PICK_LANTERN:   {base: 1},
	pb.Card_CARD_REPAIR_PICK_CART:      {base: 1},
	pb.Card_CARD_REPAIR_LANTERN_CART:   {base: 1},
	pb.Card_CARD_ROCKFALL:              {base: 3},
	pb.Card_CARD_MAP:                   {base: 6},
	pb.Card_CARD_INSPECTION:            {exp: 2},
	pb.Card_CARD_THEFT:                 {exp: 4},
	pb.Card_CARD_HANDS_OFF:             {exp: 3},
	pb.Card_CARD_SWAP_HATS:             {exp: 2},
	pb.Card_CARD_SWAP_HAND:             {exp: 2},
	pb.Card_CARD_TRAPPED:               {exp: 3},
	pb.Card_CARD_FREE_AT_LAST:          {exp: 4},
}

// oriented is a card type in one orientation, precomputed.
type oriented struct {
	open    uint8    // union of the open edges
	nseg    uint8    // number of segments
	segs    [4]uint8 // edge masks
	edgeSeg [4]int8  // segment of each edge (N, E, S, W), -1 when closed
}

var shapes [numCards][2]oriented

func rot180(m uint8) uint8 { return ((m << 2) | (m >> 2)) & 15 }

func init() {
	for c := range numCards {
		for r := range 2 {
			o := &shapes[c][r]
			o.edgeSeg = [4]int8{-1, -1, -1, -1}
			for i, m := range defs[c].segs {
				if r == 1 {
					m = rot180(m)
				}
				o.segs[i] = m
				o.open |= m
				for e := range 4 {
					if m&(1<<e) != 0 {
						o.edgeSeg[e] = int8(i)
					}
				}
			}
			o.nseg = uint8(len(defs[c].segs))
		}
	}
}

// IsPath reports whether card is a path card a player may place.
func IsPath(card uint8) bool { return card < numCards && defs[card].path }

// Shape returns the open edges of card turned (or not) by 180 degrees, and whether it is a dead end
// (no segment joins two edges) — for bots and renderers.
func Shape(card uint8, rotated bool) (open uint8, deadEnd bool) {
	if card >= numCards {
		return 0, false
	}
	o := &shapes[card][b2i(rotated)]
	deadEnd = o.nseg > 0 && !defs[card].ladder
	for i := range o.nseg {
		if o.segs[i]&(o.segs[i]-1) != 0 {
			deadEnd = false
		}
	}
	if card == cStart || card == cGold || card == cCoalNE || card == cCoalNW {
		deadEnd = false
	}
	return o.open, deadEnd
}

// Door returns the door colour of card: 0 none, 1 blue, 2 green.
func Door(card uint8) uint8 {
	if card >= numCards {
		return 0
	}
	return defs[card].door
}

// IsLadder reports whether card is a ladder.
func IsLadder(card uint8) bool { return card < numCards && defs[card].ladder }

// HasCrystal reports whether card shows a crystal.
func HasCrystal(card uint8) bool { return card < numCards && defs[card].crystal }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Roles (the proto Role numbers).
const (
	roleNone      uint8 = uint8(pb.Role_ROLE_UNSPECIFIED)
	roleDigger          = uint8(pb.Role_ROLE_DIGGER)
	roleSaboteur        = uint8(pb.Role_ROLE_SABOTEUR)
	roleBlue            = uint8(pb.Role_ROLE_BLUE_DIGGER)
	roleGreen           = uint8(pb.Role_ROLE_GREEN_DIGGER)
	roleBoss            = uint8(pb.Role_ROLE_BOSS)
	roleGeologist       = uint8(pb.Role_ROLE_GEOLOGIST)
	roleProfiteer       = uint8(pb.Role_ROLE_PROFITEER)
)

// classicRoles gives, for 3..10 players, the saboteurs, gold diggers and hand size.
var classicRoles = [11][3]int{
	3: {1, 3, 6}, 4: {1, 4, 6}, 5: {2, 4, 6}, 6: {2, 5, 5},
	7: {3, 5, 5}, 8: {3, 6, 4}, 9: {3, 7, 4}, 10: {4, 7, 4},
}

// s2Roles are the 15 role cards of the expansion.
var s2Roles = []uint8{
	roleBlue, roleBlue, roleBlue, roleBlue, roleGreen, roleGreen, roleGreen, roleGreen,
	roleBoss, roleGeologist, roleGeologist, roleProfiteer, roleSaboteur, roleSaboteur, roleSaboteur,
}

// deck returns the path and action cards of the mode, in card-type order.
func deck(classic bool) []uint8 {
	var out []uint8
	for c := range numCards {
		n := defs[c].base
		if !classic {
			n += defs[c].exp
		}
		for range n {
			out = append(out, c)
		}
	}
	return out
}

// goldCards is the base game's gold deck: 16 ones, 8 twos, 4 threes.
func goldCards() []uint8 {
	out := make([]uint8, 0, 28)
	for range 16 {
		out = append(out, 1)
	}
	for range 8 {
		out = append(out, 2)
	}
	for range 4 {
		out = append(out, 3)
	}
	return out
}

// Tools, and the in-front bits of a seat.
const (
	frontPick uint8 = 1 << iota
	frontLantern
	frontCart
	frontTheft
	frontTrapped
	frontTools = frontPick | frontLantern | frontCart
)

// frontCards maps each in-front bit to the card lying there.
var frontCards = [5]uint8{cBreakPick, cBreakLantern, cBreakCart, cTheft, cTrapped}

// frontBit returns the in-front bit of a card lying in front of a player (0 if none).
func frontBit(card uint8) uint8 {
	for i, c := range frontCards {
		if c == card {
			return 1 << i
		}
	}
	return 0
}

// repairTools returns the tools (as in-front bits) a repair card may repair.
func repairTools(card uint8) uint8 {
	switch card {
	case cRepairPick:
		return frontPick
	case cRepairLantern:
		return frontLantern
	case cRepairCart:
		return frontCart
	case cRepairPL:
		return frontPick | frontLantern
	case cRepairPC:
		return frontPick | frontCart
	case cRepairLC:
		return frontLantern | frontCart
	}
	return 0
}

// toolBit maps a proto Tool to its in-front bit.
func toolBit(t uint8) uint8 {
	if t >= 1 && t <= 3 {
		return 1 << (t - 1)
	}
	return 0
}
