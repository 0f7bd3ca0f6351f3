package engine

import (
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// newTable deals a table and then lays the goals as given (goals[i] at (8, -2+2i)) on an empty board,
// with the given roles.
func newTable(t *testing.T, classic bool, roles []uint8, goals [3]uint8) *State {
	t.Helper()
	opts := &pb.Options{}
	if classic {
		opts.Mode = pb.Mode_MODE_CLASSIC
	}
	s, _, err := Game{}.Setup(engine.Config{Seats: len(roles), Seed: 1, Options: opts, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	copy(s.roles, roles)
	s.goals = goals
	s.b.reset(goals)
	return s
}

var goldMiddle = [3]uint8{cCoalNW, cGold, cCoalNE}

func c(card pb.Card) uint8 { return uint8(card) }

// lay puts cards on the board without the placement rules (to build a position), revealing goals.
func lay(t *testing.T, s *State, card pb.Card, rot bool, x, y int) {
	t.Helper()
	if s.b.at(x, y) >= 0 {
		t.Fatalf("(%d,%d) is taken", x, y)
	}
	s.b.place(c(card), rot, x, y)
	var evs []engine.Event
	s.revealTouched(&evs)
}

// try applies a placement by seat (giving it the card) and returns the violation code or "".
func try(t *testing.T, s *State, seat int, card pb.Card, rot bool, x, y int) string {
	t.Helper()
	s.cur = seat
	s.phase = phaseTurn
	s.hands[seat] = append(s.hands[seat], c(card))
	_, err := Game{}.Apply(s, engine.Move[Action]{Seat: seat, Action: Action{Kind: KindPlace, Card: c(card), Rot: rot, X: int8(x), Y: int8(y)}, At: t0})
	if err != nil {
		s.take(seat, c(card))
		return err.(*engine.Violation).Code
	}
	return ""
}

func fourBlue() []uint8 { return []uint8{roleBlue, roleGreen, roleSaboteur, roleBoss} }

func TestEveryShapeNextToStart(t *testing.T) {
	for card := range numCards {
		if !IsPath(card) {
			continue
		}
		for _, rot := range []bool{false, true} {
			for e := range 4 {
				s := newTable(t, false, []uint8{roleBoss, roleSaboteur}, goldMiddle)
				open, _ := Shape(card, rot)
				want := CodeEdgeMismatch
				if open&(1<<opp(e)) != 0 {
					want = ""
				}
				got := try(t, s, 0, pb.Card(card), rot, dx[e], dy[e])
				if got != want {
					t.Errorf("%v rot=%v at edge %d: got %q want %q", pb.Card(card), rot, e, got, want)
				}
				if want == "" && !s.BoardConsistent() {
					t.Errorf("%v: board inconsistent", pb.Card(card))
				}
			}
			s := newTable(t, false, []uint8{roleBoss, roleSaboteur}, goldMiddle)
			if got := try(t, s, 0, pb.Card(card), rot, 3, 3); got != CodeNotAdjacent {
				t.Errorf("%v far away: got %q", pb.Card(card), got)
			}
			// Against the loose stub of a dead end: only a ladder may go there.
			lay(t, s, pb.Card_CARD_DEAD_EW, false, 1, 0)
			open, _ := Shape(card, rot)
			want := CodeEdgeMismatch
			if open&EdgeW != 0 {
				want = CodeNotConnected
				if IsLadder(card) {
					want = ""
				}
			}
			if got := try(t, s, 0, pb.Card(card), rot, 2, 0); got != want {
				t.Errorf("%v rot=%v beyond a dead end: got %q want %q", pb.Card(card), rot, got, want)
			}
		}
	}
}

func TestRotation(t *testing.T) {
	if o, _ := Shape(c(pb.Card_CARD_CURVE_NW), true); o != EdgeS|EdgeE {
		t.Fatalf("curve N-W turned is %04b", o)
	}
	if o, _ := Shape(c(pb.Card_CARD_T_EW_N), true); o != EdgeE|EdgeW|EdgeS {
		t.Fatalf("T E-W+N turned is %04b", o)
	}
	if _, d := Shape(c(pb.Card_CARD_DEAD_NS), false); !d {
		t.Fatal("dead end N+S is not a dead end")
	}
}

func TestRefusals(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	// A dead end's second stub connects to nothing.
	lay(t, s, pb.Card_CARD_DEAD_EW, false, 1, 0)
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, 2, 0); got != CodeNotConnected {
		t.Fatalf("beyond a dead end: %q", got)
	}
	// Closed edge against open edge.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 0, 1); got != "" {
		t.Fatalf("below start: %q", got)
	}
	if got := try(t, s, 0, pb.Card_CARD_CURVE_NE, false, 1, 1); got != CodeEdgeMismatch {
		t.Fatalf("curve N-E at (1,1) under the dead end's closed S: %q", got)
	}
	// Next to face-down goals only.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 8, 1); got != CodeNotConnected {
		t.Fatalf("between goals: %q", got)
	}
	// Occupied.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 0, 0); got != CodeCellOccupied {
		t.Fatalf("on the start: %q", got)
	}
	// Broken tool and trapped.
	s.front[0] = frontLantern
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 0, -1); got != CodeToolsBroken {
		t.Fatalf("broken lantern: %q", got)
	}
	s.front[0] = frontTrapped
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 0, -1); got != CodeTrapped {
		t.Fatalf("trapped: %q", got)
	}
	s.front[0] = 0
	// Doors: blue digger (seat 0) cannot place green, green (seat 1) cannot place blue, boss both.
	if got := try(t, s, 0, pb.Card_CARD_DOOR_GREEN_CROSSROADS, false, 0, -1); got != CodeWrongDoor {
		t.Fatalf("blue placing green door: %q", got)
	}
	if got := try(t, s, 1, pb.Card_CARD_DOOR_BLUE_CROSSROADS, false, 0, -1); got != CodeWrongDoor {
		t.Fatalf("green placing blue door: %q", got)
	}
	if got := try(t, s, 3, pb.Card_CARD_DOOR_GREEN_CROSSROADS, false, 0, -1); got != "" {
		t.Fatalf("boss placing green door: %q", got)
	}
	if got := try(t, s, 2, pb.Card_CARD_DOOR_BLUE_CROSSROADS, false, -1, 0); got != "" {
		t.Fatalf("saboteur placing blue door: %q", got)
	}
}

func TestBridgeAndDoubleCurveOneSegment(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	if got := try(t, s, 0, pb.Card_CARD_BRIDGE, false, 1, 0); got != "" {
		t.Fatal(got)
	}
	// The bridge's N-S segment is not connected: nothing may hang below it.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 1, 1); got != CodeNotConnected {
		t.Fatalf("below the bridge: %q", got)
	}
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, 2, 0); got != "" {
		t.Fatalf("through the bridge: %q", got)
	}
	// Double curve N-E + S-W at (0,1): its N-E segment joins the start; its S-W segment does not.
	if got := try(t, s, 0, pb.Card_CARD_DOUBLE_CURVE_NE_SW, false, 0, 1); got != "" {
		t.Fatalf("double curve: %q", got)
	}
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 0, 2); got != CodeNotConnected {
		t.Fatalf("below the double curve: %q", got)
	}
}

func TestDoubleCurve(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	// Double curve N-W + S-E below the start: N-W joins the start.
	if got := try(t, s, 0, pb.Card_CARD_DOUBLE_CURVE_NW_SE, false, 0, 1); got != "" {
		t.Fatal(got)
	}
	// West of it: the N-W segment is reachable.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, -1, 1); got != "" {
		t.Fatalf("west of the double curve: %q", got)
	}
	// South of it: the S-E segment is not.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 0, 2); got != CodeNotConnected {
		t.Fatalf("south of the double curve: %q", got)
	}
	// A card reaching its S-E segment from the start's side makes it reachable.
	if got := try(t, s, 0, pb.Card_CARD_CURVE_NW, true, 1, 0); got != CodeEdgeMismatch {
		t.Fatalf("curve turned S-E at (1,0): %q", got)
	}
}

func TestLadders(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	lay(t, s, pb.Card_CARD_DEAD_EW, false, 1, 0)
	// A ladder needs no path: next to the dead end's loose stub it is connected to the start.
	if got := try(t, s, 0, pb.Card_CARD_LADDER_EW, false, 2, 0); got != "" {
		t.Fatalf("ladder: %q", got)
	}
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, 3, 0); got != "" {
		t.Fatalf("after the ladder: %q", got)
	}
	// A ladder must touch a path card, and no goal.
	if got := try(t, s, 0, pb.Card_CARD_LADDER_CROSSROADS, false, 5, 5); got != CodeNotAdjacent {
		t.Fatalf("lonely ladder: %q", got)
	}
	lay(t, s, pb.Card_CARD_STRAIGHT_NS, false, 7, 3)
	if got := try(t, s, 0, pb.Card_CARD_LADDER_CROSSROADS, false, 7, 2); got != CodeLadderNearGoal {
		t.Fatalf("ladder next to a goal: %q", got)
	}
	// The ladder-to-start connection carries to the gold.
	for x := 4; x <= 6; x++ {
		lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, x, 0)
	}
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, 7, 0); got != "" {
		t.Fatal(got)
	}
	if !s.last.goldReached || s.last.round != 1 {
		t.Fatalf("gold not reached through the ladder: %+v", s.last)
	}
}

func TestRockfallThenRebuild(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	for x := 1; x <= 4; x++ {
		lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, x, 0)
	}
	s.cur, s.phase = 2, phaseTurn
	s.hands[2] = append(s.hands[2], cRockfall)
	if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: 2, Action: Action{Kind: KindPlay, Card: cRockfall, X: 2, Y: 0}, At: t0}); err != nil {
		t.Fatal(err)
	}
	if s.b.at(2, 0) >= 0 {
		t.Fatal("card still there")
	}
	if !s.BoardConsistent() {
		t.Fatal("board inconsistent")
	}
	// (3,0) and (4,0) are cut off.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, 5, 0); got != CodeNotConnected {
		t.Fatalf("beyond the rockfall: %q", got)
	}
	// Start and goals cannot be hit.
	s.cur = 2
	s.hands[2] = append(s.hands[2], cRockfall)
	for _, xy := range [][2]int8{{0, 0}, {8, 0}, {6, 6}} {
		_, err := (Game{}).Apply(s, engine.Move[Action]{Seat: 2, Action: Action{Kind: KindPlay, Card: cRockfall, X: xy[0], Y: xy[1]}, At: t0})
		if v, ok := err.(*engine.Violation); !ok || v.Code != CodeNotRemovable {
			t.Fatalf("rockfall at %v: %v", xy, err)
		}
	}
	// Rebuild the gap: the far cards are connected again.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, 2, 0); got != "" {
		t.Fatal(got)
	}
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, 5, 0); got != "" {
		t.Fatalf("after rebuilding: %q", got)
	}
	if !s.BoardConsistent() {
		t.Fatal("board inconsistent")
	}
}

func TestCoalTurnedToFit(t *testing.T) {
	// Coal N-E in the middle, reached from the west: it must turn (S-W) to fit.
	s := newTable(t, false, fourBlue(), [3]uint8{cGold, cCoalNE, cCoalNW})
	for x := 1; x <= 6; x++ {
		lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, x, 0)
	}
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_EW, false, 7, 0); got != "" {
		t.Fatal(got)
	}
	coal := s.b.slots[2]
	if coal.faceDown || !coal.rot {
		t.Fatalf("coal not turned to fit: %+v", coal)
	}
	if s.phase != phaseTurn || s.round != 1 {
		t.Fatal("play should go on after coal")
	}
	// The coal is part of the network now: its S edge leads on.
	if got := try(t, s, 0, pb.Card_CARD_STRAIGHT_NS, false, 8, 1); got != "" {
		t.Fatalf("below the coal: %q", got)
	}
	// That card reaches the bottom goal (coal N-W), turned or not as it fits: unturned N-W opens N.
	if b := s.b.slots[3]; b.faceDown || b.rot {
		t.Fatalf("bottom coal: %+v", b)
	}
	// Coal N-W in the middle reached from the west fits unturned.
	s = newTable(t, false, fourBlue(), [3]uint8{cGold, cCoalNW, cCoalNE})
	for x := 1; x <= 7; x++ {
		lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, x, 0)
	}
	if coal := s.b.slots[2]; coal.faceDown || coal.rot {
		t.Fatalf("coal N-W: %+v", coal)
	}
}
