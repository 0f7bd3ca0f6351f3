package engine

import (
	"slices"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// refuse applies an action by seat (giving it a played card) and requires the violation code.
func refuse(t *testing.T, s *State, seat int, a Action, code string) {
	t.Helper()
	if a.Kind == KindPlay || a.Kind == KindPlace {
		s.hands[seat] = append(s.hands[seat], a.Card)
		defer s.take(seat, a.Card)
	}
	if s.phase == phaseTurn {
		s.cur = seat
	}
	_, err := (Game{}).Apply(s, engine.Move[Action]{Seat: seat, Action: a, At: t0})
	v, ok := err.(*engine.Violation)
	if !ok || v.Code != code {
		t.Fatalf("seat %d %+v: got %v, want %s", seat, a, err, code)
	}
}

func applyEvents(t *testing.T, s *State, seat int, a Action) []engine.Event {
	t.Helper()
	s.hands[seat] = append(s.hands[seat], a.Card)
	s.cur = seat
	evs, err := (Game{}).Apply(s, engine.Move[Action]{Seat: seat, Action: a, At: t0})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestToolCards(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	act(t, s, 0, Action{Kind: KindPlay, Card: cBreakPick, Target: 1})
	refuse(t, s, 2, Action{Kind: KindPlay, Card: cBreakPick, Target: 1}, CodeAlreadyInFront)
	act(t, s, 2, Action{Kind: KindPlay, Card: cBreakCart, Target: 1})
	act(t, s, 3, Action{Kind: KindPlay, Card: cBreakLantern, Target: 3}) // on oneself
	refuse(t, s, 0, Action{Kind: KindPlay, Card: cRepairLantern, Target: 1}, CodeNotInFront)
	refuse(t, s, 0, Action{Kind: KindPlay, Card: cRepairLC, Target: 1, Tool: uint8(pb.Tool_TOOL_PICK)}, CodeBadTool)
	refuse(t, s, 0, Action{Kind: KindPlay, Card: cRepairLC, Target: 1, Tool: uint8(pb.Tool_TOOL_LANTERN)}, CodeNotInFront)
	act(t, s, 0, Action{Kind: KindPlay, Card: cRepairPC, Target: 1, Tool: uint8(pb.Tool_TOOL_CART)})
	if s.front[1] != frontPick {
		t.Fatalf("front %b", s.front[1])
	}
	act(t, s, 0, Action{Kind: KindPlay, Card: cRepairPick, Target: 1})
	if s.front[1] != 0 || count(s.spent, cBreakCart) != 1 || count(s.spent, cBreakPick) != 1 {
		t.Fatalf("front %b spent %v", s.front[1], s.spent)
	}
	// Legal lists the double repair once per tool it can mend.
	s.cur = 0
	s.hands[0] = []uint8{cRepairPL}
	s.front[2] = frontPick | frontLantern
	legal := Game{}.Legal(s, 0, nil)
	plays := 0
	for _, a := range legal {
		if a.Kind == KindPlay {
			plays++
		}
	}
	if plays != 3 { // seat 2 pick, seat 2 lantern, seat 3 lantern
		t.Fatalf("double repair plays %d in %v", plays, legal)
	}
}

func TestMapIsPrivate(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	evs := applyEvents(t, s, 2, Action{Kind: KindPlay, Card: cMap, X: GoalX, Y: 0})
	var private int
	for _, e := range evs {
		if m, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_MapResult); ok {
			private++
			if e.To != 2 || m.MapResult.Card != pb.Card_CARD_GOAL_GOLD {
				t.Fatalf("map result %v to %d", m, e.To)
			}
		}
	}
	if private != 1 {
		t.Fatal("no map result")
	}
	if s.view(2).Board[2].Card != pb.Card_CARD_GOAL_GOLD || s.view(1).Board[2].Card != 0 || s.view(-1).Board[2].Card != 0 {
		t.Fatal("map knowledge shown to the wrong viewers")
	}
	refuse(t, s, 2, Action{Kind: KindPlay, Card: cMap, X: 7, Y: 0}, CodeNotAGoal)
}

func TestInspectionAndSwapHats(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	refuse(t, s, 0, Action{Kind: KindPlay, Card: cInspection, Target: 0}, CodeBadTarget)
	evs := applyEvents(t, s, 0, Action{Kind: KindPlay, Card: cInspection, Target: 2})
	for _, e := range evs {
		if r, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_InspectionResult); ok && (e.To != 0 || r.InspectionResult.Role != pb.Role_ROLE_SABOTEUR) {
			t.Fatalf("inspection %v to %d", r, e.To)
		}
	}
	if s.view(0).SeatInfo[2].Role != pb.Role_ROLE_SABOTEUR || s.view(1).SeatInfo[2].Role != 0 {
		t.Fatal("inspection shown to the wrong viewer")
	}
	unused := len(s.aside)
	s.aside = []uint8{roleGeologist}
	evs = applyEvents(t, s, 1, Action{Kind: KindPlay, Card: cSwapHats, Target: 2})
	if s.roles[2] != roleGeologist || len(s.aside) != 0 || !slices.Equal(s.roleOut, []uint8{roleSaboteur}) {
		t.Fatalf("roles %v aside %v out %v (unused was %d)", s.roles, s.aside, s.roleOut, unused)
	}
	if s.view(0).SeatInfo[2].Role != 0 {
		t.Fatal("a stale inspection is still shown")
	}
	for _, e := range evs {
		if r, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_RoleDealt); ok && (e.To != 2 || r.RoleDealt.Role != pb.Role_ROLE_GEOLOGIST) {
			t.Fatalf("new role %v to %d", r, e.To)
		}
	}
	refuse(t, s, 1, Action{Kind: KindPlay, Card: cSwapHats, Target: 1}, CodeNoUnusedRole)
}

func TestSwapHand(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	s.hands[0] = []uint8{1, 2, 3}
	s.hands[1] = []uint8{4, 5, 6, 7, 8, 9, 10}
	pile := len(s.pile)
	refuse(t, s, 0, Action{Kind: KindPlay, Card: cSwapHand, Target: 0}, CodeBadTarget)
	act(t, s, 0, Action{Kind: KindPlay, Card: cSwapHand, Target: 1})
	if len(s.hands[0]) != 7 || len(s.hands[1]) != 4 || len(s.pile) != pile-1 || !slices.Equal(s.hands[1][:3], []uint8{1, 2, 3}) {
		t.Fatalf("hands %v / %v", s.hands[0], s.hands[1])
	}
}

func TestTrappedTheftAndHandsOff(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	act(t, s, 0, Action{Kind: KindPlay, Card: cTrapped, Target: 1})
	refuse(t, s, 2, Action{Kind: KindPlay, Card: cTrapped, Target: 1}, CodeAlreadyInFront)
	refuse(t, s, 1, Action{Kind: KindPlay, Card: cTheft, Target: 1}, CodeTrapped)
	refuse(t, s, 2, Action{Kind: KindPlay, Card: cFree, Target: 2}, CodeNotInFront)
	act(t, s, 2, Action{Kind: KindPlay, Card: cFree, Target: 1})
	if s.front[1] != 0 {
		t.Fatal("still trapped")
	}
	act(t, s, 1, Action{Kind: KindPlay, Card: cTheft, Target: 1})
	refuse(t, s, 1, Action{Kind: KindPlay, Card: cHandsOff, Target: 1}, CodeNotInFront)
	refuse(t, s, 0, Action{Kind: KindPlay, Card: cHandsOff, Target: 2}, CodeNotInFront)
	act(t, s, 0, Action{Kind: KindPlay, Card: cHandsOff, Target: 1})
	if s.front[1] != 0 || count(s.spent, cTheft) != 1 || count(s.spent, cHandsOff) != 1 {
		t.Fatalf("front %b spent %v", s.front[1], s.spent)
	}
}

func TestTurnOptions(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	s.hands[0] = []uint8{1, 1, 2, 3, 4, 5}
	s.front[0] = frontLantern | frontTrapped
	pile := len(s.pile)
	// Discard two to remove a card in front of oneself, draw one.
	refuse(t, s, 0, Action{Kind: KindRemove, N: 2, Cards: [3]uint8{1, 6}, InFront: cTrapped}, CodeNotInHand)
	refuse(t, s, 0, Action{Kind: KindRemove, N: 2, Cards: [3]uint8{1, 1}, InFront: cBreakCart}, CodeNotInFront)
	act(t, s, 0, Action{Kind: KindRemove, N: 2, Cards: [3]uint8{1, 1}, InFront: cTrapped})
	if s.front[0] != frontLantern || len(s.hands[0]) != 5 || len(s.pile) != pile-1 {
		t.Fatalf("front %b hand %v", s.front[0], s.hands[0])
	}
	// Discard three, draw three.
	h := slices.Clone(s.hands[0][:3])
	act(t, s, 0, Action{Kind: KindDiscard, N: 3, Cards: [3]uint8{h[0], h[1], h[2]}})
	if len(s.hands[0]) != 5 || len(s.pile) != pile-4 {
		t.Fatalf("hand %v pile %d", s.hands[0], len(s.pile))
	}
	// Classic: one card only, and no removal unless the option is on.
	s = newTable(t, true, []uint8{roleDigger, roleSaboteur, roleDigger}, goldMiddle)
	s.hands[0] = []uint8{1, 2, 3}
	s.front[0] = frontPick
	refuse(t, s, 0, Action{Kind: KindDiscard, N: 2, Cards: [3]uint8{1, 2}}, engine.CodeBadAction)
	refuse(t, s, 0, Action{Kind: KindRemove, N: 2, Cards: [3]uint8{1, 2}, InFront: cBreakPick}, CodeNotAllowed)
	s.discard2 = true
	act(t, s, 0, Action{Kind: KindRemove, N: 2, Cards: [3]uint8{1, 2}, InFront: cBreakPick})
	if s.front[0] != 0 {
		t.Fatal("broken pick not removed")
	}
}

func TestSkipPlayersWithoutCards(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	s.pile = s.pile[:0]
	s.hands[1], s.hands[2] = nil, nil
	s.hands[0] = []uint8{1, 2}
	s.cur = 0
	evs, err := (Game{}).Apply(s, engine.Move[Action]{Seat: 0, Action: Action{Kind: KindDiscard, N: 1, Cards: [3]uint8{1}}, At: t0})
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, e := range evs {
		if _, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_Skipped); ok {
			skipped++
		}
	}
	if s.cur != 3 || skipped != 2 {
		t.Fatalf("cur %d skipped %d", s.cur, skipped)
	}
	_, err = (Game{}).Apply(s, engine.Move[Action]{Seat: 1, Action: Action{Kind: KindDiscard, N: 1, Cards: [3]uint8{1}}, At: t0})
	if v, ok := err.(*engine.Violation); !ok || v.Code != engine.CodeNotYourTurn {
		t.Fatalf("out of turn: %v", err)
	}
}

func TestTimeouts(t *testing.T) {
	g := Game{}
	s, _, err := g.Setup(engine.Config{Seats: 3, Seed: 5, Options: &pb.Options{}, TurnTime: time.Minute, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := g.Deadline(s)
	if !ok || !d.Equal(t0.Add(time.Minute)) {
		t.Fatalf("deadline %v", d)
	}
	if _, err := g.Timeout(s, t0); err == nil || err.(*engine.Violation).Code != engine.CodeTooEarly {
		t.Fatalf("early timeout: %v", err)
	}
	lowest := slices.Min(s.hands[0])
	n := count(s.hands[0], lowest)
	if _, err := g.Timeout(s, d); err != nil {
		t.Fatal(err)
	}
	if s.cur != 1 || count(s.spent, lowest) != 1 || (count(s.hands[0], lowest) != n-1 && s.hands[0][len(s.hands[0])-1] != lowest) {
		t.Fatalf("timeout did not discard the lowest card: spent %v", s.spent)
	}
	// Theft phase: the richest other seat is robbed.
	s.phase, s.cur = phaseTheft, 0
	s.thieves = []int{0}
	s.nuggets = []int{0, 2, 5}
	if _, err := g.Timeout(s, d.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.nuggets, []int{1, 2, 4}) {
		t.Fatalf("nuggets %v", s.nuggets)
	}
	s2, _, _ := g.Setup(engine.Config{Seats: 3, Seed: 5, Options: &pb.Options{}, Start: t0})
	if _, err := g.Timeout(s2, t0.Add(time.Hour)); err == nil || err.(*engine.Violation).Code != engine.CodeNoDeadline {
		t.Fatalf("timeout without a timer: %v", err)
	}
}
