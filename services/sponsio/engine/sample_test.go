package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// sampleStates plays random games and calls f at every state where seat me must act.
func sampleStates(t *testing.T, games int, f func(s *State, me int)) {
	g := Game{}
	r := rand.New(rand.NewPCG(5, 5))
	var buf []Action
	for i := range games {
		n := 3 + i%2
		s, _, err := g.Setup(engine.Config{Seats: n, Seed: uint64(i), Options: &sponsiov1.Options{}, Start: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		for s.Phase != PhaseOver {
			me := int(s.ToAct)
			f(s, me)
			buf = g.Legal(s, me, buf[:0])
			if _, err := g.Apply(s, engine.Move[Action]{Seat: me, Action: buf[r.IntN(len(buf))], At: time.Unix(0, 0)}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSampleAgreesWithView: a sampled state shows the seat exactly the view it was sampled from,
// and deals every card of the deck once.
func TestSampleAgreesWithView(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	n := 0
	sampleStates(t, 30, func(s *State, me int) {
		v := s.view(me)
		got, ok := Sample(v, r)
		if !ok {
			t.Fatalf("no sample in phase %d", s.Phase)
		}
		if gv := got.view(me); !proto.Equal(gv, v) {
			t.Fatalf("sampled state's view differs:\n got %v\nwant %v", gv, v)
		}
		var all Cards
		total := got.Talon
		for p := range got.Players {
			st := &got.Seats[p]
			for _, part := range []Cards{st.Hand, st.Open, st.Taken} {
				if total&part != 0 {
					t.Fatalf("card dealt twice")
				}
				total |= part
			}
		}
		for p := range got.Players {
			if c := got.Plays[p]; c != NoCard {
				total = total.With(c)
			}
		}
		for c := range Card(36) {
			if c.Colour() != got.Removed {
				all = all.With(c)
			}
		}
		if got.Phase != PhaseScoring && total != all {
			t.Fatalf("sampled cards %b, deck %b", total, all)
		}
		n++
	})
	t.Logf("%d states sampled", n)
}

// TestSampleSeesOnlyTheView: two states that differ only in cards the seat cannot see (two other
// seats' hidden cards swapped) give the seat the same view, and the sampler, which takes nothing
// but the view and a rand source, deals the same world from both.
func TestSampleSeesOnlyTheView(t *testing.T) {
	swapped := 0
	sampleStates(t, 20, func(s *State, me int) {
		a, b := int8((me+1)%int(s.Players)), int8((me+2)%int(s.Players))
		ha, hb := s.Seats[a].Hand, s.Seats[b].Hand
		if ha == 0 || hb == 0 {
			return
		}
		s2 := s.clone()
		ca, cb := ha.First(), hb.First()
		s2.Seats[a].Hand = ha.Without(ca).With(cb)
		s2.Seats[b].Hand = hb.Without(cb).With(ca)
		v1, v2 := s.view(me), s2.view(me)
		if !proto.Equal(v1, v2) {
			t.Fatalf("swapping hidden cards changed seat %d's view", me)
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
		swapped++
	})
	if swapped == 0 {
		t.Fatal("no state with two hidden hands")
	}
}

// TestRedealKeepsTheView: a world redealt from a sampled one shows the seat the same view, keeps
// every hand's size and deals the same cards (the others' hands) again, and does move some.
func TestRedealKeepsTheView(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	moved := 0
	sampleStates(t, 20, func(s *State, me int) {
		v := s.view(me)
		w, ok := Sample(v, r)
		if !ok {
			t.Fatalf("no sample in phase %d", s.Phase)
		}
		x := Game{}.Clone(w)
		x.Redeal(me, r)
		if !proto.Equal(x.view(me), v) {
			t.Fatal("a redealt world shows the seat another view")
		}
		var before, after Cards
		for p := range int(w.Players) {
			if x.Seats[p].Hand.Len() != w.Seats[p].Hand.Len() {
				t.Fatalf("seat %d's hand has %d cards, had %d", p, x.Seats[p].Hand.Len(), w.Seats[p].Hand.Len())
			}
			if before&w.Seats[p].Hand != 0 || after&x.Seats[p].Hand != 0 {
				t.Fatal("a card in two hands")
			}
			before |= w.Seats[p].Hand
			after |= x.Seats[p].Hand
			if p != me && x.Seats[p].Hand != w.Seats[p].Hand {
				moved++
			}
		}
		if before != after || x.Seats[me].Hand != w.Seats[me].Hand {
			t.Fatal("redealing changed the cards in the hands, or the seat's own")
		}
	})
	if moved == 0 {
		t.Fatal("no hand was ever dealt anew")
	}
}

// TestStepIsApply: Step, the playouts' quiet move (a card played makes no events), leaves the same
// state as Apply; Playable is the cards Legal would let the seat play.
func TestStepIsApply(t *testing.T) {
	g := Game{}
	r := rand.New(rand.NewPCG(3, 3))
	var buf []Action
	for i := range 20 {
		s, _, err := g.Setup(engine.Config{Seats: 3 + i%2, Seed: uint64(i), Options: &sponsiov1.Options{}, Start: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		q := g.Clone(s)
		for s.Phase != PhaseOver {
			me := int(s.ToAct)
			buf = g.Legal(s, me, buf[:0])
			a := buf[r.IntN(len(buf))]
			var cards Cards
			for _, l := range buf {
				if l.Kind == ActPlay {
					cards = cards.With(l.Card)
				}
			}
			if p := s.Playable(me); p != cards {
				t.Fatalf("Playable is %b, the legal plays %b", p, cards)
			}
			if _, err := g.Apply(s, engine.Move[Action]{Seat: me, Action: a, At: time.Unix(0, 0)}); err != nil {
				t.Fatal(err)
			}
			q.Step(me, a)
			e1, _ := g.EncodeState(s)
			e2, _ := g.EncodeState(q)
			if !bytes.Equal(e1, e2) {
				t.Fatalf("game %d: %v applied and stepped differ", i, a)
			}
		}
	}
}
