package engine

import (
	"math/rand/v2"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

// fuzzStates are a few positions from random games of both modes.
func fuzzStates(f *testing.F) []*State {
	var out []*State
	for i, cfg := range []engine.Config{
		{Seats: 5, Seed: 11, Options: &pb.Options{}, Start: t0},
		{Seats: 4, Seed: 12, Options: &pb.Options{Mode: pb.Mode_MODE_CLASSIC, ClassicDiscardTwoToRepair: true}, Start: t0},
	} {
		stop := 40
		p := enginetest.Playout[*State, Action]{Game: Game{}, MaxSteps: stop}
		res, _ := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 9)))
		if res.State == nil {
			f.Fatal("no state")
		}
		out = append(out, res.State)
	}
	return out
}

func FuzzAction(f *testing.F) {
	g := Game{}
	states := fuzzStates(f)
	for _, s := range states {
		for seat := range s.n {
			for _, a := range g.Legal(s, seat, nil) {
				b, _ := proto.Marshal(g.EncodeAction(a))
				f.Add(b, uint8(seat))
			}
		}
	}
	f.Add([]byte{0xff, 0x01}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, seat uint8) {
		msg := &pb.Action{}
		if proto.Unmarshal(data, msg) != nil {
			return
		}
		a, err := g.DecodeAction(msg)
		if err != nil {
			if v, ok := err.(*engine.Violation); !ok || v.Kind != engine.Malformed {
				t.Fatalf("decode error %v is not a Malformed violation", err)
			}
			return
		}
		// A decoded action re-encodes to itself.
		a2, err := g.DecodeAction(g.EncodeAction(a))
		if err != nil || a2 != a {
			t.Fatalf("round trip %+v -> %+v (%v)", a, a2, err)
		}
		for _, s := range states {
			m := engine.Move[Action]{Seat: int(seat) % (s.n + 1), Action: a, At: t0}
			if err := enginetest.CheckUnchangedOnError(g, s, m); err != nil {
				t.Fatal(err)
			}
			c := g.Clone(s)
			if _, err := g.Apply(c, m); err == nil {
				if !c.Conserved() || !c.BoardConsistent() {
					t.Fatal("an accepted action broke the state")
				}
			}
		}
	})
}

func FuzzDecodeState(f *testing.F) {
	g := Game{}
	for _, s := range fuzzStates(f) {
		b, _ := g.EncodeState(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := g.DecodeState(data)
		if err != nil {
			return
		}
		_ = g.Legal(s, s.cur, nil)
		_ = s.view(0)
	})
}
