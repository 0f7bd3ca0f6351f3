package engine

import "slices"

// The board is an unbounded grid in the rules; every card is chained by adjacency to the start (70
// path cards at most), so coordinates stay strictly within gridR of the start.
const (
	gridR = 100
	// GoalX is the goals' column; they lie at (GoalX, -2), (GoalX, 0), (GoalX, 2).
	GoalX = 8
)

// goalY are the goal rows, in goal-index order.
var goalY = [3]int{-2, 0, 2}

// Reachability filters: any route (for placement), a route open to blue (no green door), a route
// open to green (no blue door).
const (
	reachAll   uint8 = 1
	reachBlue  uint8 = 2
	reachGreen uint8 = 4
	reachEvery       = reachAll | reachBlue | reachGreen
)

var dx = [4]int{0, 1, 0, -1}
var dy = [4]int{-1, 0, 1, 0}

func opp(e int) int { return (e + 2) & 3 }

// slot is a card on the board.
type slot struct {
	x, y     int8
	card     uint8
	rot      bool
	faceDown bool // a goal not yet revealed
	reach    [4]uint8
}

// board holds the cards and, incrementally, which segments are reachable from the start (or a
// ladder) under each filter. Slot 0 is the start, slots 1..3 the goals, then placed path cards.
type board struct {
	slots []slot
	cells cellTable
	// frontier holds the empty cells next to a card (as cell keys, sorted): where a card may go.
	frontier []uint16
	// touched collects face-down goals a reachable segment opened onto (goal indices as bits).
	touched uint8
	queue   []uint16 // scratch: slot<<2 | segment
}

// cellTable maps a cell to its slot: a small open-addressing hash table (at most ~75 cards lie on
// the board), cheap to copy and to look up.
type cellTable struct {
	keys [256]uint16 // 0: empty
	vals [256]uint8
}

func cellKey(x, y int) uint16 { return uint16(x+128)<<8 | uint16(y+128)&255 }

func cellHash(k uint16) int { return int((uint32(k) * 0x9E3779B1) >> 24) }

func (t *cellTable) get(x, y int) int {
	k := cellKey(x, y)
	for i := cellHash(k); ; i = (i + 1) & 255 {
		switch t.keys[i] {
		case 0:
			return -1
		case k:
			return int(t.vals[i])
		}
	}
}

func (t *cellTable) put(x, y, v int) {
	k := cellKey(x, y)
	i := cellHash(k)
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & 255
	}
	t.keys[i], t.vals[i] = k, uint8(v)
}

func inGrid(x, y int) bool {
	return x > -gridR && x < gridR && y > -gridR && y < gridR
}

// at returns the slot index at (x, y), or -1.
func (b *board) at(x, y int) int {
	if !inGrid(x, y) {
		return -1
	}
	return b.cells.get(x, y)
}

func (b *board) shape(i int) *oriented {
	s := &b.slots[i]
	return &shapes[s.card][b2i(s.rot)]
}

// reset lays the start and the three goals (goals[i] is the card of goal i).
func (b *board) reset(goals [3]uint8) {
	b.cells = cellTable{}
	b.slots = b.slots[:0]
	b.touched = 0
	b.add(slot{card: cStart, reach: [4]uint8{reachEvery}})
	for i, g := range goals {
		b.add(slot{x: GoalX, y: int8(goalY[i]), card: g, faceDown: true})
	}
	b.rebuildFrontier()
}

func (b *board) add(s slot) int {
	b.slots = append(b.slots, s)
	i := len(b.slots) - 1
	b.cells.put(int(s.x), int(s.y), i)
	return i
}

// passable returns the filters a segment of slot i lets through (its door shuts out the other colour).
func (b *board) passable(i int) uint8 {
	switch defs[b.slots[i].card].door {
	case doorBlue:
		return reachAll | reachBlue
	case doorGreen:
		return reachAll | reachGreen
	}
	return reachEvery
}

// fit describes an empty cell for placement: the edges that must be open, those that must be closed,
// the edges that would join a reachable segment, and what lies around.
type fit struct {
	mustOpen, mustClosed, reachable uint8
	adjPath, adjGoal, occupied      bool
}

// examine computes the fit of cell (x, y).
func (b *board) examine(x, y int) fit {
	var f fit
	if !inGrid(x, y) || b.at(x, y) >= 0 {
		f.occupied = true
		return f
	}
	for e := range 4 {
		n := b.at(x+dx[e], y+dy[e])
		if n < 0 {
			continue
		}
		if n >= 1 && n <= 3 {
			f.adjGoal = true
		} else {
			f.adjPath = true
		}
		if b.slots[n].faceDown {
			continue
		}
		seg := b.shape(n).edgeSeg[opp(e)]
		if seg < 0 {
			f.mustClosed |= 1 << e
			continue
		}
		f.mustOpen |= 1 << e
		if b.slots[n].reach[seg]&reachAll != 0 {
			f.reachable |= 1 << e
		}
	}
	return f
}

// Placement refusal reasons (violation codes).
const (
	CodeCellOccupied   = "CELL_OCCUPIED"
	CodeEdgeMismatch   = "EDGE_MISMATCH"
	CodeNotConnected   = "NOT_CONNECTED"
	CodeNotAdjacent    = "NOT_ADJACENT"
	CodeLadderNearGoal = "LADDER_NEXT_TO_GOAL"
)

// check returns "" when card may go at the examined cell in orientation rot, else the refusal code.
func (f *fit) check(card uint8, rot bool) string {
	if f.occupied {
		return CodeCellOccupied
	}
	o := &shapes[card][b2i(rot)]
	if defs[card].ladder {
		if f.adjGoal {
			return CodeLadderNearGoal
		}
		if !f.adjPath {
			return CodeNotAdjacent
		}
	} else if !f.adjPath && !f.adjGoal {
		return CodeNotAdjacent
	}
	if o.open&f.mustClosed != 0 || o.open&f.mustOpen != f.mustOpen {
		return CodeEdgeMismatch
	}
	if !defs[card].ladder && o.open&f.reachable == 0 {
		return CodeNotConnected
	}
	return ""
}

// place puts a card (already checked) on the board and propagates reachability from it. Face-down
// goals a reachable segment now opens onto are recorded in touched.
func (b *board) place(card uint8, rot bool, x, y int) int {
	i := b.add(slot{x: int8(x), y: int8(y), card: card, rot: rot})
	if j, ok := slices.BinarySearch(b.frontier, cellKey(x, y)); ok {
		b.frontier = slices.Delete(b.frontier, j, j+1)
	}
	b.growFrontier(x, y)
	b.seed(i)
	b.flood()
	return i
}

// growFrontier adds the empty cells around (x, y) to the frontier.
func (b *board) growFrontier(x, y int) {
	for e := range 4 {
		nx, ny := x+dx[e], y+dy[e]
		if !inGrid(nx, ny) || b.at(nx, ny) >= 0 {
			continue
		}
		k := cellKey(nx, ny)
		if j, ok := slices.BinarySearch(b.frontier, k); !ok {
			b.frontier = slices.Insert(b.frontier, j, k)
		}
	}
}

// rebuildFrontier recomputes the frontier from the cards.
func (b *board) rebuildFrontier() {
	b.frontier = b.frontier[:0]
	for i := range b.slots {
		b.growFrontier(int(b.slots[i].x), int(b.slots[i].y))
	}
}

// seed computes slot i's reachability from its neighbours (or as a ladder) and queues it.
func (b *board) seed(i int) {
	s := &b.slots[i]
	o := b.shape(i)
	pass := b.passable(i)
	for g := range int(o.nseg) {
		var r uint8
		if defs[s.card].ladder {
			r = reachEvery
		}
		for e := range 4 {
			if o.segs[g]&(1<<e) == 0 {
				continue
			}
			n := b.at(int(s.x)+dx[e], int(s.y)+dy[e])
			if n < 0 || b.slots[n].faceDown {
				continue
			}
			if t := b.shape(n).edgeSeg[opp(e)]; t >= 0 {
				r |= b.slots[n].reach[t]
			}
		}
		r &= pass
		if r != 0 {
			s.reach[g] = r
			b.queue = append(b.queue, uint16(i)<<2|uint16(g))
		}
	}
}

// flood spreads reachability from the queued segments to every segment it newly reaches. Only
// segments whose reachability grows are visited, so a placement costs the size of what it opens up.
func (b *board) flood() {
	for len(b.queue) > 0 {
		q := b.queue[len(b.queue)-1]
		b.queue = b.queue[:len(b.queue)-1]
		i, g := int(q>>2), int(q&3)
		s := b.slots[i]
		m := b.shape(i).segs[g]
		r := s.reach[g]
		for e := range 4 {
			if m&(1<<e) == 0 {
				continue
			}
			n := b.at(int(s.x)+dx[e], int(s.y)+dy[e])
			if n < 0 {
				continue
			}
			if b.slots[n].faceDown {
				if r&reachAll != 0 {
					b.touched |= 1 << (n - 1)
				}
				continue
			}
			t := b.shape(n).edgeSeg[opp(e)]
			if t < 0 {
				continue
			}
			add := r & b.passable(n) &^ b.slots[n].reach[t]
			if add != 0 {
				b.slots[n].reach[t] |= add
				b.queue = append(b.queue, uint16(n)<<2|uint16(t))
			}
		}
	}
}

// reveal turns goal g face up. A coal is turned to fit: an orientation that matches every face-up
// neighbour and opens onto the reachable card that reached it, else one that at least opens onto a
// reachable card, else it stays as it lies (the rulebook's exception).
// Reachability then flows into it.
func (b *board) reveal(g int) {
	i := g + 1
	s := &b.slots[i]
	s.faceDown = false
	b.touched &^= 1 << g
	if s.card != cGold {
		best := -1
		for _, r := range []bool{false, true} {
			s.rot = r
			f := b.matchAround(i)
			if f == 2 {
				best = b2i(r)
				break
			}
			if f == 1 && best < 0 {
				best = b2i(r)
			}
		}
		s.rot = best == 1
	}
	b.seed(i)
	b.flood()
}

// matchAround returns 2 when slot i matches all its face-up neighbours, 1 when it at least opens onto
// a reachable neighbour segment, 0 otherwise.
func (b *board) matchAround(i int) int {
	s := &b.slots[i]
	o := b.shape(i)
	all, some := true, false
	for e := range 4 {
		n := b.at(int(s.x)+dx[e], int(s.y)+dy[e])
		if n < 0 || b.slots[n].faceDown {
			continue
		}
		t := b.shape(n).edgeSeg[opp(e)]
		mine := o.open&(1<<e) != 0
		if mine != (t >= 0) {
			all = false
		}
		if mine && t >= 0 && b.slots[n].reach[t]&reachAll != 0 {
			some = true
		}
	}
	switch {
	case all && some:
		return 2
	case some:
		return 1
	}
	return 0
}

// remove takes a placed path card off the board (rockfall) and recomputes reachability: removals are
// rare, additions are incremental.
func (b *board) remove(i int) {
	last := len(b.slots) - 1
	b.slots[i] = b.slots[last]
	b.slots = b.slots[:last]
	b.cells = cellTable{}
	for j := range b.slots {
		b.cells.put(int(b.slots[j].x), int(b.slots[j].y), j)
	}
	b.rebuildFrontier()
	b.recompute()
}

// recompute floods reachability from scratch: from the start and every ladder.
func (b *board) recompute() {
	for i := range b.slots {
		b.slots[i].reach = [4]uint8{}
	}
	b.slots[0].reach[0] = reachEvery
	b.queue = append(b.queue, 0)
	for i := 4; i < len(b.slots); i++ {
		if defs[b.slots[i].card].ladder {
			for g := range int(b.shape(i).nseg) {
				b.slots[i].reach[g] = reachEvery
				b.queue = append(b.queue, uint16(i)<<2|uint16(g))
			}
		}
	}
	// Revealed goals are reached through their neighbours like any card.
	touched := b.touched
	b.flood()
	b.touched = touched
}

// goalReach returns the filters under which goal g is reached: through any face-up neighbour
// segment that opens onto it.
func (b *board) goalReach(g int) uint8 {
	s := &b.slots[g+1]
	var r uint8
	for e := range 4 {
		n := b.at(int(s.x)+dx[e], int(s.y)+dy[e])
		if n < 0 || b.slots[n].faceDown {
			continue
		}
		if t := b.shape(n).edgeSeg[opp(e)]; t >= 0 {
			r |= b.slots[n].reach[t]
		}
	}
	return r
}

// consistent reports whether every face-up card matches its face-up neighbours (goals excepted: a
// face-down goal imposes nothing, and a coal turned as well as it could is left as it lies).
func (b *board) consistent() bool {
	for i := range b.slots {
		if i >= 1 && i <= 3 {
			continue
		}
		s := &b.slots[i]
		if b.at(int(s.x), int(s.y)) != i {
			return false
		}
		o := b.shape(i)
		for e := range 4 {
			n := b.at(int(s.x)+dx[e], int(s.y)+dy[e])
			if n < 0 || (n >= 1 && n <= 3) {
				continue
			}
			if (o.open&(1<<e) != 0) != (b.shape(n).edgeSeg[opp(e)] >= 0) {
				return false
			}
		}
	}
	return true
}

// crystals counts crystal cards on the board.
func (b *board) crystals() int {
	n := 0
	for i := 4; i < len(b.slots); i++ {
		if defs[b.slots[i].card].crystal {
			n++
		}
	}
	return n
}
