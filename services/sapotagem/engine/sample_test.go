package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// playStates plays random 4-player base games and calls f at every state of the play phase, for
// the seat to act.
func playStates(t *testing.T, games int, f func(s *State, me int)) {
	g := Game{}
	r := rand.New(rand.NewPCG(6, 6))
	var buf []Action
	for i := range games {
		s, _, err := g.Setup(engine.Config{Seats: 4, Seed: uint64(i), Options: OptionsOf(), Start: start})
		if err != nil {
			t.Fatal(err)
		}
		for s.Phase != PhaseOver {
			me := int(s.Turn)
			if s.Phase == PhasePlay {
				f(s, me)
			}
			buf = g.Legal(s, me, buf[:0])
			if _, err := g.Apply(s, engine.Move[Action]{Seat: me, Action: buf[r.IntN(len(buf))], At: start}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSampleAgreesWithView: a world sampled from a seat's view shows that seat the same view.
func TestSampleAgreesWithView(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	n := 0
	playStates(t, 30, func(s *State, me int) {
		v := Game{}.View(s, me).(*pb.View)
		w, ok := Sample(v, r)
		if !ok {
			t.Fatal("base game not sampled")
		}
		if wv := (Game{}).View(w, me); !proto.Equal(wv, v) {
			t.Fatalf("sampled world's view differs:\n got %v\nwant %v", wv, v)
		}
		n++
	})
	t.Logf("%d states sampled", n)
}

// TestSampleSeesOnlyTheView: two states that differ only in cards the seat cannot see (two other
// seats' hidden cards swapped) give the same view, and the sampler, which takes nothing but the
// view and a rand source, deals the same world from both.
func TestSampleSeesOnlyTheView(t *testing.T) {
	swapped := 0
	playStates(t, 20, func(s *State, me int) {
		a, b := (int8(me)+1)%s.N, (int8(me)+2)%s.N
		if s.Hands[a] == 0 || s.Hands[b] == 0 {
			return
		}
		s2 := Game{}.Clone(s)
		ca, cb := lowest(s.Hands[a]), lowest(s.Hands[b])
		if colourOf(ca) != colourOf(cb) {
			return // keep the colours each hand holds, which later plays may reveal
		}
		s2.Hands[a] = s.Hands[a]&^bit(ca) | bit(cb)
		s2.Hands[b] = s.Hands[b]&^bit(cb) | bit(ca)
		v1, v2 := Game{}.View(s, me).(*pb.View), Game{}.View(s2, me).(*pb.View)
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
		t.Fatal("no state with two hidden hands sharing a colour")
	}
}

func lowest(m uint64) int8 {
	for c := int8(0); c < numCards; c++ {
		if m&bit(c) != 0 {
			return c
		}
	}
	return -1
}
