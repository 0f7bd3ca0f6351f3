package engine

import (
	"math/rand/v2"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

// midGame plays game i's config a few random steps in, for fuzzing against live states.
func midGame(i, steps int) *State {
	cfg := randomConfig(i)
	g := Game{}
	s, _, _ := g.Setup(cfg)
	r := rand.New(rand.NewPCG(uint64(i), 5))
	for range steps {
		if s.Phase == PhaseOver {
			break
		}
		for seat := 0; seat < int(s.N); seat++ {
			if l := g.Legal(s, seat, nil); len(l) > 0 {
				g.Apply(s, engine.Move[Action]{Seat: seat, Action: l[r.IntN(len(l))], At: start})
				break
			}
		}
	}
	return s
}

// FuzzDecodeAndApply decodes arbitrary bytes as an Action message and applies it for any seat of
// a live state: no panic, and a refused action is a Violation that leaves the state unchanged.
func FuzzDecodeAndApply(f *testing.F) {
	g := Game{}
	for _, a := range []Action{Jump(), Play(5), PlayTo(12, 2), Pick(40), Decline(), ChooseTrump(3),
		{Kind: KindJump, Card: 7, Bomb: 25, Fugitive: 3, Target: -1}} {
		b, _ := proto.Marshal(g.EncodeAction(a))
		f.Add(b, uint8(0), uint16(1))
	}
	f.Add([]byte{0x12, 0x02, 0x0a, 0x00}, uint8(3), uint16(7))
	f.Add([]byte{0xff, 0x01}, uint8(9), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, seat uint8, game uint16) {
		msg := &pb.Action{}
		if err := proto.Unmarshal(data, msg); err != nil {
			return
		}
		a, err := g.DecodeAction(msg)
		if err != nil {
			if _, ok := err.(*engine.Violation); !ok {
				t.Fatalf("decode error %T is not a Violation", err)
			}
			return
		}
		s := midGame(int(game%64), int(game/64%40))
		if err := enginetest.CheckUnchangedOnError(g, s, engine.Move[Action]{Seat: int(seat%8) - 1, Action: a, At: start}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzApplyRawAction applies arbitrary engine actions (any field values) to live states.
func FuzzApplyRawAction(f *testing.F) {
	f.Add(uint8(1), int8(3), int8(-1), int8(-1), int8(-1), uint8(0), uint16(5))
	f.Add(uint8(2), int8(51), int8(12), int8(60), int8(7), uint8(2), uint16(300))
	f.Add(uint8(3), int8(-5), int8(0), int8(0), int8(0), uint8(4), uint16(1000))
	g := Game{}
	f.Fuzz(func(t *testing.T, kind uint8, card, bomb, fug, target int8, seat uint8, game uint16) {
		s := midGame(int(game%64), int(game/64%40))
		a := Action{Kind: Kind(kind % 8), Card: card, Bomb: bomb, Fugitive: fug, Target: target}
		if err := enginetest.CheckUnchangedOnError(g, s, engine.Move[Action]{Seat: int(seat % 8), Action: a, At: start}); err != nil {
			t.Fatal(err)
		}
	})
}
