package engine

import (
	"errors"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/types/known/durationpb"
)

const (
	person = gamev1.PlayerKind_PLAYER_KIND_HUMAN
	robot  = gamev1.PlayerKind_PLAYER_KIND_BOT
)

var t0 = start.Add(time.Minute)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

func doAt(t *testing.T, s *State, seat int, a Action, when time.Time) []engine.Event {
	t.Helper()
	evs, err := Game{}.Apply(s, engine.Move[Action]{Seat: seat, Action: a, At: when})
	if err != nil {
		t.Fatalf("seat %d %+v at %v: %v", seat, a, when.Sub(t0), err)
	}
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	return evs
}

func refusedAt(t *testing.T, s *State, seat int, a Action, when time.Time, code string) {
	t.Helper()
	m := engine.Move[Action]{Seat: seat, Action: a, At: when}
	if err := enginetest.CheckUnchangedOnError(Game{}, s, m); err != nil {
		t.Fatal(err)
	}
	_, err := Game{}.Apply(Game{}.Clone(s), m)
	var v *engine.Violation
	if !errors.As(err, &v) || v.Code != code {
		t.Fatalf("seat %d %+v at %v: got %v, want %s", seat, a, when.Sub(t0), err, code)
	}
}

func deadlineIs(t *testing.T, s *State, want time.Time) {
	t.Helper()
	if d, ok := (Game{}).Deadline(s); !ok || !d.Equal(want) {
		t.Fatalf("deadline %v (%v), want %v", d.Sub(t0), ok, want.Sub(t0))
	}
}

// TestThrowWindow plays Ruling R1 at a table of people: seat 0 plays a 5; seat 2 draws and plays
// at once, but its 9 lands only when the 800 ms window has passed; seat 1's throw at 700 ms is
// judged against the 5.
func TestThrowWindow(t *testing.T) {
	s := build(t, table{seats: 3, kinds: []gamev1.PlayerKind{person, person, person},
		rows: [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 10}, {1, 2, 3, 4}}, pile: []uint8{9, 5}})
	s.known[s.rows[1][0]] = bit(1)
	doAt(t, s, 0, Action{Kind: KindDraw}, ms(0))
	doAt(t, s, 0, Action{Kind: KindPlay}, ms(0))
	if number(s.top()) != 5 || s.cur != 2 {
		t.Fatal("the first discard of a round waits for no window")
	}
	doAt(t, s, 2, Action{Kind: KindDraw}, ms(10))
	evs := doAt(t, s, 2, Action{Kind: KindPlay}, ms(20))
	p, ok := find[*pb.Event_DiscardPending](evs, engine.Public)
	if !ok || !p.DiscardPending.LandsAt.AsTime().Equal(ms(800)) || number(s.top()) != 5 || len(evs) != 1 {
		t.Fatalf("the discard must wait for the window: %v", evs)
	}
	refusedAt(t, s, 2, Action{Kind: KindPlay}, ms(30), CodeDiscardPending)
	for _, a := range (Game{}).Legal(s, 2, nil) {
		if a.Kind == KindPlay || a.Kind == KindKeep {
			t.Fatal("a waiting discard offers no second choice")
		}
	}
	v := (Game{}).View(s, 1).(*pb.View)
	if !v.GetDiscardLandsAt().AsTime().Equal(ms(800)) || !v.GetThrowWindowEnds().AsTime().Equal(ms(800)) || v.GetDrawnCard() != 0 {
		t.Fatalf("view: %v", v)
	}
	deadlineIs(t, s, ms(800))
	// Inside the window the top is still the 5.
	evs = doAt(t, s, 1, legalThrow(t, s, 1, 1, 0), ms(700))
	if _, ok := find[*pb.Event_Thrown](evs, engine.Public); !ok {
		t.Fatal("a throw inside the window is judged against the old top")
	}
	deadlineIs(t, s, ms(800))
	if _, err := (Game{}).Timeout(s, ms(799)); err == nil {
		t.Fatal("the discard landed before the window passed")
	}
	evs, err := Game{}.Timeout(s, ms(800))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := find[*pb.Event_Played](evs, engine.Public); !ok || number(s.top()) != 9 || s.cur != 1 {
		t.Fatalf("the discard did not land at the window's end: %v", evs)
	}
	// The 9 opens a new window: seat 1 keeps inside it.
	doAt(t, s, 1, Action{Kind: KindDraw}, ms(900))
	doAt(t, s, 1, Action{Kind: KindKeep, Slot: 1}, ms(900))
	deadlineIs(t, s, ms(1600))
	evs, err = Game{}.Timeout(s, ms(1650))
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := find[*pb.Event_Kept](evs, engine.Public); !ok || k.Kept.Discarded != 6 || number(s.top()) != 6 {
		t.Fatalf("the keep did not land: %v", evs)
	}
}

// TestWindowKeepLosesItsSlot: a keep chosen in the window whose slot is thrown empty meanwhile
// (here for its owner, which queues a give back that holds the discard up) plays the drawn card.
func TestWindowKeepLosesItsSlot(t *testing.T) {
	s := build(t, table{seats: 3, kinds: []gamev1.PlayerKind{person, person, person},
		rows: [][]uint8{{1, 2, 3, 4}, {1, 2, 3, 4}, {5, 6, 7, 10}}, pile: []uint8{9, 5}})
	s.known[s.rows[2][0]] = bit(1)
	doAt(t, s, 0, Action{Kind: KindDraw}, ms(0))
	doAt(t, s, 0, Action{Kind: KindPlay}, ms(0))
	doAt(t, s, 2, Action{Kind: KindDraw}, ms(10))
	doAt(t, s, 2, Action{Kind: KindKeep, Slot: 0}, ms(20))
	doAt(t, s, 1, legalThrow(t, s, 1, 2, 0), ms(500))
	if d, ok := (Game{}).Deadline(s); ok {
		t.Fatalf("a pending give back holds the discard (no turn timer): deadline %v", d.Sub(t0))
	}
	doAt(t, s, 1, Action{Kind: KindResolve, Slot: 3}, ms(900))
	if !s.occupied(2, 0) || card(s, 2, 0) != 4 {
		t.Fatal("the give back should refill slot 1")
	}
	deadlineIs(t, s, ms(800))
	evs, err := Game{}.Timeout(s, ms(900))
	if err != nil {
		t.Fatal(err)
	}
	// The slot now holds the given card: the keep lands there as chosen.
	if k, ok := find[*pb.Event_Kept](evs, engine.Public); !ok || k.Kept.Discarded != 4 {
		t.Fatalf("the keep should land in its slot: %v", evs)
	}

	// Emptied and not refilled: the drawn card is played.
	e := build(t, table{seats: 2, kinds: []gamev1.PlayerKind{person, person},
		rows: [][]uint8{{5, 2, 3, 4}, {1, 2, 3, 4}}, pile: []uint8{9, 5}})
	e.known[e.rows[0][0]] = bit(0)
	doAt(t, e, 0, Action{Kind: KindDraw}, ms(0))
	doAt(t, e, 0, Action{Kind: KindPlay}, ms(0))
	doAt(t, e, 1, Action{Kind: KindDraw}, ms(10))
	doAt(t, e, 1, Action{Kind: KindKeep, Slot: 0}, ms(20))
	e.rows[1][0], e.rows[1] = noCard, append(e.rows[1], e.rows[1][0]) // slot 1 left, its card elsewhere
	evs, err = Game{}.Timeout(e, ms(800))
	if err != nil {
		t.Fatal(err)
	}
	if pl, ok := find[*pb.Event_Played](evs, engine.Public); !ok || pl.Played.Card != 9 {
		t.Fatalf("a keep into an emptied slot plays the drawn card: %v", evs)
	}
}

func TestTimingOptions(t *testing.T) {
	ppl := []gamev1.PlayerKind{person, robot}
	zero := durationpb.New(0)
	s := build(t, table{seats: 2, kinds: ppl, opts: &pb.Options{ThrowWindow: zero},
		rows: [][]uint8{{1, 2, 3, 4}, {1, 2, 3, 4}}, pile: []uint8{9, 5}})
	if s.windowNS != 0 || s.thinkNS != int64(DefaultBotThink) || s.reactMinNS != int64(DefaultBotReactionMin) || s.bots != 2 {
		t.Fatalf("window %d think %d react %d bots %b", s.windowNS, s.thinkNS, s.reactMinNS, s.bots)
	}
	doAt(t, s, 0, Action{Kind: KindDraw}, ms(0))
	doAt(t, s, 0, Action{Kind: KindPlay}, ms(0))
	doAt(t, s, 1, Action{Kind: KindDraw}, ms(10))
	doAt(t, s, 0, legalThrow(t, s, 0, 0, 0), ms(10)) // a person throws blind at once
	if s.ph != phaseDecide {
		t.Fatal("seat 1 should still hold its card")
	}
	// A bot's discard waits for its think even without a window.
	evs := doAt(t, s, 1, Action{Kind: KindPlay}, ms(20))
	if _, ok := find[*pb.Event_DiscardPending](evs, engine.Public); !ok {
		t.Fatal("a bot's discard lands after its think")
	}
	deadlineIs(t, s, ms(310))

	def := build(t, table{seats: 2, kinds: ppl, rows: [][]uint8{{1, 2, 3, 4}, {1, 2, 3, 4}}})
	if def.windowNS != int64(DefaultThrowWindow) {
		t.Fatal("a table with a person has the 800 ms window")
	}
	bots := build(t, table{seats: 2, kinds: []gamev1.PlayerKind{robot, robot}, rows: [][]uint8{{1, 2, 3, 4}, {1, 2, 3, 4}}})
	if bots.windowNS != 0 || bots.thinkNS == 0 {
		t.Fatal("a bot-only table has no window by default, but its bots think")
	}
	for _, o := range []*pb.Options{
		{ThrowWindow: durationpb.New(-time.Millisecond)},
		{ThrowWindow: durationpb.New(MaxDelay + 1)},
		{BotThink: durationpb.New(-1)},
		{BotReactionMin: durationpb.New(time.Second), BotReactionMax: durationpb.New(time.Millisecond)},
	} {
		_, _, err := Game{}.Setup(engine.Config{Seats: 2, Seed: 1, Options: o, Kinds: ppl})
		var v *engine.Violation
		if !errors.As(err, &v) || v.Kind != engine.Malformed || v.Code != engine.CodeBadOptions {
			t.Fatalf("%v: got %v", o, err)
		}
	}
	if _, _, err := (Game{}).Setup(engine.Config{Seats: 3, Seed: 1, Kinds: ppl}); err == nil {
		t.Fatal("two kinds for three seats accepted")
	}
}

// TestPersonBeatsBots is Ruling B1 at a table with the defaults: a person (seat 0) and two bots
// all know an 8 of theirs. Seat 0 plays an 8; the bots try to throw theirs every 10 ms (as a
// driver polls them), the person throws 300 ms after the discard. The person's throw lands first;
// the bots' only after their reaction delays, drawn from the seed and counted from the last card
// landing; the next seat's (a bot's) discard waits for the window, and may close the race for
// a slow bot.
func TestPersonBeatsBots(t *testing.T) {
	s := build(t, table{seats: 3, kinds: []gamev1.PlayerKind{person, robot, robot},
		rows: [][]uint8{{8, 1, 2, 3}, {8, 1, 2, 3}, {8, 1, 2, 3}}, pile: []uint8{9, 8}})
	for seat := range s.rows {
		s.known[s.rows[seat][0]] = bit(uint8(seat))
	}
	doAt(t, s, 0, Action{Kind: KindDraw}, ms(0))
	doAt(t, s, 0, Action{Kind: KindPlay}, ms(0))
	var order []int
	var when []time.Time
	for now := ms(0); !now.After(ms(2000)); now = now.Add(10 * time.Millisecond) {
		if d, ok := (Game{}).Deadline(s); ok && !now.Before(d) {
			if _, err := (Game{}).Timeout(s, now); err != nil {
				t.Fatal(err)
			}
		}
		if now.Equal(ms(790)) && number(s.top()) != 8 || now.Equal(ms(800)) && number(s.top()) != 9 {
			t.Fatalf("at %v the top is %d: seat 2's 9 must land when the window passes", now.Sub(t0), number(s.top()))
		}
		if now.Equal(ms(300)) {
			doAt(t, s, 0, legalThrow(t, s, 0, 0, 0), now)
			order, when = append(order, 0), append(when, now)
		}
		for _, bot := range []int{1, 2} {
			if s.cur == uint8(bot) && s.ph == phaseDraw {
				doAt(t, s, bot, Action{Kind: KindDraw}, now)
			}
			if s.cur == uint8(bot) && s.ph == phaseDecide && s.pend == 0 {
				doAt(t, s, bot, Action{Kind: KindPlay}, now)
			}
			if !s.occupied(uint8(bot), 0) || number(s.top()) != 8 {
				continue
			}
			a := legalThrow(t, s, bot, uint8(bot), 0)
			before := s.topAt
			if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: bot, Action: a, At: now}); err != nil {
				var v *engine.Violation
				if !errors.As(err, &v) || v.Code != CodeBotReacting {
					t.Fatalf("bot %d at %v: %v", bot, now.Sub(t0), err)
				}
				continue
			}
			if d := nanos(now) - before; d < int64(DefaultBotReactionMin) || d > int64(DefaultBotReactionMax)+int64(10*time.Millisecond) {
				t.Fatalf("bot %d threw %v after the last card landed", bot, time.Duration(d))
			}
			order, when = append(order, bot), append(when, now)
		}
	}
	if len(order) < 2 || order[0] != 0 {
		t.Fatalf("throws in order %v at %v: the person's must come first", order, when)
	}
	// Replays draw the same reactions: the delay depends on the seed and the position only.
	c := Game{}.Clone(s)
	for seat := range uint8(3) {
		if s.reaction(seat) != c.reaction(seat) {
			t.Fatal("reactions must be deterministic")
		}
	}
}

// TestZeroDelays: a bot-only table with every delay 0 plays as fast as one that does not say who
// sits: bots throw and discard at once.
func TestZeroDelays(t *testing.T) {
	zero := durationpb.New(0)
	s := build(t, table{seats: 2, kinds: []gamev1.PlayerKind{robot, robot},
		opts: &pb.Options{ThrowWindow: zero, BotReactionMin: zero, BotReactionMax: zero, BotThink: zero},
		rows: [][]uint8{{8, 1, 2, 3}, {8, 1, 2, 3}}, pile: []uint8{9, 8}})
	s.known[s.rows[1][0]] = bit(1)
	doAt(t, s, 0, Action{Kind: KindDraw}, ms(0))
	doAt(t, s, 0, Action{Kind: KindPlay}, ms(0))
	doAt(t, s, 1, legalThrow(t, s, 1, 1, 0), ms(0))
	doAt(t, s, 1, Action{Kind: KindDraw}, ms(0))
	doAt(t, s, 1, Action{Kind: KindPlay}, ms(0))
	if number(s.top()) != 9 || s.cur != 0 {
		t.Fatal("zero delays must not wait")
	}
}

func TestTimingSurvivesEncoding(t *testing.T) {
	s := build(t, table{seats: 2, kinds: []gamev1.PlayerKind{person, robot}, rows: [][]uint8{{1, 2, 3, 4}, {1, 2, 3, 4}}, pile: []uint8{9, 5}})
	doAt(t, s, 0, Action{Kind: KindDraw}, ms(0))
	doAt(t, s, 0, Action{Kind: KindPlay}, ms(0))
	doAt(t, s, 1, Action{Kind: KindDraw}, ms(10))
	doAt(t, s, 1, Action{Kind: KindKeep, Slot: 2}, ms(20))
	b, err := Game{}.EncodeState(s)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Game{}.DecodeState(b)
	if err != nil {
		t.Fatal(err)
	}
	d.mem = s.mem
	if d.windowNS != s.windowNS || d.pend != s.pend || d.pendAt != s.pendAt || d.pendSlot != s.pendSlot ||
		d.bots != s.bots || d.seed != s.seed || d.reaction(1) != s.reaction(1) || d.drawAt != s.drawAt {
		t.Fatal("timing lost in encoding")
	}
}

// TestNotBefore: the harness learns when a bot's throw becomes allowed (Ruling B1), so that its
// driver plays it then: refused a nanosecond earlier, accepted at that moment. A person's throw and
// a bot's turn action may be applied at once.
func TestNotBefore(t *testing.T) {
	s := build(t, table{seats: 3, kinds: []gamev1.PlayerKind{person, robot, robot},
		rows: [][]uint8{{8, 1, 2, 3}, {8, 1, 2, 3}, {8, 1, 2, 3}}, pile: []uint8{9, 8}})
	for seat := range s.rows {
		s.known[s.rows[seat][0]] = bit(uint8(seat))
	}
	doAt(t, s, 0, Action{Kind: KindDraw}, ms(0))
	doAt(t, s, 0, Action{Kind: KindPlay}, ms(0))
	if _, ok := (Game{}).NotBefore(s, 0, legalThrow(t, s, 0, 0, 0)); ok {
		t.Fatal("a person's throw must not wait")
	}
	if _, ok := (Game{}).NotBefore(s, 1, Action{Kind: KindDraw}); ok {
		t.Fatal("a bot's draw must not wait")
	}
	a := legalThrow(t, s, 1, 1, 0)
	at, ok := (Game{}).NotBefore(s, 1, a)
	if !ok {
		t.Fatal("a bot's throw must wait for its reaction delay")
	}
	if d := at.Sub(ms(0)); d < DefaultBotReactionMin || d > DefaultBotReactionMax {
		t.Fatalf("the bot may throw %v after the discard, outside [%v, %v]", d, DefaultBotReactionMin, DefaultBotReactionMax)
	}
	c := Game{}.Clone(s)
	_, err := (Game{}).Apply(c, engine.Move[Action]{Seat: 1, Action: a, At: at.Add(-time.Nanosecond)})
	var v *engine.Violation
	if !errors.As(err, &v) || v.Code != CodeBotReacting {
		t.Fatalf("a nanosecond early: %v, want %s", err, CodeBotReacting)
	}
	doAt(t, s, 1, a, at)
}
