package engine

import (
	"runtime/debug"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

// raceEnabled reports a test binary built with the race detector, which slows the engine about
// tenfold.
var raceEnabled = func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}()

// TestLabelsRandomGames labels every legal action of every state and every event of random games
// over both modes and every table size: uniform random players, and players that dig east so that
// the gold is reached, shared out and stolen.
func TestLabelsRandomGames(t *testing.T) {
	games := 1000
	if raceEnabled || testing.Short() {
		games = 100
	}
	diggers := make([]engine.Bot[Action], MaxSeats)
	for i := range diggers {
		diggers[i] = eastward{}
	}
	for _, c := range []struct {
		name string
		bots []engine.Bot[Action]
	}{{"uniform", nil}, {"eastward", diggers}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := enginetest.Playout[*State, Action]{Game: Game{}, Bots: c.bots, TimeoutChance: 0.05}
			enginetest.CheckLabels(t, p, Game{}, games, cfgFor)
		})
	}
}

// TestEveryCardHasAName requires a distinct name for every card, and for every path card turned,
// a different name from every other card's.
func TestEveryCardHasAName(t *testing.T) {
	seen := map[string]uint8{}
	for c := uint8(1); c < numCards; c++ {
		for _, rot := range []bool{false, true} {
			if rot && (!IsPath(c) || symmetric[c]) {
				continue
			}
			name := cardPlaced(c, rot)
			if name == "" || name == "a card" {
				t.Errorf("%v has no name", pb.Card(c))
			}
			if other, dup := seen[name]; dup && other != c {
				t.Errorf("%v and %v are both %q", pb.Card(c), pb.Card(other), name)
			}
			seen[name] = c
		}
	}
}

func TestActionLabels(t *testing.T) {
	s := newTable(t, false, fourBlue(), goldMiddle)
	lay(t, s, pb.Card_CARD_CURVE_NE, true, 1, 0)
	g := Game{}
	for _, c := range []struct {
		a    Action
		want string
	}{
		{Action{Kind: KindPlace, Card: c(pb.Card_CARD_CURVE_NE), X: 3, Y: -1}, "place curve N-E at (3, -1)"},
		{Action{Kind: KindPlace, Card: c(pb.Card_CARD_CURVE_NE), Rot: true, X: 3, Y: -1}, "place curve N-E turned to S-W at (3, -1)"},
		{Action{Kind: KindPlace, Card: c(pb.Card_CARD_T_NS_E), Rot: true, X: 1, Y: 1}, "place T N-S-E turned to N-S-W at (1, 1)"},
		{Action{Kind: KindPlace, Card: c(pb.Card_CARD_DEAD_NE), Rot: true, X: 0, Y: 1}, "place dead end N+E turned to S+W at (0, 1)"},
		{Action{Kind: KindPlace, Card: c(pb.Card_CARD_CROSSROADS), X: -1, Y: 0}, "place crossroads at (-1, 0)"},
		{Action{Kind: KindPlace, Card: c(pb.Card_CARD_DOOR_GREEN_T_EW_N), Rot: true, X: 2, Y: 0}, "place green door T N-E-W turned to E-S-W at (2, 0)"},
		{Action{Kind: KindPlay, Card: cBreakLantern, Target: 2}, "play broken lantern on {seat:2}"},
		{Action{Kind: KindPlay, Card: cRepairPick, Target: 1}, "play repair pick on {seat:1}"},
		{Action{Kind: KindPlay, Card: cRepairLC, Target: 3, Tool: uint8(pb.Tool_TOOL_CART)}, "play repair lantern or cart on {seat:3}'s cart"},
		{Action{Kind: KindPlay, Card: cRockfall, X: 1, Y: 0}, "play rockfall on the curve N-E turned to S-W at (1, 0)"},
		{Action{Kind: KindPlay, Card: cMap, X: GoalX, Y: -2}, "play map: look at the goal at (8, -2)"},
		{Action{Kind: KindPlay, Card: cInspection, Target: 3}, "play inspection: look at {seat:3}'s role"},
		{Action{Kind: KindPlay, Card: cTheft, Target: 0}, "play theft in front of yourself"},
		{Action{Kind: KindPlay, Card: cHandsOff, Target: 2}, "play hands off on {seat:2}'s theft"},
		{Action{Kind: KindPlay, Card: cSwapHats, Target: 0}, "play swap your hats on {seat:0}"},
		{Action{Kind: KindPlay, Card: cSwapHand, Target: 1}, "play swap your hand with {seat:1}"},
		{Action{Kind: KindPlay, Card: cTrapped, Target: 1}, "play trapped on {seat:1}"},
		{Action{Kind: KindPlay, Card: cFree, Target: 1}, "play free at last on {seat:1}"},
		{Action{Kind: KindRemove, N: 2, InFront: cBreakPick, Cards: [3]uint8{cMap, cRockfall}}, "remove the broken pick in front of you; discard map, rockfall"},
		{Action{Kind: KindDiscard, N: 1, Cards: [3]uint8{cMap}}, "discard map"},
		{Action{Kind: KindDiscard, N: 3, Cards: [3]uint8{cMap, cMap, c(pb.Card_CARD_BRIDGE)}}, "discard 3 cards: map, map, bridge N-S+E-W"},
		{Action{Kind: KindPick, Target: 3}, "take a gold card worth 3 nuggets"},
		{Action{Kind: KindSteal, Target: 2}, "steal a nugget from {seat:2}"},
	} {
		if got := g.DescribeAction(s, 0, c.a); got != c.want {
			t.Errorf("%+v: %q, want %q", c.a, got, c.want)
		}
	}
}

func cellAt(x, y int32) *pb.Cell { return &pb.Cell{X: x, Y: y} }

func TestEventLabels(t *testing.T) {
	for _, c := range []struct {
		ev   proto.Message
		want string
	}{
		{&pb.RoundStarted{Round: 2, FirstSeat: 3, DrawPile: 40, HandSize: 6}, "round 2 begins: 6 cards each, 40 in the pile; {seat:3} plays first"},
		{&pb.RoleDealt{Role: pb.Role_ROLE_GEOLOGIST}, "you are a geologist"},
		{&pb.HandDealt{Cards: []pb.Card{pb.Card_CARD_MAP, pb.Card_CARD_CURVE_NW}}, "your hand: map, curve N-W"},
		{&pb.PathPlaced{Seat: 1, Card: pb.Card_CARD_CURVE_NW, Cell: cellAt(2, -1), Rotated: true}, "{seat:1} places curve N-W turned to E-S at (2, -1)"},
		{&pb.GoalRevealed{Cell: cellAt(8, 2), Card: pb.Card_CARD_GOAL_COAL_NE, Rotated: true}, "the goal at (8, 2) is coal N-E turned to S-W"},
		{&pb.GoalRevealed{Cell: cellAt(8, 0), Card: pb.Card_CARD_GOAL_GOLD}, "the goal at (8, 0) is gold"},
		{&pb.ActionPlayed{Seat: 0, Card: pb.Card_CARD_BREAK_CART, TargetSeat: 2}, "{seat:0} plays broken cart on {seat:2}"},
		{&pb.ActionPlayed{Seat: 0, Card: pb.Card_CARD_REPAIR_PICK_CART, TargetSeat: 2, Tool: pb.Tool_TOOL_PICK}, "{seat:0} plays repair pick or cart on {seat:2}'s pick"},
		{&pb.ActionPlayed{Seat: 0, Card: pb.Card_CARD_ROCKFALL, Cell: cellAt(3, 0), Removed: pb.Card_CARD_BRIDGE}, "{seat:0} plays rockfall on the bridge N-S+E-W at (3, 0)"},
		{&pb.ActionPlayed{Seat: 0, Card: pb.Card_CARD_MAP, Cell: cellAt(8, -2)}, "{seat:0} looks at the goal at (8, -2) with a map"},
		{&pb.ActionPlayed{Seat: 0, Card: pb.Card_CARD_THEFT, TargetSeat: 0}, "{seat:0} lays a theft in front of them"},
		{&pb.ActionPlayed{Seat: 0, Card: pb.Card_CARD_TRAPPED, TargetSeat: 4}, "{seat:0} plays trapped on {seat:4}"},
		{&pb.MapResult{Cell: cellAt(8, -2), Card: pb.Card_CARD_GOAL_COAL_NW}, "your map shows coal N-W at (8, -2)"},
		{&pb.InspectionResult{Seat: 3, Role: pb.Role_ROLE_SABOTEUR}, "your inspection shows {seat:3} is a saboteur"},
		{&pb.HandsSwapped{Seat: 1, TargetSeat: 2}, "{seat:1} and {seat:2} swap hands"},
		{&pb.Discarded{Seat: 1, Count: 2, RemovedInFront: pb.Card_CARD_TRAPPED}, "{seat:1} discards 2 cards face down to remove the trapped in front of them"},
		{&pb.Discarded{Seat: 1, Count: 1}, "{seat:1} discards 1 card face down"},
		{&pb.Drew{Seat: 1, Count: 1}, "{seat:1} draws 1 card"},
		{&pb.Drew{Seat: 1, Count: 2, Cards: []pb.Card{pb.Card_CARD_MAP, pb.Card_CARD_THEFT}}, "{seat:1} draws map, theft"},
		{&pb.Skipped{Seat: 5}, "{seat:5} has no cards and is skipped"},
		{&pb.GoldOffered{Values: []uint32{3, 2, 1}, FirstPicker: 2}, "gold cards on offer: 3, 2, 1; {seat:2} picks first"},
		{&pb.GoldPicked{Seat: 2, Value: 1}, "{seat:2} takes a gold card worth 1 nugget"},
		{&pb.Stolen{Thief: 1, Victim: 0, Took: true}, "{seat:1} steals a nugget from {seat:0}"},
		{&pb.Stolen{Thief: 1, Victim: 1}, "{seat:1} finds nobody with a nugget to steal"},
		{&pb.RoundEnded{Result: &pb.RoundResult{Round: 1, GoldReached: true, Connector: 2,
			Roles:   []pb.Role{pb.Role_ROLE_BLUE_DIGGER, pb.Role_ROLE_SABOTEUR, pb.Role_ROLE_BOSS},
			Winners: []uint32{0, 2}, Payouts: []uint32{4, 0, 3}}},
			"round 1 ends: {seat:2} reached the gold; {seat:0} and {seat:2} win; gold: {seat:0} 4 nuggets, {seat:2} 3 nuggets; " +
				"roles: {seat:0} blue gold digger, {seat:1} saboteur, {seat:2} boss"},
		{&pb.RoundEnded{Result: &pb.RoundResult{Round: 3, Winners: []uint32{1}, Payouts: []uint32{0, 4}, Roles: []pb.Role{pb.Role_ROLE_DIGGER, pb.Role_ROLE_SABOTEUR}}},
			"round 3 ends without gold; {seat:1} wins; gold: {seat:1} 4 nuggets; roles: {seat:0} gold digger, {seat:1} saboteur"},
		{&pb.GameEnded{Nuggets: []uint32{7, 9, 9}}, "game over: {seat:1} and {seat:2} share the win; {seat:0} 7 nuggets, {seat:1} 9 nuggets, {seat:2} 9 nuggets"},
	} {
		got := Game{}.DescribeEvent(c.ev)
		if got != c.want {
			t.Errorf("%T: %q, want %q", c.ev, got, c.want)
		}
		if wrapped := (Game{}).DescribeEvent(enginetest.WrapEvent(t, &pb.Event{}, c.ev)); wrapped != got {
			t.Errorf("%T in an Event: %q, want %q", c.ev, wrapped, got)
		}
	}
}

// TestEveryEventKindHasALabel labels each kind of Event, even empty, so a kind added to the proto
// without words fails here.
func TestEveryEventKindHasALabel(t *testing.T) {
	enginetest.CheckEveryKindLabelled(t, Game{}.DescribeEvent, &pb.Event{}, &pb.Action{})
}
