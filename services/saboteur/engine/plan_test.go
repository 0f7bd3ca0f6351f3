package engine

import (
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
)

func TestPlannerRespectsDoors(t *testing.T) {
	s := newTable(t, false, []uint8{roleBlue, roleGreen, roleSaboteur}, goldMiddle)
	lay(t, s, pb.Card_CARD_DOOR_GREEN_EW, false, 1, 0)
	lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, 2, 0)
	blue, green, sab := NewPlanner(s.view(0)), NewPlanner(s.view(1)), NewPlanner(s.view(2))
	// Green and the saboteur see the open end at (3,0), 5 from the middle goal; blue only the cells
	// around the start (distance 9).
	if green.Front() != 5 || sab.Front() != 5 || blue.Front() != 9 {
		t.Fatalf("fronts: blue %d green %d saboteur %d", blue.Front(), green.Front(), sab.Front())
	}
	// Extending past the green door brings blue nothing; a blue door brings green nothing.
	if blue.After(c(pb.Card_CARD_STRAIGHT_EW), false, 3, 0) < 1<<20 || green.After(c(pb.Card_CARD_STRAIGHT_EW), false, 3, 0) != 4 {
		t.Fatal("placements past a door")
	}
	if green.After(c(pb.Card_CARD_DOOR_BLUE_EW), false, 3, 0) < 1<<20 {
		t.Fatal("green counts a blue door as progress")
	}
	// A mapped gold becomes the only target.
	s.mapped[0] = 1 << 1
	if got := NewPlanner(s.view(0)).Targets(); len(got) != 1 || got[0] != [2]int{GoalX, 0} {
		t.Fatalf("targets %v", got)
	}
}
