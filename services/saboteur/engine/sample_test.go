package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// sampleStates plays seeded random games (saboteur2 with 2 to 12 seats, and classic) and calls f
// at every state of a round's play.
func sampleStates(t *testing.T, games int, f func(s *State)) {
	g := Game{}
	r := rand.New(rand.NewPCG(6, 6))
	var buf []Action
	for i := range games {
		opts := &pb.Options{}
		n := 2 + i%11
		if i%4 == 3 {
			opts.Mode = pb.Mode_MODE_CLASSIC
			n = 3 + i%8
		}
		if i%3 == 0 {
			n = 6
		}
		s, _, err := g.Setup(engine.Config{Seats: n, Seed: uint64(i), Options: opts, Start: t0})
		if err != nil {
			t.Fatal(err)
		}
		for !s.over {
			if s.phase == phaseTurn {
				f(s)
			}
			buf = g.Legal(s, s.cur, buf[:0])
			a := buf[r.IntN(len(buf))]
			// Maps and inspections are rare among the many placements: favour them, so the
			// views hold what they reveal.
			for _, x := range buf {
				if x.Kind == KindPlay && (x.Card == cMap || x.Card == cInspection || x.Card == cSwapHats) && r.IntN(2) == 0 {
					a = x
				}
			}
			if _, err := g.Apply(s, engine.Move[Action]{Seat: s.cur, Action: a, At: t0}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSampleAgreesWithView: a world sampled from a seat's view shows that seat the same view,
// keeps every card of the deck once, and has a consistent board.
func TestSampleAgreesWithView(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	n, mapped, seen := 0, 0, 0
	sampleStates(t, 20, func(s *State) {
		for _, me := range []int{s.cur, (s.cur + 1) % s.n} {
			v := Game{}.View(s, me).(*pb.View)
			w, ok := Sample(v, r)
			if !ok {
				t.Fatalf("round %d of a %d-seat game not sampled", s.round, s.n)
			}
			if wv := (Game{}).View(w, me); !proto.Equal(wv, v) {
				t.Fatalf("sampled world's view differs:\n got %v\nwant %v", wv, v)
			}
			if !w.Conserved() || !w.BoardConsistent() {
				t.Fatal("sampled world breaks card conservation or the board")
			}
			if s.mapped[me] != 0 {
				mapped++
			}
			for i, si := range v.SeatInfo {
				if i != me && si.Role != pb.Role_ROLE_UNSPECIFIED {
					seen++
					break
				}
			}
			n++
		}
	})
	t.Logf("%d views sampled, %d with a goal looked at, %d with a role seen", n, mapped, seen)
	if mapped == 0 || seen == 0 {
		t.Fatal("no view with a map or an inspection result")
	}
}

// TestSampleSeesOnlyTheView: two states that differ only in what the seat cannot see (a card of
// another hand swapped with one of the pile, two hidden roles swapped, two face-down goals the
// seat has not looked at swapped) give the same view, and the sampler, which takes nothing but
// the view and a rand source, deals the same world from both.
func TestSampleSeesOnlyTheView(t *testing.T) {
	changed := 0
	sampleStates(t, 12, func(s *State) {
		me := s.cur
		o := (me + 1) % s.n
		s2 := s.clone()
		if len(s2.hands[o]) > 0 && len(s2.pile) > 0 {
			s2.hands[o][0], s2.pile[0] = s2.pile[0], s2.hands[o][0]
		}
		if p := (me + 2) % s.n; p != me && s.seen[me*s.n+o] == 0 && s.seen[me*s.n+p] == 0 {
			s2.roles[o], s2.roles[p] = s2.roles[p], s2.roles[o]
		}
		if s.mapped[me]&3 == 0 && s.b.slots[1].faceDown && s.b.slots[2].faceDown {
			s2.b.slots[1].card, s2.b.slots[2].card = s2.b.slots[2].card, s2.b.slots[1].card
			s2.goals[0], s2.goals[1] = s2.goals[1], s2.goals[0]
		}
		v1, v2 := Game{}.View(s, me).(*pb.View), Game{}.View(s2, me).(*pb.View)
		if !proto.Equal(v1, v2) {
			t.Fatalf("changing hidden information changed seat %d's view", me)
		}
		w1, ok1 := Sample(v1, rand.New(rand.NewPCG(9, 9)))
		w2, ok2 := Sample(v2, rand.New(rand.NewPCG(9, 9)))
		if !ok1 || !ok2 {
			t.Fatal("no sample")
		}
		e1, _ := Game{}.EncodeState(w1)
		e2, _ := Game{}.EncodeState(w2)
		if !bytes.Equal(e1, e2) {
			t.Fatal("same view, same seed, different worlds")
		}
		if e, _ := (Game{}).EncodeState(s); !bytes.Equal(e, mustEncode(t, s2)) {
			changed++
		}
	})
	if changed == 0 {
		t.Fatal("no state had hidden information to change")
	}
}

func mustEncode(t *testing.T, s *State) []byte {
	b, err := Game{}.EncodeState(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSampleSpreadsTheHidden: the goals a seat has not seen and the roles it does not know are
// dealt at random, not fixed: over many samples of one view each unseen goal cell holds the gold
// sometimes, and every other seat is sometimes a saboteur.
func TestSampleSpreadsTheHidden(t *testing.T) {
	s, _, err := Game{}.Setup(engine.Config{Seats: 6, Seed: 3, Options: &pb.Options{}, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	v := Game{}.View(s, 0).(*pb.View)
	r := rand.New(rand.NewPCG(1, 1))
	var gold [3]int
	var sab [6]int
	for range 600 {
		w, ok := Sample(v, r)
		if !ok {
			t.Fatal("no sample")
		}
		gold[w.goldIndex()]++
		for i, role := range w.roles {
			if role == roleSaboteur {
				sab[i]++
			}
		}
	}
	for g, k := range gold {
		if k < 120 {
			t.Errorf("goal %d holds the gold in %d of 600 samples", g, k)
		}
	}
	for i := 1; i < 6; i++ {
		if sab[i] == 0 && s.roles[0] != roleSaboteur {
			t.Errorf("seat %d never a saboteur", i)
		}
	}
}
