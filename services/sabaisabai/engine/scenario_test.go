package engine

import (
	"errors"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// table is a hand-made state: rows of card numbers, the draw pile's top cards (top last) and the
// discard pile (top last). Every other card goes to the bottom of the draw pile.
type table struct {
	seats int
	opts  *pb.Options
	rows  [][]uint8
	pile  []uint8
	disc  []uint8
	// kinds are the seats' kinds (nil: not said, as a simulation).
	kinds []gamev1.PlayerKind
}

func build(t *testing.T, tb table) *State {
	t.Helper()
	if tb.opts == nil {
		tb.opts = &pb.Options{}
	}
	s, _, err := Game{}.Setup(engine.Config{Seats: tb.seats, Seed: 1, Options: tb.opts, Start: start, Kinds: tb.kinds})
	if err != nil {
		t.Fatal(err)
	}
	used := make([]bool, NumCards)
	take := func(n uint8) uint8 {
		for id := range uint8(NumCards) {
			if !used[id] && number(id) == n {
				used[id] = true
				return id
			}
		}
		t.Fatalf("no card %d left", n)
		return 0
	}
	for seat := range s.rows {
		s.rows[seat] = s.rows[seat][:0]
		for _, n := range tb.rows[seat] {
			s.rows[seat] = append(s.rows[seat], take(n))
		}
	}
	top := make([]uint8, 0, len(tb.pile))
	for _, n := range tb.pile {
		top = append(top, take(n))
	}
	s.disc = s.disc[:0]
	for _, n := range tb.disc {
		s.disc = append(s.disc, take(n))
	}
	// The rest lies under the named cards, the lowest plain cards on top.
	s.pile = s.pile[:0]
	for id := NumCards - 1; id >= 0; id-- {
		if !used[id] {
			s.pile = append(s.pile, uint8(id))
		}
	}
	s.pile = append(s.pile, top...)
	s.known = [NumCards]uint16{}
	for _, id := range s.disc {
		s.reveal(id)
	}
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

func at(sec int) time.Time { return start.Add(time.Duration(sec) * time.Second) }

func do(t *testing.T, s *State, seat int, a Action) []engine.Event {
	t.Helper()
	evs, err := Game{}.Apply(s, engine.Move[Action]{Seat: seat, Action: a, At: at(1)})
	if err != nil {
		t.Fatalf("seat %d %+v: %v", seat, a, err)
	}
	if err := s.validate(); err != nil {
		t.Fatalf("after seat %d %+v: %v", seat, a, err)
	}
	return evs
}

// refused applies a move that must be refused with code (and kind), leaving the state unchanged.
func refused(t *testing.T, s *State, seat int, a Action, code string, kind engine.Kind) {
	t.Helper()
	m := engine.Move[Action]{Seat: seat, Action: a, At: at(1)}
	if err := enginetest.CheckUnchangedOnError(Game{}, s, m); err != nil {
		t.Fatal(err)
	}
	_, err := Game{}.Apply(Game{}.Clone(s), m)
	var v *engine.Violation
	if !errors.As(err, &v) || v.Code != code || v.Kind != kind {
		t.Fatalf("seat %d %+v: got %v, want %s (kind %d)", seat, a, err, code, kind)
	}
}

func find[T any](evs []engine.Event, to int) (T, bool) {
	for _, e := range evs {
		if e.To != to {
			continue
		}
		if x, ok := any(e.Payload.(*pb.Event).Kind).(T); ok {
			return x, true
		}
	}
	var zero T
	return zero, false
}

func card(s *State, seat, slot int) uint8 { return number(s.rows[seat][slot]) }

func knows(s *State, who, seat, slot int) bool {
	return s.known[s.rows[seat][slot]]&bit(uint8(who)) != 0
}

func draw(t *testing.T, s *State) { do(t, s, int(s.cur), Action{Kind: KindDraw}) }

func throwAt(s *State, owner uint8, slots ...uint8) Action {
	return Throw(owner, number(s.top()), s.turn, slots...)
}

func TestSetupRefusals(t *testing.T) {
	for _, c := range []struct {
		seats int
		opts  proto.Message
		field string
	}{
		{1, nil, "seats"},
		{13, nil, "seats"},
		{4, &pb.Options{PeekAtStart: 5}, "options.peek_at_start"},
		{4, &pb.Options{Rounds: 51}, "options.rounds"},
		{4, &pb.TouchNose{}, "options"},
	} {
		_, _, err := Game{}.Setup(engine.Config{Seats: c.seats, Options: c.opts})
		var v *engine.Violation
		if !errors.As(err, &v) || v.Kind != engine.Malformed || v.Field != c.field {
			t.Errorf("seats %d options %v: got %v, want a Malformed violation on %s", c.seats, c.opts, err, c.field)
		}
	}
}

func TestDealAndTurnOrder(t *testing.T) {
	s, evs, err := Game{}.Setup(engine.Config{Seats: 5, Seed: 9, Options: &pb.Options{PeekAtStart: 2}, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	for seat := range 5 {
		if s.count(uint8(seat)) != 4 || !knows(s, seat, seat, 0) || !knows(s, seat, seat, 1) || knows(s, seat, seat, 2) {
			t.Fatalf("seat %d: deal or peek_at_start wrong", seat)
		}
		if _, ok := find[*pb.Event_PeekAtStart](evs, seat); !ok {
			t.Fatalf("seat %d got no peek event", seat)
		}
	}
	if len(s.pile) != NumCards-20 || s.cur != 0 {
		t.Fatalf("pile %d, first seat %d", len(s.pile), s.cur)
	}
	draw(t, s)
	do(t, s, 0, Action{Kind: KindKeep, Slot: 3})
	if s.cur != 4 {
		t.Fatalf("after seat 0 comes seat %d, want 4 (descending, Ruling D3)", s.cur)
	}
}

func TestPlayAndKeep(t *testing.T) {
	s := build(t, table{seats: 2, rows: [][]uint8{{5, 6, 7, 8}, {1, 2, 3, 4}}, pile: []uint8{9, 2}})
	draw(t, s)
	if s.drawn == noCard || number(s.drawn) != 2 || s.known[s.drawn] != bit(0) {
		t.Fatal("the drawn card is known to its drawer only")
	}
	v := Game{}.View(s, 1).(*pb.View)
	if v.GetDrawnCard() != 0 || !v.GetCardDrawn() {
		t.Fatal("another seat sees the drawn card")
	}
	refused(t, s, 1, Action{Kind: KindPlay}, engine.CodeNotYourTurn, engine.Illegal)
	evs := do(t, s, 0, Action{Kind: KindKeep, Slot: 1})
	if card(s, 0, 1) != 2 || !knows(s, 0, 0, 1) || number(s.top()) != 6 {
		t.Fatal("keep did not swap the card")
	}
	if k, ok := find[*pb.Event_Kept](evs, engine.Public); !ok || k.Kept.Discarded != 6 {
		t.Fatal("no Kept event")
	}
	draw(t, s) // seat 1 draws the 9
	do(t, s, 1, Action{Kind: KindPlay})
	if number(s.top()) != 9 || s.cur != 0 {
		t.Fatal("play did not discard the drawn card")
	}
}

func TestFunctionCards(t *testing.T) {
	t.Run("peek", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{5, 6, 7, 8}, {1, 2, 3, 4}, {1, 2, 3, 4}}, pile: []uint8{Peek}})
		draw(t, s)
		do(t, s, 0, Action{Kind: KindPlay})
		refused(t, s, 1, Action{Kind: KindResolve}, CodeNotExecutor, engine.Illegal)
		refused(t, s, 0, Action{Kind: KindDraw}, CodeWrongPhase, engine.Illegal)
		evs := do(t, s, 0, Action{Kind: KindResolve, Slot: 2})
		if r, ok := find[*pb.Event_PeekResult](evs, 0); !ok || r.PeekResult.Card != 7 {
			t.Fatal("no private peek result")
		}
		if _, ok := find[*pb.Event_PeekResult](evs, engine.Public); ok {
			t.Fatal("peek result sent to everybody")
		}
		if !knows(s, 0, 0, 2) || knows(s, 1, 0, 2) || s.cur != 2 {
			t.Fatal("peek knowledge or turn wrong")
		}
	})
	t.Run("spy", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{5, 6, 7, 8}, {1, 2, 3, 4}, {1, 2, 3, 4}}, pile: []uint8{Spy}})
		draw(t, s)
		do(t, s, 0, Action{Kind: KindPlay})
		refused(t, s, 0, Action{Kind: KindResolve, Target: 0, TargetSlot: 1}, CodeBadTarget, engine.Illegal)
		evs := do(t, s, 0, Action{Kind: KindResolve, Target: 2, TargetSlot: 3})
		if r, ok := find[*pb.Event_SpyResult](evs, 0); !ok || r.SpyResult.Card != 4 {
			t.Fatal("no private spy result")
		}
		if !knows(s, 0, 2, 3) || knows(s, 2, 2, 3) {
			t.Fatal("spy knowledge wrong")
		}
	})
	t.Run("give", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{5, 6, 7, 8}, {1, 2, 3, 4}, {1, 2, 3, 4}}, pile: []uint8{Give},
			opts: &pb.Options{PeekAtStart: 1}})
		s.known[s.rows[0][0]] = bit(0)
		draw(t, s)
		do(t, s, 0, Action{Kind: KindPlay})
		evs := do(t, s, 0, Action{Kind: KindResolve, Slot: 0, Target: 1})
		g, ok := find[*pb.Event_Gave](evs, engine.Public)
		if !ok || g.Gave.To != 1 || g.Gave.ToSlot != 4 {
			t.Fatal("no Gave event")
		}
		if s.count(0) != 3 || card(s, 1, 4) != 5 || !knows(s, 0, 1, 4) || knows(s, 1, 1, 4) {
			t.Fatal("the given card did not move with its knowledge")
		}
	})
	t.Run("switch", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{5, 6, 7, 8}, {1, 2, 3, 4}, {1, 2, 3, 4}}, pile: []uint8{Switch}})
		s.known[s.rows[1][0]] = bit(1)
		draw(t, s)
		do(t, s, 0, Action{Kind: KindPlay})
		do(t, s, 0, Action{Kind: KindResolve, Slot: 3, Target: 1, TargetSlot: 0})
		if card(s, 0, 3) != 1 || card(s, 1, 0) != 8 || !knows(s, 1, 0, 3) || knows(s, 0, 0, 3) {
			t.Fatal("switch did not swap the cards with their knowledge")
		}
	})
	t.Run("kept function has no effect", func(t *testing.T) {
		s := build(t, table{seats: 2, rows: [][]uint8{{Spy, 6, 7, 8}, {1, 2, 3, 4}}, pile: []uint8{1}})
		draw(t, s)
		do(t, s, 0, Action{Kind: KindKeep, Slot: 0})
		if len(s.queue) != 0 || s.cur != 1 {
			t.Fatal("a function discarded by keeping took effect")
		}
	})
	t.Run("no target does nothing", func(t *testing.T) {
		// Two gives thrown at once with one other card: the first gives it away, the second has
		// nothing to give and is skipped; then the empty row ends the round.
		s := build(t, table{seats: 2, rows: [][]uint8{{Give, Give, 9}, {1, 2, 3, 4}}, disc: []uint8{Give},
			opts: &pb.Options{Rounds: 2}})
		do(t, s, 0, throwAt(s, 0, 0, 1))
		evs := do(t, s, 0, Action{Kind: KindResolve, Slot: 2, Target: 1})
		if _, ok := find[*pb.Event_EffectSkipped](evs, engine.Public); !ok {
			t.Fatal("the second give was not skipped")
		}
		e, ok := find[*pb.Event_RoundEnded](evs, engine.Public)
		if !ok || e.RoundEnded.Results[0].CardPoints != 0 || s.vp[0] != 1 {
			t.Fatal("the empty row did not end the round")
		}
	})
}

func TestAssJoker(t *testing.T) {
	t.Run("drawn A1", func(t *testing.T) {
		s := build(t, table{seats: 2, rows: [][]uint8{{5, 6, 7, 8}, {1, 2, 3, 4}}, pile: []uint8{AssJoker}})
		evs := do(t, s, 0, Action{Kind: KindDraw})
		if _, ok := find[*pb.Event_AssJokerAdded](evs, engine.Public); !ok {
			t.Fatal("no AssJokerAdded event")
		}
		if s.count(0) != 5 || card(s, 0, 4) != AssJoker || !knows(s, 0, 0, 4) || knows(s, 1, 0, 4) {
			t.Fatal("the Ass Joker did not join the row, known to its drawer only")
		}
		if s.cur != 1 || s.drawn != noCard {
			t.Fatal("the turn did not end")
		}
	})
	t.Run("swapped A2", func(t *testing.T) {
		s := build(t, table{seats: 2, rows: [][]uint8{{5, AssJoker, 7, 8}, {1, 2, 3, 4}}, pile: []uint8{Peek}})
		draw(t, s)
		evs := do(t, s, 0, Action{Kind: KindKeep, Slot: 1})
		if _, ok := find[*pb.Event_AssJokerRevealed](evs, engine.Public); !ok {
			t.Fatal("no AssJokerRevealed event")
		}
		if card(s, 0, 1) != AssJoker || s.known[s.rows[0][1]] != s.all()|public || number(s.top()) != Peek {
			t.Fatal("the Ass Joker must stay, shown to all, and the drawn card be played")
		}
		if len(s.queue) != 1 || s.queue[0].kind != effPeek {
			t.Fatal("the played function must take effect")
		}
		sp := Game{}.View(s, engine.Spectator).(*pb.View)
		if sp.Rows[0].Slots[1].Card != AssJoker {
			t.Fatal("a spectator does not see the revealed Ass Joker")
		}
	})
	t.Run("burned on a joker", func(t *testing.T) {
		s := build(t, table{seats: 2, rows: [][]uint8{{5, AssJoker, 7, 8}, {Joker, 2, 3, 4}}, disc: []uint8{3, Joker}})
		do(t, s, 0, throwAt(s, 0, 1))
		if number(s.top()) != AssJoker || s.count(0) != 3 {
			t.Fatal("the Ass Joker was not burned")
		}
		// A joker may follow it: the Ass Joker counts as a joker for throwing.
		do(t, s, 1, throwAt(s, 1, 0))
		if number(s.top()) != Joker || s.count(1) != 3 {
			t.Fatal("a joker could not be thrown on the burned Ass Joker")
		}
	})
	t.Run("thrown on a plain card is a wrong throw", func(t *testing.T) {
		s := build(t, table{seats: 2, rows: [][]uint8{{5, AssJoker, 7, 8}, {1, 2, 3, 4}}, disc: []uint8{3}})
		do(t, s, 0, throwAt(s, 0, 1))
		if card(s, 0, 1) != AssJoker || s.count(0) != 5 {
			t.Fatal("the Ass Joker left the row on a wrong throw")
		}
	})
	t.Run("holder loses the round", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{AssJoker}, {1, 1, 1}, {9, 9}}})
		var evs []engine.Event
		s.score(&evs)
		e, _ := find[*pb.Event_RoundEnded](evs, engine.Public)
		r := e.RoundEnded.Results
		if r[0].VictoryPointChange != -1 || r[1].VictoryPointChange != 1 || r[2].VictoryPointChange != 0 {
			t.Fatalf("victory points %v %v %v", r[0].VictoryPointChange, r[1].VictoryPointChange, r[2].VictoryPointChange)
		}
	})
}

func TestThrows(t *testing.T) {
	t.Run("identical, several at once, functions in order", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{1, 2, 3, 4}, {Spy, 5, Spy, 6}, {7, 8, 9, 10}}, disc: []uint8{Spy}})
		evs := do(t, s, 1, throwAt(s, 1, 2, 0))
		th, ok := find[*pb.Event_Thrown](evs, engine.Public)
		if !ok || len(th.Thrown.Cards) != 2 || s.count(1) != 2 || len(s.disc) != 3 {
			t.Fatal("two spies were not thrown")
		}
		if len(s.queue) != 2 || s.queue[0].exec != 1 || s.queue[1].exec != 1 || s.queue[0].kind != effSpy {
			t.Fatal("each thrown spy must queue an effect executed by its thrower")
		}
		// The turn player waits for the effects.
		refused(t, s, 0, Action{Kind: KindDraw}, CodeEffectPending, engine.Illegal)
		do(t, s, 1, Action{Kind: KindResolve, Target: 0, TargetSlot: 0})
		do(t, s, 1, Action{Kind: KindResolve, Target: 2, TargetSlot: 0})
		if !knows(s, 1, 0, 0) || !knows(s, 1, 2, 0) {
			t.Fatal("spies not executed")
		}
		draw(t, s)
	})
	t.Run("stale", func(t *testing.T) {
		s := build(t, table{seats: 2, rows: [][]uint8{{5, 6, 7, 8}, {5, 2, 3, 4}}, disc: []uint8{5}})
		refused(t, s, 0, Throw(0, 6, s.turn, 0), CodeStaleThrow, engine.Stale)
		refused(t, s, 0, Throw(0, 5, s.turn+1, 0), CodeStaleThrow, engine.Stale)
		do(t, s, 1, throwAt(s, 1, 0))
		// Both aimed at the 5: the second still lands on a 5, identical.
		do(t, s, 0, Throw(0, 5, s.turn, 0))
	})
	t.Run("nothing to throw on", func(t *testing.T) {
		s := build(t, table{seats: 2, rows: [][]uint8{{5, 6, 7, 8}, {5, 2, 3, 4}}})
		refused(t, s, 0, Throw(0, 5, s.turn, 0), CodeNothingToThrowOn, engine.Illegal)
	})
	t.Run("wrong then lock then unlock", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{5, 6, 7, 8}, {9, 2, 3, 4}, {1, 1, 1, 1}}, disc: []uint8{9}})
		evs := do(t, s, 0, throwAt(s, 0, 1))
		w, ok := find[*pb.Event_WrongThrow](evs, engine.Public)
		if !ok || w.WrongThrow.Cards[0] != 6 {
			t.Fatal("no WrongThrow event showing the card")
		}
		p, ok := find[*pb.Event_PenaltyCard](evs, engine.Public)
		if !ok || !p.PenaltyCard.Drawn || s.count(0) != 5 || knows(s, 0, 0, 4) {
			t.Fatal("no unknown penalty card")
		}
		if card(s, 0, 1) != 6 || s.known[s.rows[0][1]] != s.all()|public {
			t.Fatal("the wrong card must go back, shown to all")
		}
		refused(t, s, 0, throwAt(s, 0, 0), CodeThrowLocked, engine.Illegal)
		do(t, s, 1, throwAt(s, 1, 0))
		if s.locked != 0 {
			t.Fatal("a successful throw by another seat must unlock")
		}
		s.rows[0][0], s.rows[1][1] = s.rows[1][1], s.rows[0][0]
		do(t, s, 0, throwAt(s, 0, 1)) // a wrong throw again, allowed
	})
}

func TestThrowForOthers(t *testing.T) {
	s := build(t, table{seats: 3, rows: [][]uint8{{1, 2, 3, 4}, {8, 5, 6, 7}, {9, 9, 9, 10}}, disc: []uint8{8}})
	s.known[s.rows[1][0]] = bit(0)
	s.known[s.rows[1][1]] = bit(0) | bit(1)
	s.known[s.rows[0][3]] = bit(0)
	refused(t, s, 0, throwAt(s, 1, 1), CodeOwnerPriority, engine.Illegal)
	refused(t, s, 2, throwAt(s, 1, 0), CodeNotKnown, engine.Illegal)
	evs := do(t, s, 0, throwAt(s, 1, 0))
	if _, ok := find[*pb.Event_Thrown](evs, engine.Public); !ok || s.count(1) != 3 {
		t.Fatal("the card was not thrown for seat 1")
	}
	if len(s.queue) != 1 || s.queue[0].kind != effGiveBack || s.queue[0].to != 1 {
		t.Fatal("a give back must be pending")
	}
	do(t, s, 0, Action{Kind: KindResolve, Slot: 3})
	if s.count(0) != 3 || s.count(1) != 4 || card(s, 1, 0) != 4 || !knows(s, 0, 1, 0) {
		t.Fatal("the give back did not move the chosen card")
	}

	off := build(t, table{seats: 2, rows: [][]uint8{{1, 2, 3, 4}, {8, 5, 6, 7}}, disc: []uint8{8},
		opts: &pb.Options{ThrowForOthers: proto.Bool(false)}})
	off.known[off.rows[1][0]] = bit(0)
	refused(t, off, 0, throwAt(off, 1, 0), CodeForOthersOff, engine.Illegal)
	for _, a := range (Game{}).Legal(off, 0, nil) {
		if a.Kind == KindThrow && a.Owner != 0 {
			t.Fatal("a throw for another is legal with the option off")
		}
	}

	// A wrong throw on behalf: the penalty goes to the thrower.
	w := build(t, table{seats: 2, rows: [][]uint8{{1, 2, 3, 4}, {7, 5, 6, 7}}, disc: []uint8{8}})
	w.known[w.rows[1][0]] = bit(0)
	do(t, w, 0, throwAt(w, 1, 0))
	if w.count(0) != 5 || w.count(1) != 4 || w.locked != bit(0) {
		t.Fatal("the penalty of a wrong throw on behalf goes to the thrower")
	}
}

// TestAssMove plays the rulebook's Ass move: with two 13 give, play the first and slide the
// second to another player with it, then throw it on their behalf: the give happens once more and
// a card is given back.
func TestAssMove(t *testing.T) {
	s := build(t, table{seats: 3, rows: [][]uint8{{Give, 9, 10, 8}, {1, 2, 3, 4}, {1, 2, 3, 4}}, pile: []uint8{Give}})
	s.known[s.rows[0][0]] = bit(0)
	draw(t, s)
	do(t, s, 0, Action{Kind: KindPlay})
	do(t, s, 0, Action{Kind: KindResolve, Slot: 0, Target: 1}) // slide the second 13 to seat 1
	if card(s, 1, 4) != Give || !knows(s, 0, 1, 4) || knows(s, 1, 1, 4) || s.cur != 2 {
		t.Fatal("the second 13 did not move to seat 1")
	}
	do(t, s, 0, throwAt(s, 1, 4)) // throw it for seat 1
	if len(s.queue) != 2 || s.queue[0].kind != effGive || s.queue[1].kind != effGiveBack {
		t.Fatalf("want give then give back, got %+v", s.queue)
	}
	do(t, s, 0, Action{Kind: KindResolve, Slot: 1, Target: 2})
	do(t, s, 0, Action{Kind: KindResolve, Slot: 2})
	if s.count(0) != 1 || s.count(1) != 5 || s.count(2) != 5 {
		t.Fatalf("rows %d %d %d", s.count(0), s.count(1), s.count(2))
	}
}

func fourTogether(t *testing.T, seats int) *State {
	s := build(t, table{seats: seats, rows: [][]uint8{{7, 1, 2, 3}, {7, 1, 2, 3}, {4, 5, 6, 8}, {4, 5, 6, 8}}[:seats],
		disc: []uint8{9, 7, 7}})
	do(t, s, 0, throwAt(s, 0, 0))
	if s.noseOpen {
		t.Fatal("three together open a window")
	}
	evs := do(t, s, 1, throwAt(s, 1, 0))
	o, ok := find[*pb.Event_NoseWindowOpened](evs, engine.Public)
	if !ok || !s.noseOpen || !o.NoseWindowOpened.Deadline.AsTime().Equal(at(1).Add(DefaultNoseDeadline)) {
		t.Fatal("four together did not open the nose window")
	}
	return s
}

func TestFourTogether(t *testing.T) {
	t.Run("late toucher", func(t *testing.T) {
		s := fourTogether(t, 4)
		do(t, s, 2, Action{Kind: KindTouchNose})
		refused(t, s, 2, Action{Kind: KindTouchNose}, CodeAlreadyTouched, engine.Illegal)
		do(t, s, 0, Action{Kind: KindTouchNose})
		evs := do(t, s, 3, Action{Kind: KindTouchNose})
		c, ok := find[*pb.Event_NoseWindowClosed](evs, engine.Public)
		if !ok || len(c.NoseWindowClosed.Penalized) != 1 || c.NoseWindowClosed.Penalized[0] != 1 || s.noseOpen {
			t.Fatal("the last seat must be penalized")
		}
		if s.count(1) != 4 {
			t.Fatal("no penalty card for the last seat")
		}
		refused(t, s, 1, Action{Kind: KindTouchNose}, CodeNoNoseWindow, engine.Illegal)
	})
	t.Run("deadline", func(t *testing.T) {
		s := fourTogether(t, 4)
		do(t, s, 2, Action{Kind: KindTouchNose})
		d, ok := Game{}.Deadline(s)
		if !ok || !d.Equal(at(1).Add(DefaultNoseDeadline)) {
			t.Fatalf("deadline %v %v", d, ok)
		}
		if _, err := (Game{}).Timeout(s, d.Add(-time.Millisecond)); err == nil {
			t.Fatal("timeout before the deadline accepted")
		}
		evs, err := Game{}.Timeout(s, d)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := find[*pb.Event_NoseWindowClosed](evs, engine.Public)
		if c == nil || len(c.NoseWindowClosed.Penalized) != 3 || !c.NoseWindowClosed.ByDeadline {
			t.Fatal("every seat that did not touch is penalized at the deadline")
		}
		if _, ok := (Game{}).Deadline(s); ok {
			t.Fatal("a deadline remains")
		}
	})
	t.Run("two players: the first touch closes", func(t *testing.T) {
		s := fourTogether(t, 2)
		do(t, s, 1, Action{Kind: KindTouchNose})
		if s.noseOpen || s.count(0) != 4 {
			t.Fatal("with two players the other one is last")
		}
	})
}

func TestSabaiSabaiCall(t *testing.T) {
	t.Run("at the very start", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}})
		evs := do(t, s, 1, Action{Kind: KindCall})
		c, _ := find[*pb.Event_SabaiSabaiCalled](evs, engine.Public)
		if c == nil || c.SabaiSabaiCalled.LastTurnSeat != 1 {
			t.Fatal("after a call at the start the dealer (seat 1) plays last")
		}
		refused(t, s, 2, Action{Kind: KindCall}, CodeAlreadyCalled, engine.Illegal)
		for _, seat := range []int{0, 2, 1} {
			if int(s.cur) != seat || s.round != 1 {
				t.Fatalf("turn of seat %d, want %d", s.cur, seat)
			}
			draw(t, s)
			evs = do(t, s, seat, Action{Kind: KindPlay})
		}
		e, ok := find[*pb.Event_RoundEnded](evs, engine.Public)
		if !ok || s.round != 2 {
			t.Fatal("the round did not end after the last turn")
		}
		if e.RoundEnded.Results[0].VictoryPointChange != 1 || s.vp[0] != 1 {
			t.Fatal("the lowest row did not gain a victory point")
		}
	})
	t.Run("out of turn, mid turn", func(t *testing.T) {
		s := build(t, table{seats: 3, rows: [][]uint8{{1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, pile: []uint8{9, 8, 7, 6, 5}})
		draw(t, s)
		do(t, s, 0, Action{Kind: KindPlay})
		draw(t, s)                          // seat 2 holds a card
		do(t, s, 0, Action{Kind: KindCall}) // seat 0 calls during seat 2's turn
		if s.lastSeat != 0 {
			t.Fatalf("last seat %d, want 0 (the last to have played)", s.lastSeat)
		}
		do(t, s, 2, Action{Kind: KindPlay})
		draw(t, s)
		do(t, s, 1, Action{Kind: KindPlay})
		draw(t, s)
		evs := do(t, s, 0, Action{Kind: KindPlay})
		if _, ok := find[*pb.Event_RoundEnded](evs, engine.Public); !ok {
			t.Fatal("the round did not end after seat 0's turn")
		}
	})
	t.Run("no call in the final round", func(t *testing.T) {
		s := build(t, table{seats: 2, rows: [][]uint8{{1}, {2}}, opts: &pb.Options{Rounds: 1}})
		refused(t, s, 0, Action{Kind: KindCall}, CodeFinalRound, engine.Illegal)
	})
}

func TestRoundEndsWhenRowEmptied(t *testing.T) {
	s := build(t, table{seats: 2, rows: [][]uint8{{5}, {5, 9, 9, 9}}, disc: []uint8{5}, opts: &pb.Options{Rounds: 2}})
	evs := do(t, s, 0, throwAt(s, 0, 0))
	e, ok := find[*pb.Event_RoundEnded](evs, engine.Public)
	if !ok || e.RoundEnded.Results[0].CardPoints != 0 || s.vp[0] != 1 || s.round != 2 {
		t.Fatal("emptying a row must end the round with 0 card points")
	}
	if !s.final() || s.starter != 1 {
		t.Fatalf("round 2 is final and starts after the previous starter; starter %d", s.starter)
	}
}

func TestFinalRoundGuard(t *testing.T) {
	s := build(t, table{seats: 2, rows: [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}}, opts: &pb.Options{Rounds: 1}})
	for i := 0; !s.over(); i++ {
		if i > FinalRoundCycles*2 {
			t.Fatal("the final round did not end after 30 cycles")
		}
		for s.noseOpen {
			for seat := range 2 {
				if s.touched&bit(uint8(seat)) == 0 && s.noseOpen {
					do(t, s, seat, Action{Kind: KindTouchNose})
				}
			}
		}
		if s.over() {
			break
		}
		draw(t, s)
		if !s.over() && s.drawn != noCard {
			do(t, s, int(s.cur), Action{Kind: KindPlay})
		}
		for len(s.queue) > 0 {
			l := Game{}.Legal(s, int(s.queue[0].exec), nil)
			for _, a := range l {
				if a.Kind == KindResolve {
					do(t, s, int(s.queue[0].exec), a)
					break
				}
			}
		}
	}
	if s.roundTurns != FinalRoundCycles*2 {
		t.Fatalf("ended after %d turns", s.roundTurns)
	}
}

func TestHallOfFame(t *testing.T) {
	s := build(t, table{seats: 3, rows: [][]uint8{{1}, {Joker, Joker, Joker, Joker}, {2}}})
	var evs []engine.Event
	s.score(&evs)
	o, over := Game{}.Outcome(s)
	if !over || !o.Results[1].Winner || o.Results[1].Rank != 1 || o.Results[0].Winner {
		t.Fatalf("the four jokers must win the game at once: %v", o)
	}
	if g, ok := find[*pb.Event_GameEnded](evs, engine.Public); !ok || g.GameEnded.GetHallOfFame() != 1 {
		t.Fatal("no GameEnded with the Hall of Fame")
	}
}

func TestTiesShareTheVictoryPoint(t *testing.T) {
	s := build(t, table{seats: 3, rows: [][]uint8{{3}, {1, 2}, {9}}})
	var evs []engine.Event
	s.score(&evs)
	if s.vp[0] != 1 || s.vp[1] != 1 || s.vp[2] != 0 {
		t.Fatalf("victory points %v (Ruling E2)", s.vp)
	}
}

func TestReshuffle(t *testing.T) {
	s := build(t, table{seats: 2, rows: [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}}})
	// Everything but three cards on the discard pile.
	s.disc = append(s.disc, s.pile[:len(s.pile)-1]...)
	for _, id := range s.disc {
		s.reveal(id)
	}
	s.pile = s.pile[len(s.pile)-1:]
	top := s.top()
	draw(t, s)
	do(t, s, 0, Action{Kind: KindPlay})
	evs := do(t, s, 1, Action{Kind: KindDraw})
	r, ok := find[*pb.Event_Reshuffled](evs, engine.Public)
	if !ok || len(s.disc) != 1 || r.Reshuffled.DrawSize == 0 || s.top() == top {
		t.Fatal("an empty draw pile must be refilled from the discard pile but its top")
	}
	for _, id := range s.pile {
		if s.known[id] != 0 {
			t.Fatal("reshuffled cards must be unknown")
		}
	}
}

func TestTurnTimer(t *testing.T) {
	s, _, err := Game{}.Setup(engine.Config{Seats: 2, Seed: 3, Start: start, TurnTime: 10 * time.Second,
		Options: &pb.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := Game{}.Deadline(s)
	if !ok || !d.Equal(start.Add(10*time.Second)) {
		t.Fatalf("deadline %v", d)
	}
	if _, err := (Game{}).Timeout(s, d); err != nil {
		t.Fatal(err)
	}
	if s.drawn == noCard && s.cur == 0 && s.count(0) == 4 {
		t.Fatal("the timeout did not draw")
	}
	d, _ = Game{}.Deadline(s)
	if _, err := (Game{}).Timeout(s, d); err != nil {
		t.Fatal(err)
	}
	if s.cur != 1 && len(s.queue) == 0 {
		t.Fatal("the timeout did not play the drawn card")
	}
}

// TestSpectatorSeesOnlyPublicCards: a card every seat has looked at privately is still hidden from
// spectators; a card shown to all is not.
func TestSpectatorSeesOnlyPublicCards(t *testing.T) {
	s := build(t, table{seats: 2, rows: [][]uint8{{5, 6, 7, 8}, {1, 2, 3, 4}}, disc: []uint8{9}})
	s.known[s.rows[0][0]] = s.all()
	if v := (Game{}).View(s, engine.Spectator).(*pb.View); v.Rows[0].Slots[0].Card != 0 {
		t.Fatal("a spectator sees a card only the seats looked at")
	}
	do(t, s, 1, throwAt(s, 1, 0)) // wrong: the 1 is shown to all
	if v := (Game{}).View(s, engine.Spectator).(*pb.View); v.Rows[1].Slots[0].Card != 1 || v.Rows[1].Slots[0].KnownBy != 3 {
		t.Fatal("a spectator does not see a wrong-thrown card")
	}
}

// TestRoundWaitsForNoseWindow: the last turn after a call makes four together; the round waits
// (only nose touches) and is scored once the window closes, with the late toucher's penalty.
func TestRoundWaitsForNoseWindow(t *testing.T) {
	s := build(t, table{seats: 2, rows: [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}}, disc: []uint8{9, 9, 9},
		pile: []uint8{9, AssJoker}, opts: &pb.Options{Rounds: 2}})
	do(t, s, 1, Action{Kind: KindCall}) // at the start: seat 0 plays, then seat 1 last
	draw(t, s)                          // seat 0 draws the Ass Joker: it joins the row (A1)
	draw(t, s)                          // seat 1 draws the last 9
	do(t, s, 1, Action{Kind: KindPlay})
	if s.ph != phaseEnding || !s.noseOpen {
		t.Fatal("the round must wait for the nose window")
	}
	for _, a := range (Game{}).Legal(s, 1, nil) {
		if a.Kind != KindTouchNose {
			t.Fatalf("legal while the round ends: %+v", a)
		}
	}
	refused(t, s, 1, Action{Kind: KindDraw}, CodeRoundEnding, engine.Illegal)
	refused(t, s, 0, Throw(0, 9, s.turn, 0), CodeRoundEnding, engine.Illegal)
	evs := do(t, s, 1, Action{Kind: KindTouchNose})
	e, ok := find[*pb.Event_RoundEnded](evs, engine.Public)
	if !ok || len(e.RoundEnded.Results[0].Cards) != 6 || s.round != 2 {
		t.Fatal("the round was not scored with seat 0's penalty card")
	}
	if r := e.RoundEnded.Results; !r[0].AssJoker || r[0].VictoryPointChange != -1 || r[1].VictoryPointChange != 1 {
		t.Fatal("the Ass Joker's holder must lose a victory point and the other gain one")
	}
}

// TestTimeoutResolvesEffect: with a turn timer a pending effect is resolved for its executor.
func TestTimeoutResolvesEffect(t *testing.T) {
	s := build(t, table{seats: 3, rows: [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}, {1, 2, 3, 4}}, pile: []uint8{Give},
		opts: &pb.Options{TurnTime: durationpb.New(5 * time.Second)}})
	draw(t, s)
	do(t, s, 0, Action{Kind: KindPlay})
	d, ok := Game{}.Deadline(s)
	if !ok || !d.Equal(at(1).Add(5*time.Second)) {
		t.Fatalf("deadline %v", d)
	}
	evs, err := Game{}.Timeout(s, d)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := find[*pb.Event_Gave](evs, engine.Public)
	if !ok || g.Gave.From != 0 || g.Gave.FromSlot != 0 || g.Gave.To != 2 || s.cur != 2 {
		t.Fatal("the timeout did not give the first card to the next seat")
	}
}

func TestDecodeActionRefusals(t *testing.T) {
	for _, c := range []struct {
		msg  *pb.Action
		code string
	}{
		{&pb.Action{}, engine.CodeUnknownAction},
		{&pb.Action{Kind: &pb.Action_Throw{Throw: &pb.Throw{ExpectTop: 5}}}, engine.CodeBadAction},
		{&pb.Action{Kind: &pb.Action_Throw{Throw: &pb.Throw{Slots: []uint32{1, 2, 3, 4, 5}, ExpectTop: 5}}}, engine.CodeBadAction},
		{&pb.Action{Kind: &pb.Action_Throw{Throw: &pb.Throw{Slots: []uint32{1, 1}, ExpectTop: 5}}}, CodeDuplicateSlot},
		{&pb.Action{Kind: &pb.Action_Throw{Throw: &pb.Throw{Slots: []uint32{1}, ExpectTop: 17}}}, CodeBadCard},
		{&pb.Action{Kind: &pb.Action_Throw{Throw: &pb.Throw{Slots: []uint32{1}, ExpectTop: 5, Owner: 12}}}, engine.CodeBadSeat},
		{&pb.Action{Kind: &pb.Action_Keep{Keep: &pb.Keep{Slot: 61}}}, CodeNoSuchSlot},
		{&pb.Action{Kind: &pb.Action_Resolve{Resolve: &pb.Resolve{TargetSeat: 40}}}, engine.CodeBadSeat},
	} {
		_, err := Game{}.DecodeAction(c.msg)
		var v *engine.Violation
		if !errors.As(err, &v) || v.Code != c.code || v.Kind != engine.Malformed {
			t.Errorf("%v: got %v, want Malformed %s", c.msg, err, c.code)
		}
	}
	a := Throw(2, Joker, 12, 3, 1)
	back, err := Game{}.DecodeAction(Game{}.EncodeAction(a))
	if err != nil || back != a {
		t.Fatalf("round trip %+v → %+v (%v)", a, back, err)
	}
}

// legalThrow is the throw seat's legal actions offer for owner's slot alone.
func legalThrow(t *testing.T, s *State, seat int, owner, slot uint8) Action {
	t.Helper()
	for _, a := range (Game{}).Legal(s, seat, nil) {
		if a.Kind == KindThrow && a.Owner == owner && a.N == 1 && a.Slots[0] == slot {
			return a
		}
	}
	t.Fatalf("seat %d may not throw seat %d's slot %d", seat, owner, slot)
	return Action{}
}

// TestRefilledSlotRace is the race of Ruling T1 (amended): seats 0 and 2 both know the 8 in seat
// 1's slot 0 and both aim at it for seat 1. Seat 0's throw arrives first; its give back refills
// slot 0 with a 5 that seat 2 knows too, and the top is still an 8. Seat 2's throw, aimed at the 8,
// must be refused as stale, not judged against the 5 (a wrong throw and a penalty it never meant).
func TestRefilledSlotRace(t *testing.T) {
	s := build(t, table{seats: 3, rows: [][]uint8{{5, 2, 3, 4}, {8, 6, 7, 9}, {1, 1, 2, 2}}, disc: []uint8{8}})
	s.known[s.rows[1][0]] = bit(0) | bit(2)
	s.known[s.rows[0][0]] = bit(0) | bit(2)
	mine, theirs := legalThrow(t, s, 0, 1, 0), legalThrow(t, s, 2, 1, 0)
	if theirs.Cards[0] != 8 || mine.Cards[0] != 8 {
		t.Fatalf("legal throws must name the card aimed at: %+v", theirs)
	}
	do(t, s, 0, mine)
	do(t, s, 0, Action{Kind: KindResolve, Slot: 0}) // the 5 goes back into seat 1's slot 0
	if card(s, 1, 0) != 5 || !knows(s, 2, 1, 0) || number(s.top()) != 8 {
		t.Fatal("the give back did not refill slot 0 with the 5")
	}
	refused(t, s, 2, theirs, CodeStaleThrow, engine.Stale)

	// The same for one's own row: seat 1 aims at its 8 in slot 0, which a switch moved away.
	o := build(t, table{seats: 2, rows: [][]uint8{{5, 2, 3, 4}, {8, 6, 7, 9}}, disc: []uint8{8}})
	o.known[o.rows[1][0]] = bit(1)
	aimed := legalThrow(t, o, 1, 1, 0)
	o.rows[0][0], o.rows[1][0] = o.rows[1][0], o.rows[0][0]
	refused(t, o, 1, aimed, CodeStaleThrow, engine.Stale)
	// A card named that the thrower does not know is stale too, whatever lies there: a named
	// card cannot probe unknown cards.
	refused(t, o, 1, Throw(1, 8, o.turn, 1).Aimed(6), CodeStaleThrow, engine.Stale)
	// Named and right: thrown; blind throws are judged as before.
	o.known[o.rows[1][0]] |= bit(1)
	refused(t, o, 1, Throw(1, 8, o.turn, 0).Aimed(8), CodeStaleThrow, engine.Stale)
	evs := do(t, o, 1, Throw(1, 8, o.turn, 0).Aimed(5))
	if _, ok := find[*pb.Event_WrongThrow](evs, engine.Public); !ok {
		t.Fatal("a named wrong card is still a wrong throw")
	}
}

func TestAimedThrowCodec(t *testing.T) {
	g := Game{}
	a := Throw(1, 8, 3, 0, 2).Aimed(8, 0)
	b, err := g.DecodeAction(g.EncodeAction(a))
	if err != nil || b != a {
		t.Fatalf("round trip: %+v, %v", b, err)
	}
	if m := g.EncodeAction(Throw(1, 8, 3, 0)).(*pb.Action); len(m.GetThrow().GetExpectCards()) != 0 {
		t.Fatal("a blind throw names no cards")
	}
	for _, bad := range []*pb.Throw{
		{Slots: []uint32{0, 1}, ExpectTop: 8, ExpectCards: []uint32{8}},
		{Slots: []uint32{0}, ExpectTop: 8, ExpectCards: []uint32{17}},
	} {
		_, err := g.DecodeAction(&pb.Action{Kind: &pb.Action_Throw{Throw: bad}})
		var v *engine.Violation
		if !errors.As(err, &v) || v.Kind != engine.Malformed {
			t.Fatalf("%v: got %v, want a malformed action", bad, err)
		}
	}
}

// TestThrowAcrossATurnWithoutDiscard: Ruling T1 refuses a throw as stale when the top it aimed at
// changed, not when a turn started without a discard. Seat cur plays a Give (13); while it is
// pending, seat x aims its own 13 at the top. The Give resolves and the next turn starts, the 13
// still on top: the throw is judged against it, and is right. (A throw had to name the current
// turn: through the gateway, a person's throw 300 ms after a discard was refused whenever a bot
// resolved its effect first.) A throw naming a turn before a later discard is still stale.
func TestThrowAcrossATurnWithoutDiscard(t *testing.T) {
	s := build(t, table{seats: 3, rows: [][]uint8{{13, 2, 3, 4}, {13, 6, 7, 9}, {13, 1, 2, 5}}, pile: []uint8{13}, disc: []uint8{5}})
	cur := int(s.cur)
	x := (cur + 1) % 3
	s.known[s.rows[x][0]] |= bit(uint8(x))
	do(t, s, cur, Action{Kind: KindDraw})
	do(t, s, cur, Action{Kind: KindPlay})
	if number(s.top()) != Give || len(s.queue) == 0 {
		t.Fatal("the Give did not land with its effect pending")
	}
	aimed := legalThrow(t, s, x, uint8(x), 0)
	var resolve Action
	for _, a := range (Game{}).Legal(s, cur, nil) {
		if a.Kind == KindResolve {
			resolve = a
			break
		}
	}
	if resolve.Kind == 0 {
		t.Fatal("no way to resolve the Give")
	}
	do(t, s, cur, resolve)
	if s.turn == aimed.Turn || number(s.top()) != Give {
		t.Fatalf("turn %d, top %d: want the next turn with the 13 still on top", s.turn, number(s.top()))
	}
	evs := do(t, s, x, aimed)
	if _, ok := find[*pb.Event_Thrown](evs, engine.Public); !ok {
		t.Fatalf("the throw aimed at the 13 that is still on top was not thrown: %v", evs)
	}

	// A discard after the turn a throw names buries the top it aimed at.
	o := build(t, table{seats: 3, rows: [][]uint8{{5, 2, 3, 4}, {5, 6, 7, 9}, {5, 1, 2, 3}}, pile: []uint8{6, 6}, disc: []uint8{5}})
	y := (int(o.cur) + 2) % 3
	o.known[o.rows[y][0]] |= bit(uint8(y))
	old := legalThrow(t, o, y, uint8(y), 0)
	for range 2 { // two turns, each keeping the 6 drawn and discarding the 5 of slot 0
		c := int(o.cur)
		do(t, o, c, Action{Kind: KindDraw})
		do(t, o, c, Action{Kind: KindKeep, Slot: 0})
	}
	if number(o.top()) != 5 || o.turn != old.Turn+2 {
		t.Fatalf("turn %d, top %d: want two turns later, a 5 on top", o.turn, number(o.top()))
	}
	refused(t, o, y, old, CodeStaleThrow, engine.Stale)
}
