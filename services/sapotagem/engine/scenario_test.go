package engine

import (
	"bytes"
	"errors"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
)

const (
	G int8 = iota // green
	Y             // yellow
	R             // red
	B             // blue
)

func c(col, rank int8) int8 { return cardOf(col, rank) }

type table struct {
	t   *testing.T
	s   *State
	evs []engine.Event
}

// newTable deals a real table, then the test rigs its fields.
func newTable(t *testing.T, n int, variants ...int) *table {
	t.Helper()
	s, evs, err := Game{}.Setup(engine.Config{Seats: n, Seed: 1, Options: OptionsOf(variants...), Start: start})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	return &table{t: t, s: s, evs: evs}
}

// rig sets the hands, the trump pile (its first card becomes the current trump) and the starter,
// then begins round 1 again.
func (tb *table) rig(starter int8, pile []int8, hands ...[]int8) *table {
	s := tb.s
	for i := range s.Hands {
		s.Hands[i] = 0
		s.Areas[i] = 0
	}
	for i, h := range hands {
		s.Hands[i] = setOf(h)
	}
	s.PileLen = int8(copy(s.Pile[:], pile))
	s.PilePos = 0
	s.Starter, s.Round = starter, 0
	s.Discard = 0
	var evs []engine.Event
	s.startRound(&evs)
	return tb
}

func (tb *table) do(seat int, a Action) []engine.Event {
	tb.t.Helper()
	evs, err := Game{}.Apply(tb.s, engine.Move[Action]{Seat: seat, Action: a, At: start})
	if err != nil {
		tb.t.Fatalf("seat %d %+v refused: %v", seat, a, err)
	}
	return evs
}

func (tb *table) refuse(seat int, a Action, code string) {
	tb.t.Helper()
	before, _ := Game{}.EncodeState(tb.s)
	_, err := Game{}.Apply(tb.s, engine.Move[Action]{Seat: seat, Action: a, At: start})
	var v *engine.Violation
	if !errors.As(err, &v) || v.Code != code {
		tb.t.Fatalf("seat %d %+v: got %v, want %s", seat, a, err, code)
	}
	after, _ := Game{}.EncodeState(tb.s)
	if !bytes.Equal(before, after) {
		tb.t.Fatalf("refused action changed the state")
	}
}

func (tb *table) legal(seat int) []Action { return Game{}.Legal(tb.s, seat, nil) }

func hasAction(as []Action, a Action) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

func TestLeadColourAndMustFollow(t *testing.T) {
	tb := newTable(t, 4).rig(0, []int8{c(B, 1), c(B, 2), c(B, 3)},
		[]int8{c(G, 5), c(R, 2)}, []int8{c(G, 9), c(Y, 4)}, []int8{c(Y, 7), c(R, 9)}, []int8{c(G, 1), c(G, 2)})
	tb.do(0, Play(c(G, 5)))
	if tb.s.Lead != G {
		t.Fatalf("lead %d, want green", tb.s.Lead)
	}
	tb.refuse(1, Play(c(Y, 4)), CodeMustFollowColour)
	if hasAction(tb.legal(1), Play(c(Y, 4))) {
		t.Fatal("off-colour play listed as legal while holding green")
	}
	tb.do(1, Jump()) // jumping is allowed even when holding the lead colour
	tb.do(2, Play(c(R, 9)))
	if v := (Game{}).View(tb.s, -1).(*pb.View); len(v.Seats[2].VoidColours) != 1 || v.Seats[2].VoidColours[0] != pb.Colour_COLOUR_GREEN {
		t.Fatalf("seat 2 showed it has no green: %v", v.Seats[2].VoidColours)
	}
	tb.do(3, Play(c(G, 2)))
	// No blue (trump) was played: the highest green (seat 0's 5) wins.
	if tb.s.Starter != 0 || tb.s.Areas[0]&bit(c(B, 1)) == 0 {
		t.Fatalf("winner %d, want seat 0 with the trump card", tb.s.Starter)
	}
}

func TestTrumpBeatsLeadAndBombTopsColour(t *testing.T) {
	tb := newTable(t, 4).rig(0, []int8{c(R, 1), c(B, 2), c(B, 3)},
		[]int8{c(G, 12), c(Y, 1)}, []int8{c(R, 2), c(Y, 2)}, []int8{c(G, 1), c(Y, 3)}, []int8{c(G, 13), c(Y, 4)})
	tb.do(0, Play(c(G, 12)))
	tb.do(1, Play(c(R, 2))) // void in green: a low trump
	tb.do(2, Play(c(G, 1)))
	tb.do(3, Play(c(G, 13))) // the green bomb tops green, but not trump
	if tb.s.Starter != 1 {
		t.Fatalf("winner %d, want seat 1 (trump)", tb.s.Starter)
	}
	// Next round: lead yellow, no trump played; bombs top their colour.
	tb.s.Hands[3] |= bit(c(Y, 13))
	tb.do(1, Play(c(Y, 2)))
	tb.do(2, Play(c(Y, 3)))
	tb.do(3, Play(c(Y, 13)))
	tb.do(0, Play(c(Y, 1)))
	if tb.s.Starter != 3 {
		t.Fatalf("winner %d, want seat 3 (bomb)", tb.s.Starter)
	}
}

func TestAllJumpRound(t *testing.T) {
	tb := newTable(t, 4).rig(2, []int8{c(R, 1), c(B, 2), c(B, 3)},
		[]int8{c(G, 12)}, []int8{c(R, 2)}, []int8{c(G, 1)}, []int8{c(G, 3)})
	for _, seat := range []int{2, 3, 0, 1} {
		tb.do(seat, Jump())
	}
	if tb.s.Discard != bit(c(R, 1)) {
		t.Fatalf("discard %x, want the round's trump", tb.s.Discard)
	}
	if tb.s.Starter != 2 || tb.s.Round != 2 || tb.s.TrumpCard != c(B, 2) {
		t.Fatalf("starter %d round %d trump %d: the starter stays, the next trump comes up", tb.s.Starter, tb.s.Round, tb.s.TrumpCard)
	}
}

func TestForcedJumpsAndPlays(t *testing.T) {
	tb := newTable(t, 4).rig(0, []int8{c(R, 1), c(B, 2), c(B, 3)},
		nil, []int8{c(R, 2)}, []int8{c(G, 1)}, []int8{c(G, 3)})
	tb.s.Markers = [6]int8{2, 0, 2, 2}
	if l := tb.legal(0); len(l) != 1 || l[0] != Jump() {
		t.Fatalf("seat 0 without cards: legal %v, want only a jump", l)
	}
	tb.refuse(0, Play(c(R, 2)), CodeCardNotInHand)
	tb.do(0, Jump())
	if l := tb.legal(1); len(l) != 1 || l[0] != Play(c(R, 2)) {
		t.Fatalf("seat 1 without markers: legal %v, want only its card", l)
	}
	tb.refuse(1, Jump(), CodeNoJumpsLeft)
	tb.refuse(2, Jump(), engine.CodeNotYourTurn)
}

func TestPassWithNothing(t *testing.T) {
	// Ruling G1: a seat with neither cards nor markers passes automatically.
	tb := newTable(t, 4, vCostlyAbsence)
	s := tb.s
	s.Hands = [6]uint64{bit(c(G, 2)), 0, bit(c(G, 5)), bit(c(Y, 1))}
	s.Markers = [6]int8{0, 3, 0, 0}
	s.Starter, s.Turn, s.Acted, s.NPlayed, s.Lead = 0, 0, 0, 0, -1
	evs := tb.do(0, Play(c(G, 2)))
	if s.Turn != 2 || s.Markers[1] != 3 {
		t.Fatalf("turn %d markers %d: an empty hand passes without spending a marker", s.Turn, s.Markers[1])
	}
	found := false
	for _, e := range evs {
		if p, ok := e.Payload.(*pb.Event).GetKind().(*pb.Event_Passed); ok && p.Passed.GetSeat() == 1 {
			found = true
		}
	}
	if !found {
		t.Fatal("no Passed event for seat 1")
	}
}

func TestEndScoring(t *testing.T) {
	s := newTable(t, 4).s
	// 7 frogs (Master of S.A.P.O.) + 1 duck + 4 bombs.
	frogs := factionMask[0]
	var seven uint64
	k := 0
	eachCard(frogs, func(x int8) {
		if k < 7 {
			seven |= bit(x)
		}
		k++
	})
	duck := factionMask[1] & -factionMask[1]
	if got := s.areaPoints(seven | duck | bombMask); got != 10+1+Data.BombAll {
		t.Fatalf("7 frogs + duck + 4 bombs = %d, want %d", got, 10+1+Data.BombAll)
	}
	if got := s.areaPoints(frogs | bit(c(G, 13)) | bit(c(R, 13))); got != 15+2*Data.BombEach {
		t.Fatalf("8 frogs + 2 bombs = %d", got)
	}
	four := uint64(0)
	k = 0
	eachCard(factionMask[2], func(x int8) {
		if k < 4 {
			four |= bit(x)
		}
		k++
	})
	if got := s.areaPoints(four); got != -1 {
		t.Fatalf("4 horses = %d, want -1", got)
	}
}

func TestTieBreaks(t *testing.T) {
	s := newTable(t, 3).s
	s.Phase = PhaseOver
	two := bit(c(G, 3)) | bit(c(G, 6))   // 2 frogs: 3 points, 2 cards
	ducks := bit(c(B, 3)) | bit(c(Y, 1)) // 2 ducks: 3 points, 2 cards
	// Seat 2: a pig, a bird and a frog: 3 points with 3 cards, so it wins the tie on cards.
	s.Areas = [6]uint64{two, ducks, bit(c(R, 2)) | bit(c(G, 2)) | bit(c(B, 1))}
	out, _ := Game{}.Outcome(s)
	if !out.Results[2].Winner || out.Results[0].Rank != 2 || out.Results[1].Rank != 2 || out.Results[0].Score != 3 {
		t.Fatalf("more cards should break the tie: %v", out)
	}
	// Seats 0 and 1 tie on points and cards: shared victory.
	s.Areas[2] = bit(c(R, 2))
	out, _ = Game{}.Outcome(s)
	if !out.Results[0].Winner || !out.Results[1].Winner || out.Results[2].Rank != 3 {
		t.Fatalf("tie not shared: %v", out)
	}
}

func TestBadTables(t *testing.T) {
	cases := []struct {
		n    int
		vars []int
		code string
	}{
		{2, nil, engine.CodeBadSeatCount},
		{7, nil, engine.CodeBadSeatCount},
		{4, []int{vFrogsOnDuty, vUnderArrest}, CodeIncompatibleVariants},
		{4, []int{vInnocentOrGuilty, vSoapedFrog}, CodeIncompatibleVariants},
		{4, []int{vOpenInformation, vClosedInformation}, CodeIncompatibleVariants},
		{4, []int{vSpyInitiative, vFrogsOnDuty}, CodeIncompatibleVariants},
		{4, []int{vAnonymousHelp, vWeakFrog}, CodeIncompatibleVariants},
		{5, []int{vAgencyTogether}, CodeVariantSeatCount},
		{4, []int{vFourPiles}, CodeVariantSeatCount},
		{6, []int{vBlindPile}, CodeVariantSeatCount},
		{4, []int{vNegotiatingFrogs, vRemoteBomb}, CodeIncompatibleVariants},
	}
	for _, tc := range cases {
		_, _, err := Game{}.Setup(engine.Config{Seats: tc.n, Options: OptionsOf(tc.vars...), Start: start})
		var v *engine.Violation
		if !errors.As(err, &v) || v.Code != tc.code || v.Kind != engine.Malformed {
			t.Errorf("%d seats %v: got %v, want %s", tc.n, tc.vars, err, tc.code)
		}
	}
}

func TestTimeout(t *testing.T) {
	g := Game{}
	s, _, err := g.Setup(engine.Config{Seats: 4, Seed: 2, Options: OptionsOf(), Start: start, TurnTime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := g.Deadline(s)
	if !ok || !d.Equal(start.Add(time.Minute)) {
		t.Fatalf("deadline %v %v", d, ok)
	}
	if _, err := g.Timeout(s, start.Add(time.Second)); err == nil || err.(*engine.Violation).Code != engine.CodeTooEarly {
		t.Fatalf("early timeout: %v", err)
	}
	seat := s.Turn
	lowest := int8(-1)
	eachCard(s.Hands[seat], func(c int8) {
		if lowest < 0 || rankOf(c) < rankOf(lowest) {
			lowest = c
		}
	})
	if _, err := g.Timeout(s, d); err != nil {
		t.Fatal(err)
	}
	if s.Hands[seat]&bit(lowest) != 0 || s.Table[0].Card != lowest {
		t.Fatalf("the timed-out seat plays its lowest card")
	}
	if d2, _ := g.Deadline(s); !d2.Equal(d.Add(time.Minute)) {
		t.Fatalf("next deadline %v", d2)
	}
	s2, _, _ := g.Setup(engine.Config{Seats: 4, Seed: 2, Options: OptionsOf(), Start: start})
	if _, err := g.Timeout(s2, start.Add(time.Hour)); err == nil || err.(*engine.Violation).Code != engine.CodeNoDeadline {
		t.Fatalf("no turn time: %v", err)
	}
}
