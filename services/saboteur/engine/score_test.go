package engine

import (
	"slices"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// road lays straight E-W cards from (1,0) to (6,0); the card at (7,0) reaches the middle goal.
func road(t *testing.T, s *State) {
	for x := 1; x <= 6; x++ {
		lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, x, 0)
	}
}

// act applies an action by seat, giving it the card first when one is played.
func act(t *testing.T, s *State, seat int, a Action) {
	t.Helper()
	if a.Kind == KindPlay || a.Kind == KindPlace {
		s.hands[seat] = append(s.hands[seat], a.Card)
	}
	if s.phase == phaseTurn {
		s.cur = seat
	}
	if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: seat, Action: a, At: t0}); err != nil {
		t.Fatalf("seat %d %+v: %v", seat, a, err)
	}
}

func connect(t *testing.T, s *State, seat int) {
	t.Helper()
	act(t, s, seat, Action{Kind: KindPlace, Card: c(pb.Card_CARD_CROSSROADS), X: 7, Y: 0})
	if !s.last.goldReached || s.last.connector != seat {
		t.Fatalf("gold not reached by %d: %+v", seat, s.last)
	}
}

func TestRulebookExample(t *testing.T) {
	s := newTable(t, false, []uint8{roleBlue, roleBoss, roleProfiteer, roleSaboteur}, goldMiddle)
	road(t, s)
	connect(t, s, 0)
	if !slices.Equal(s.last.payouts, []int{3, 2, 1, 0}) || !slices.Equal(s.last.winners, []int{0, 1, 2}) {
		t.Fatalf("payouts %v winners %v", s.last.payouts, s.last.winners)
	}
	if !slices.Equal(s.nuggets, []int{3, 2, 1, 0}) {
		t.Fatalf("nuggets %v", s.nuggets)
	}
	// The next round starts left of the player who played the last card.
	if s.round != 2 || s.cur != 1 {
		t.Fatalf("round %d starts at %d", s.round, s.cur)
	}
}

func TestFiveOrMoreWinners(t *testing.T) {
	s := newTable(t, false, []uint8{roleBlue, roleBlue, roleBlue, roleGreen, roleBoss, roleProfiteer, roleSaboteur}, goldMiddle)
	road(t, s)
	connect(t, s, 5) // the profiteer: both colours win
	if !slices.Equal(s.last.payouts, []int{1, 1, 1, 1, 0, 0, 0}) {
		t.Fatalf("payouts %v", s.last.payouts)
	}
}

func TestTrappedWinnerExcluded(t *testing.T) {
	s := newTable(t, false, []uint8{roleBlue, roleBlue, roleBoss, roleProfiteer, roleSaboteur}, goldMiddle)
	road(t, s)
	act(t, s, 4, Action{Kind: KindPlay, Card: cTrapped, Target: 1})
	connect(t, s, 0)
	if !slices.Equal(s.last.winners, []int{0, 2, 3}) || !slices.Equal(s.last.payouts, []int{3, 0, 2, 1, 0}) {
		t.Fatalf("winners %v payouts %v", s.last.winners, s.last.payouts)
	}
}

func TestGeologistsSplitCrystals(t *testing.T) {
	s := newTable(t, false, []uint8{roleBlue, roleGeologist, roleGeologist, roleSaboteur}, goldMiddle)
	for x := 1; x <= 6; x++ {
		card := pb.Card_CARD_STRAIGHT_EW
		if x <= 5 {
			card = pb.Card_CARD_CRYSTAL_EW
		}
		lay(t, s, card, false, x, 0)
	}
	connect(t, s, 0)
	if !slices.Equal(s.last.payouts, []int{5, 2, 2, 0}) || s.last.crystals != 5 {
		t.Fatalf("payouts %v crystals %d", s.last.payouts, s.last.crystals)
	}
	// Ruling G1: a trapped geologist gets nothing but still counts when the crystals are shared:
	// the other keeps half of the 6 (3), not all of them. Trapping a geologist takes its share away;
	// it does not hand that share to the other geologist.
	s = newTable(t, false, []uint8{roleBlue, roleGeologist, roleGeologist, roleSaboteur}, goldMiddle)
	for x := 1; x <= 6; x++ {
		lay(t, s, pb.Card_CARD_CRYSTAL_CROSSROADS, false, x, 0)
	}
	act(t, s, 3, Action{Kind: KindPlay, Card: cTrapped, Target: 2})
	connect(t, s, 0)
	if s.last.crystals != 6 || !slices.Equal(s.last.payouts, []int{5, 3, 0, 0}) {
		t.Fatalf("crystals %d, payouts %v: want 6 crystals, the untrapped geologist 6/2 = 3, the trapped one 0",
			s.last.crystals, s.last.payouts)
	}
}

// twoDoorRoutes lays two routes to (7,0): one along y=0 through a blue door, one along y=-1 through a
// green door.
func twoDoorRoutes(t *testing.T, s *State, blueDoor, greenDoor bool) {
	lay(t, s, pb.Card_CARD_CROSSROADS, false, 1, 0)
	lay(t, s, pb.Card_CARD_CURVE_NW, true, 1, -1)
	for x := 2; x <= 6; x++ {
		a, b := pb.Card_CARD_STRAIGHT_EW, pb.Card_CARD_STRAIGHT_EW
		if x == 2 && blueDoor {
			a = pb.Card_CARD_DOOR_BLUE_EW
		}
		if x == 2 && greenDoor {
			b = pb.Card_CARD_DOOR_GREEN_EW
		}
		lay(t, s, a, false, x, 0)
		lay(t, s, b, false, x, -1)
	}
	lay(t, s, pb.Card_CARD_CURVE_NE, true, 7, -1)
}

var eight = []uint8{roleBlue, roleGreen, roleBoss, roleGeologist, roleProfiteer, roleSaboteur, roleBlue, roleGreen}

func TestGoldReachedByEachConnector(t *testing.T) {
	blueTeam := []int{0, 2, 4, 6}
	greenTeam := []int{1, 2, 4, 7}
	both := []int{0, 1, 2, 4, 6, 7}
	for _, tc := range []struct {
		name      string
		connector int
		winners   []int
	}{
		{"blue digger", 0, blueTeam},
		{"green digger", 1, greenTeam},
		{"boss", 2, both},
		{"geologist", 3, both},
		{"profiteer", 4, both},
		{"saboteur", 5, both},
	} {
		s := newTable(t, false, eight, goldMiddle)
		twoDoorRoutes(t, s, true, true)
		connect(t, s, tc.connector)
		if !s.last.blueOpen || !s.last.greenOpen {
			t.Fatalf("%s: both colours should have an open route", tc.name)
		}
		if !slices.Equal(s.last.winners, tc.winners) {
			t.Errorf("%s: winners %v want %v", tc.name, s.last.winners, tc.winners)
		}
	}
}

func TestDoorBlocksPerColour(t *testing.T) {
	// Only a green-door route: blue reaching the gold makes green win instead.
	s := newTable(t, false, eight, goldMiddle)
	lay(t, s, pb.Card_CARD_DOOR_GREEN_EW, false, 1, 0)
	// A blue digger may build on past the green door.
	act(t, s, 0, Action{Kind: KindPlace, Card: c(pb.Card_CARD_STRAIGHT_EW), X: 2, Y: 0})
	for x := 3; x <= 6; x++ {
		lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, x, 0)
	}
	connect(t, s, 0)
	if s.last.blueOpen || !s.last.greenOpen || !slices.Equal(s.last.winners, []int{1, 2, 4, 7}) {
		t.Fatalf("blue open %v green open %v winners %v", s.last.blueOpen, s.last.greenOpen, s.last.winners)
	}
	// Doors of both colours in series: nobody's route is open; only the profiteer wins.
	s = newTable(t, false, eight, goldMiddle)
	lay(t, s, pb.Card_CARD_DOOR_GREEN_EW, false, 1, 0)
	lay(t, s, pb.Card_CARD_DOOR_BLUE_EW, false, 2, 0)
	for x := 3; x <= 6; x++ {
		lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, x, 0)
	}
	connect(t, s, 3)
	if !slices.Equal(s.last.winners, []int{4}) || s.last.payouts[4] != 3 {
		t.Fatalf("winners %v payouts %v", s.last.winners, s.last.payouts)
	}
	// A blue door only: the green digger reaching the gold makes blue win.
	s = newTable(t, false, eight, goldMiddle)
	lay(t, s, pb.Card_CARD_DOOR_BLUE_T_EW_N, false, 1, 0)
	for x := 2; x <= 6; x++ {
		lay(t, s, pb.Card_CARD_STRAIGHT_EW, false, x, 0)
	}
	connect(t, s, 1)
	if !slices.Equal(s.last.winners, []int{0, 2, 4, 6}) {
		t.Fatalf("winners %v", s.last.winners)
	}
}

func TestGoldNotReachedSaboteursWin(t *testing.T) {
	s := newTable(t, false, eight, goldMiddle)
	exhaust(t, s, 3)
	if s.last.goldReached || !slices.Equal(s.last.winners, []int{4, 5}) || !slices.Equal(s.last.payouts, []int{0, 0, 0, 0, 2, 4, 0, 0}) {
		t.Fatalf("winners %v payouts %v", s.last.winners, s.last.payouts)
	}
	if s.round != 2 || s.cur != 4 {
		t.Fatalf("round %d starts at seat %d", s.round, s.cur)
	}
}

// exhaust empties the pile and every hand but seat's last card, which it then discards.
func exhaust(t *testing.T, s *State, seat int) {
	t.Helper()
	s.pile = s.pile[:0]
	for i := range s.hands {
		s.hands[i] = s.hands[i][:0]
	}
	s.hands[seat] = []uint8{cMap}
	s.cur = seat
	act(t, s, seat, Action{Kind: KindDiscard, N: 1, Cards: [3]uint8{cMap}})
}

func TestThefts(t *testing.T) {
	s := newTable(t, false, []uint8{roleBlue, roleGreen, roleSaboteur, roleBoss, roleProfiteer}, goldMiddle)
	road(t, s)
	act(t, s, 2, Action{Kind: KindPlay, Card: cTheft, Target: 2})
	act(t, s, 1, Action{Kind: KindPlay, Card: cTheft, Target: 1})
	act(t, s, 0, Action{Kind: KindPlay, Card: cTheft, Target: 0})
	act(t, s, 4, Action{Kind: KindPlay, Card: cTrapped, Target: 1}) // seat 1's Theft is void
	// Seat 0 already has a Theft: a second is refused.
	s.hands[0] = append(s.hands[0], cTheft)
	s.cur = 0
	if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: 0, Action: Action{Kind: KindPlay, Card: cTheft}, At: t0}); err == nil || err.(*engine.Violation).Code != CodeAlreadyInFront {
		t.Fatalf("second theft: %v", err)
	}
	connect(t, s, 0)
	// Winners: blue 0, boss 3, profiteer 4: 3, 2, 1.
	if !slices.Equal(s.nuggets, []int{3, 0, 0, 2, 1}) {
		t.Fatalf("nuggets %v", s.nuggets)
	}
	// Seat 0 laid the last Theft: it steals first, then seat 2 (clockwise), seat 1 is trapped.
	if s.phase != phaseTheft || s.cur != 0 {
		t.Fatalf("phase %d cur %d", s.phase, s.cur)
	}
	legal := Game{}.Legal(s, 0, nil)
	if len(legal) != 2 { // seats 3 and 4 have nuggets
		t.Fatalf("legal steals %v", legal)
	}
	if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: 0, Action: Action{Kind: KindSteal, Target: 1}, At: t0}); err == nil || err.(*engine.Violation).Code != CodeNoNugget {
		t.Fatalf("steal from a seat without nuggets: %v", err)
	}
	act(t, s, 0, Action{Kind: KindSteal, Target: 3})
	if s.phase != phaseTheft || s.cur != 2 {
		t.Fatalf("second thief: phase %d cur %d", s.phase, s.cur)
	}
	act(t, s, 2, Action{Kind: KindSteal, Target: 0})
	if !slices.Equal(s.nuggets, []int{3, 0, 1, 1, 1}) || s.phase != phaseTurn || s.round != 2 {
		t.Fatalf("nuggets %v phase %d round %d", s.nuggets, s.phase, s.round)
	}
}

func TestClassicGoldPicking(t *testing.T) {
	s := newTable(t, true, []uint8{roleDigger, roleDigger, roleSaboteur, roleDigger}, goldMiddle)
	s.goldDeck = append(s.goldDeck[:0], 1, 1, 1, 3, 1, 2, 1)
	road(t, s)
	connect(t, s, 1)
	if s.phase != phasePickGold || s.cur != 1 || !slices.Equal(s.offer, []uint8{3, 1, 2, 1}) {
		t.Fatalf("phase %d cur %d offer %v", s.phase, s.cur, s.offer)
	}
	if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: 0, Action: Action{Kind: KindPick, Target: 3}, At: t0}); err == nil || err.(*engine.Violation).Code != engine.CodeNotYourTurn {
		t.Fatalf("out of turn pick: %v", err)
	}
	act(t, s, 1, Action{Kind: KindPick, Target: 3})
	if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: 0, Action: Action{Kind: KindPick, Target: 3}, At: t0}); err == nil || err.(*engine.Violation).Code != CodeNotOffered {
		t.Fatalf("pick of a card not offered: %v", err)
	}
	// Counter-clockwise: 1, 0, 3 (2 is a saboteur), 1.
	act(t, s, 0, Action{Kind: KindPick, Target: 2})
	if s.cur != 3 {
		t.Fatalf("third picker %d", s.cur)
	}
	act(t, s, 3, Action{Kind: KindPick, Target: 1})
	act(t, s, 1, Action{Kind: KindPick, Target: 1})
	if !slices.Equal(s.nuggets, []int{2, 4, 0, 1}) || s.round != 2 || s.cur != 2 || len(s.goldDeck) != 3 {
		t.Fatalf("nuggets %v round %d cur %d deck %v", s.nuggets, s.round, s.cur, s.goldDeck)
	}
}

func TestClassicPickingStartsWithADigger(t *testing.T) {
	// A saboteur reaching the gold: picking starts with the next digger counter-clockwise.
	s := newTable(t, true, []uint8{roleDigger, roleDigger, roleSaboteur, roleDigger}, goldMiddle)
	road(t, s)
	connect(t, s, 2)
	if s.cur != 1 || !slices.Equal(s.last.winners, []int{0, 1, 3}) {
		t.Fatalf("first picker %d winners %v", s.cur, s.last.winners)
	}
}

func TestClassicSaboteursWin(t *testing.T) {
	for _, tc := range []struct {
		roles []uint8
		each  int
	}{
		{[]uint8{roleSaboteur, roleDigger, roleDigger}, 4},
		{[]uint8{roleSaboteur, roleSaboteur, roleDigger, roleDigger, roleDigger}, 3},
		{[]uint8{roleSaboteur, roleSaboteur, roleSaboteur, roleDigger, roleDigger, roleDigger, roleDigger}, 3},
		{[]uint8{roleSaboteur, roleSaboteur, roleSaboteur, roleSaboteur, roleDigger, roleDigger, roleDigger, roleDigger, roleDigger, roleDigger}, 2},
	} {
		s := newTable(t, true, tc.roles, goldMiddle)
		exhaust(t, s, 1)
		for i, r := range tc.roles {
			want := 0
			if r == roleSaboteur {
				want = tc.each
			}
			if s.nuggets[i] != want {
				t.Errorf("%d players: seat %d has %d, want %d", len(tc.roles), i, s.nuggets[i], want)
			}
		}
	}
}

func TestThreeRoundsThenOver(t *testing.T) {
	s := newTable(t, false, []uint8{roleBlue, roleBoss, roleProfiteer, roleSaboteur}, goldMiddle)
	for r := 1; r <= 3; r++ {
		copy(s.roles, []uint8{roleBlue, roleBoss, roleProfiteer, roleSaboteur})
		exhaust(t, s, 0)
	}
	if !s.over || s.phase != phaseOver {
		t.Fatal("game should be over after three rounds")
	}
	out, ok := Game{}.Outcome(s)
	if !ok || out.Results[3].Rank != 1 || out.Results[3].Score != 12 || !out.Results[3].Winner || out.Results[2].Rank != 2 || out.Results[0].Rank != 3 {
		t.Fatalf("outcome %v", out)
	}
	if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: 0, Action: Action{Kind: KindDiscard, N: 1}, At: t0}); err == nil || err.(*engine.Violation).Code != engine.CodeGameOver {
		t.Fatalf("after the end: %v", err)
	}
}
