package engine

import (
	"runtime/debug"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
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

// TestLabelsRandomGames labels every legal action of every seat at every state of random games
// (every option varied, random timeouts) and every event they make.
func TestLabelsRandomGames(t *testing.T) {
	games := 3000
	if raceEnabled || testing.Short() {
		games = 300
	}
	p := enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05}
	enginetest.CheckLabels(t, p, Game{}, games, randomConfig)
}

func TestActionLabels(t *testing.T) {
	g := Game{}
	s := build(t, table{seats: 3, rows: [][]uint8{{1, AssJoker, 7, 4}, {8, 7, 6, 7}, {9, 9, 9, 10}}, pile: []uint8{5}, disc: []uint8{7}})
	// Seat 2 starts (turns go by descending seat); seat 0 knows its 1 and the Ass Joker, and
	// seat 1's first two cards.
	for _, sl := range []int{0, 1, 2} {
		s.known[s.rows[0][sl]] |= bit(0)
	}
	s.known[s.rows[1][0]] |= bit(0)
	s.known[s.rows[1][1]] |= bit(0)
	s.known[s.rows[1][3]] |= bit(1)
	want := map[Action]string{
		Throw(0, 7, s.turn, 0):    "throw your 1 in slot 1 onto the 7",
		Throw(0, 7, s.turn, 3):    "throw your unknown card in slot 4 onto the 7",
		Throw(1, 7, s.turn, 1):    "throw {seat:1}'s 7 in slot 2 onto the 7 (then give them a card of yours)",
		Throw(1, 7, s.turn, 0):    "throw {seat:1}'s 8 in slot 1 onto the 7 (then give them a card of yours)",
		{Kind: KindCall}:          "call sabai sabai",
		Throw(0, 7, s.turn, 1):    "throw your Ass Joker in slot 2 onto the 7",
		Throw(0, 7, s.turn, 2):    "throw your 7 in slot 3 onto the 7",
		Throw(1, 7, s.turn, 1, 3): "throw {seat:1}'s cards in slots 2 and 4 onto the 7 (then give them a card of yours)",
	}
	for a, w := range want {
		if got := g.DescribeAction(s, 0, a); got != w {
			t.Errorf("%+v: %q, want %q", a, got, w)
		}
	}
	if got := g.DescribeAction(s, 1, Throw(1, 7, s.turn, 1, 3)); got != "throw your 2 cards in slots 2 and 4 onto the 7" {
		t.Errorf("a throw of several: %q", got)
	}

	// Seat 0's turn: the drawn card, kept or played.
	s.cur = 0
	if got := g.DescribeAction(s, 0, Action{Kind: KindDraw}); got != "draw a card" {
		t.Errorf("draw: %q", got)
	}
	do(t, s, 0, Action{Kind: KindDraw})
	d := "5"
	for a, w := range map[Action]string{
		{Kind: KindPlay}:          "play the " + d + " you drew",
		{Kind: KindKeep, Slot: 0}: "keep the " + d + " in slot 1, discarding the 1 there",
		{Kind: KindKeep, Slot: 3}: "keep the " + d + " in slot 4, discarding the unknown card there",
		{Kind: KindKeep, Slot: 1}: "keep the " + d + " in slot 2: the Ass Joker there is shown and stays, the " + d + " is played",
	} {
		if got := g.DescribeAction(s, 0, a); got != w {
			t.Errorf("%+v: %q, want %q", a, got, w)
		}
	}
}

func TestResolveLabels(t *testing.T) {
	g := Game{}
	s := build(t, table{seats: 3, rows: [][]uint8{{1, 2, 3, 4}, {Spy, 5, Spy, Switch}, {7, 8, 9, 10}}, disc: []uint8{Spy}})
	s.known[s.rows[1][1]] |= bit(1)
	s.known[s.rows[0][0]] |= bit(1)
	do(t, s, 1, throwAt(s, 1, 0))
	for a, w := range map[Action]string{
		{Kind: KindResolve, Target: 0, TargetSlot: 0}: "spy on {seat:0}'s 1 in slot 1",
		{Kind: KindResolve, Target: 2, TargetSlot: 3}: "spy on {seat:2}'s card in slot 4",
	} {
		if got := g.DescribeAction(s, 1, a); got != w {
			t.Errorf("%+v: %q, want %q", a, got, w)
		}
	}
	s.queue[0].kind = effSwitch
	if got := g.DescribeAction(s, 1, Action{Kind: KindResolve, Slot: 1, Target: 2, TargetSlot: 0}); got != "switch your 5 in slot 2 with {seat:2}'s card in slot 1" {
		t.Errorf("switch: %q", got)
	}
	s.queue[0].kind = effGive
	if got := g.DescribeAction(s, 1, Action{Kind: KindResolve, Slot: 2, Target: 0}); got != "give your card in slot 3 to {seat:0}" {
		t.Errorf("give: %q", got)
	}
	s.queue[0] = effect{exec: 1, kind: effGiveBack, to: 2}
	if got := g.DescribeAction(s, 1, Action{Kind: KindResolve, Slot: 1}); got != "give your 5 in slot 2 to {seat:2} in return" {
		t.Errorf("give back: %q", got)
	}
	s.queue[0].kind = effPeek
	if got := g.DescribeAction(s, 1, Action{Kind: KindResolve, Slot: 3}); got != "peek at your card in slot 4" {
		t.Errorf("peek: %q", got)
	}
	s.noseOpen = true
	if got := g.DescribeAction(s, 1, Action{Kind: KindTouchNose}); got != "touch your nose" {
		t.Errorf("nose: %q", got)
	}
}

func TestEventLabels(t *testing.T) {
	one := uint32(1)
	for _, c := range []struct {
		ev   proto.Message
		want string
	}{
		{&pb.RoundStarted{Round: 2, Dealer: 1, Starter: 0, DrawSize: 49},
			"round 2: {seat:1} deals four cards face down to each player, {seat:0} starts; 49 cards in the draw pile"},
		{&pb.RoundStarted{Round: 5, Dealer: 0, Starter: 3, FinalRound: true, DrawSize: 45},
			"round 5, the final round (no sabai sabai call): {seat:0} deals four cards face down to each player, {seat:3} starts; 45 cards in the draw pile"},
		{&pb.PeekAtStart{Slots: []uint32{0, 1}, Cards: []uint32{7, Joker}}, "you see your cards at the deal: slot 1: 7, slot 2: joker"},
		{&pb.TurnStarted{Seat: 2, Turn: 9}, "{seat:2}'s turn"},
		{&pb.Drew{Seat: 2}, "{seat:2} draws a card"},
		{&pb.DrewCard{Card: Spy}, "you drew a 12 (spy)"},
		{&pb.DrewCard{Card: 8}, "you drew an 8"},
		{&pb.AssJokerAdded{Seat: 2, Slot: 4}, "{seat:2} must add the drawn card to their row face down (slot 5); their turn ends"},
		{&pb.Played{Seat: 2, Card: Peek}, "{seat:2} plays an 11 (peek)"},
		{&pb.Kept{Seat: 2, Slot: 0, Discarded: Joker}, "{seat:2} keeps the drawn card in slot 1 and discards the joker that was there"},
		{&pb.DiscardPending{Seat: 2}, "{seat:2} has chosen; their discard lands when the throw window closes"},
		{&pb.AssJokerRevealed{Seat: 2, Slot: 1}, "{seat:2} tries to replace the Ass Joker in slot 2: it is shown and stays, and the drawn card is played"},
		{&pb.Thrown{Thrower: 1, Owner: 1, Slots: []uint32{2, 0}, Cards: []uint32{7, 7}}, "{seat:1} throws their 7 and 7 from slots 3 and 1"},
		{&pb.Thrown{Thrower: 1, Owner: 3, Slots: []uint32{0}, Cards: []uint32{AssJoker}}, "{seat:1} throws {seat:3}'s Ass Joker from slot 1"},
		{&pb.WrongThrow{Thrower: 0, Owner: 0, Slots: []uint32{1}, Cards: []uint32{6}}, "{seat:0} throws their 6 from slot 2: wrong, it goes back"},
		{&pb.EffectQueued{Effect: &pb.PendingEffect{Executor: 1, Effect: pb.Effect_EFFECT_SWITCH}}, "{seat:1} is to switch one of their cards with another player's"},
		{&pb.EffectQueued{Effect: &pb.PendingEffect{Executor: 1, Effect: pb.Effect_EFFECT_GIVE_BACK, ToSeat: 3}}, "{seat:1} is to give one of their cards to {seat:3} in return"},
		{&pb.Peeked{Seat: 1, Slot: 2}, "{seat:1} peeks at their card in slot 3"},
		{&pb.PeekResult{Slot: 2, Card: Joker}, "you see a joker in your slot 3"},
		{&pb.Spied{Seat: 1, TargetSeat: 0, TargetSlot: 3}, "{seat:1} spies on {seat:0}'s card in slot 4"},
		{&pb.SpyResult{TargetSeat: 0, TargetSlot: 3, Card: AssJoker}, "you see the Ass Joker in {seat:0}'s slot 4"},
		{&pb.Gave{From: 1, FromSlot: 0, To: 2, ToSlot: 4}, "{seat:1} gives their card in slot 1 to {seat:2} (now their slot 5)"},
		{&pb.Gave{From: 1, FromSlot: 0, To: 2, ToSlot: 1, GiveBack: true}, "{seat:1} gives in return their card in slot 1 to {seat:2} (now their slot 2)"},
		{&pb.Switched{Seat: 1, OwnSlot: 0, Other: 2, OtherSlot: 3}, "{seat:1} switches their card in slot 1 with {seat:2}'s in slot 4"},
		{&pb.EffectSkipped{Effect: &pb.PendingEffect{Executor: 1, Effect: pb.Effect_EFFECT_GIVE}}, "{seat:1}'s give does nothing: there is no card to choose"},
		{&pb.PenaltyCard{Seat: 0, Slot: 4, Reason: pb.PenaltyReason_PENALTY_REASON_WRONG_THROW, Drawn: true}, "{seat:0} draws a penalty card for a wrong throw face down into slot 5"},
		{&pb.PenaltyCard{Seat: 0, Reason: pb.PenaltyReason_PENALTY_REASON_NOSE}, "{seat:0} owes a penalty card for touching their nose last, but none is left to draw"},
		{&pb.Reshuffled{DrawSize: 30}, "the discard pile but its top card is shuffled into a new draw pile of 30 cards"},
		{&pb.NoseWindowOpened{Card: 9}, "four 9s lie together: everybody touch your nose!"},
		{&pb.NoseTouched{Seat: 3}, "{seat:3} touches their nose"},
		{&pb.NoseWindowClosed{Penalized: []uint32{2}}, "the nose window closes: {seat:2} draws a penalty card"},
		{&pb.NoseWindowClosed{Penalized: []uint32{0, 2, 3}, ByDeadline: true}, "time is up for the nose: {seat:0}, {seat:2} and {seat:3} draw a penalty card each"},
		{&pb.SabaiSabaiCalled{Seat: 1, LastTurnSeat: 2}, "{seat:1} calls sabai sabai: the round ends after {seat:2}'s turn"},
		{&pb.RoundEnded{Round: 3, Results: []*pb.SeatRound{
			{Seat: 0, Cards: []uint32{1, Joker}, CardPoints: -3, VictoryPointChange: 1, VictoryPoints: 2},
			{Seat: 1, Cards: []uint32{AssJoker, 9}, CardPoints: 9, VictoryPointChange: -1, VictoryPoints: -1, AssJoker: true},
			{Seat: 2, CardPoints: 0, VictoryPoints: 0},
		}}, "round 3 ends: {seat:0} 1, joker = -3 points, +1 victory point (2 in all); " +
			"{seat:1} Ass Joker, 9 = 9 points, holds the Ass Joker, -1 victory point (-1 in all); {seat:2} no cards = 0 points (0 in all)"},
		{&pb.GameEnded{Winners: []uint32{0, 2}}, "game over: {seat:0} and {seat:2} share the win"},
		{&pb.GameEnded{Winners: []uint32{1}, HallOfFame: &one}, "game over: {seat:1} holds the four jokers and enters the Hall of Fame: {seat:1} wins"},
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
