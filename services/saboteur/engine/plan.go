package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
)

// Planner rebuilds the board of a view (public information only) with its reachability, so a bot
// can weigh placements: how close to the goals the reachable open ends are, before and after.
type Planner struct {
	b       board
	targets [][2]int
	// filter is the reachability that counts for the viewer: a blue or green gold digger only
	// follows routes open to its colour (the other team's doors are dead ends for it).
	filter uint8
	door   uint8 // the door colour the viewer cannot pass (0: none)
}

// NewPlanner builds a planner from a view. Targets are the face-down goals the viewer has not seen
// to be coal (only the gold if the viewer has seen it).
func NewPlanner(v *pb.View) *Planner {
	p := &Planner{filter: reachAll}
	switch v.Role {
	case pb.Role_ROLE_BLUE_DIGGER:
		p.filter, p.door = reachBlue, doorGreen
	case pb.Role_ROLE_GREEN_DIGGER:
		p.filter, p.door = reachGreen, doorBlue
	}
	var gold [][2]int
	for i, bc := range v.Board {
		x, y := int(bc.Cell.GetX()), int(bc.Cell.GetY())
		card := uint8(bc.Card)
		if bc.FaceDown {
			switch bc.Card {
			case pb.Card_CARD_GOAL_GOLD:
				gold = append(gold, [2]int{x, y})
			case pb.Card_CARD_UNSPECIFIED:
				p.targets = append(p.targets, [2]int{x, y})
			}
			card = cCoalNW
		}
		if i >= 1 && i <= 3 && !bc.FaceDown && card == cGold {
			gold = append(gold, [2]int{x, y})
		}
		if card >= numCards || !inGrid(x, y) || p.b.at(x, y) >= 0 {
			continue
		}
		p.b.add(slot{x: int8(x), y: int8(y), card: card, rot: bc.Rotated, faceDown: bc.FaceDown})
	}
	if len(gold) > 0 {
		p.targets = gold
	}
	if len(p.b.slots) >= 4 {
		p.b.recompute()
		p.b.rebuildFrontier()
	}
	return p
}

// Targets returns the goal cells worth digging to.
func (p *Planner) Targets() [][2]int { return p.targets }

// Dist returns the Manhattan distance from (x, y) to the nearest target (large without targets).
func (p *Planner) Dist(x, y int) int {
	best := 1 << 20
	for _, t := range p.targets {
		d := abs(x-t[0]) + abs(y-t[1])
		best = min(best, d)
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Front returns the distance to the nearest target of the best reachable open end: an empty cell a
// reachable segment opens onto.
func (p *Planner) Front() int {
	best := 1 << 20
	if len(p.b.slots) < 4 {
		return best
	}
	for _, k := range p.b.frontier {
		x, y := int(k>>8)-128, int(k&255)-128
		if p.reachEdges(x, y) != 0 {
			best = min(best, p.Dist(x, y))
		}
	}
	return best
}

// reachEdges returns the edges of empty cell (x, y) that face a segment reachable under the filter.
func (p *Planner) reachEdges(x, y int) uint8 {
	var m uint8
	for e := range 4 {
		n := p.b.at(x+dx[e], y+dy[e])
		if n < 0 || p.b.slots[n].faceDown {
			continue
		}
		if t := p.b.shape(n).edgeSeg[opp(e)]; t >= 0 && p.b.slots[n].reach[t]&p.filter != 0 {
			m |= 1 << e
		}
	}
	return m
}

// After returns the distance to the nearest target of the best open end the placement of card at
// (x, y) would add (a reachable segment's open edge onto an empty cell or a target goal), or a large
// number when it adds none.
func (p *Planner) After(card uint8, rot bool, x, y int) int {
	best := 1 << 20
	if card >= numCards || len(p.b.slots) < 4 || (p.door != 0 && defs[card].door == p.door) {
		return best
	}
	reach := p.reachEdges(x, y)
	o := &shapes[card][b2i(rot)]
	for g := range int(o.nseg) {
		seg := o.segs[g]
		if seg&reach == 0 && !defs[card].ladder {
			continue
		}
		for e := range 4 {
			if seg&(1<<e) == 0 {
				continue
			}
			nx, ny := x+dx[e], y+dy[e]
			n := p.b.at(nx, ny)
			if n < 0 || (n >= 1 && n <= 3 && p.b.slots[n].faceDown) {
				best = min(best, p.Dist(nx, ny))
			}
		}
	}
	return best
}

// PathCards returns the placed path cards (not start or goals) as cells, for rockfall choices.
func (p *Planner) PathCards() [][2]int {
	var out [][2]int
	for i := 4; i < len(p.b.slots); i++ {
		out = append(out, [2]int{int(p.b.slots[i].x), int(p.b.slots[i].y)})
	}
	return out
}
