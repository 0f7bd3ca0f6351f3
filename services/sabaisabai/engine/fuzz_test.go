package engine

import (
	"errors"
	"math/rand/v2"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

// fuzzStates are states from random games at several points, for the fuzz targets to act on.
func fuzzStates(f *testing.F) []*State {
	var out []*State
	g := Game{}
	for i := range 4 {
		p := enginetest.Playout[*State, Action]{Game: g}
		n := 0
		p.OnStep = func(s *State, _ enginetest.Step[Action]) error {
			n++
			if n%37 == 0 {
				out = append(out, g.Clone(s))
			}
			return nil
		}
		if _, err := p.Run(randomConfig(i), rand.New(rand.NewPCG(uint64(i), 5))); err != nil {
			f.Fatal(err)
		}
	}
	return out
}

// FuzzAction decodes arbitrary bytes as an Action message and applies it for every seat: no
// panic, every refusal is a Violation and leaves the state unchanged, and an accepted action
// keeps the 61 cards.
func FuzzAction(f *testing.F) {
	states := fuzzStates(f)
	g := Game{}
	for _, a := range []Action{
		{Kind: KindDraw}, {Kind: KindPlay}, {Kind: KindKeep, Slot: 2}, Throw(1, 5, 3, 0, 2),
		{Kind: KindResolve, Slot: 1, Target: 2, TargetSlot: 3}, {Kind: KindTouchNose}, {Kind: KindCall},
		Throw(0, 15, 1, 3), Throw(11, 16, 99, 0, 1, 2, 3),
	} {
		b, _ := proto.Marshal(g.EncodeAction(a))
		f.Add(b, uint8(0))
	}
	f.Add([]byte{0x22, 0x02, 0x08, 0x63}, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		msg := &pb.Action{}
		if err := proto.Unmarshal(data, msg); err != nil {
			return
		}
		a, err := g.DecodeAction(msg)
		if err != nil {
			var v *engine.Violation
			if !errors.As(err, &v) || v.Kind != engine.Malformed {
				t.Fatalf("decode refusal %v is not a Malformed violation", err)
			}
			return
		}
		s := states[int(pick)%len(states)]
		for seat := -1; seat <= int(s.n); seat++ {
			m := engine.Move[Action]{Seat: seat, Action: a, At: start}
			if err := enginetest.CheckUnchangedOnError(g, s, m); err != nil {
				t.Fatal(err)
			}
			c := g.Clone(s)
			if _, err := g.Apply(c, m); err == nil && c.Conservation() != NumCards {
				t.Fatal("an accepted action lost a card")
			}
		}
	})
}

// FuzzDecodeState requires that arbitrary bytes never panic the state decoder, and that a state
// it accepts survives another encode/decode.
func FuzzDecodeState(f *testing.F) {
	g := Game{}
	for _, s := range fuzzStates(f)[:6] {
		b, _ := g.EncodeState(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := g.DecodeState(data)
		if err != nil {
			return
		}
		if err := enginetest.CheckStateRoundTrip(g, s); err != nil {
			t.Fatal(err)
		}
		for seat := range int(s.n) {
			g.Legal(s, seat, nil)
			g.View(s, seat)
		}
	})
}
