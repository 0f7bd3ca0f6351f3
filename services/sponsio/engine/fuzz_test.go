package engine

import (
	"math/rand/v2"
	"testing"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

// stateAt plays a random game of seed for steps legal moves (or until it ends).
func stateAt(seats int, seed uint64, steps int) *State {
	g := Game{}
	s, _, _ := g.Setup(cfg(seats, seed))
	r := rand.New(rand.NewPCG(seed, 1))
	var buf []Action
	for range steps {
		if s.Phase == PhaseOver {
			break
		}
		buf = g.Legal(s, int(s.ToAct), buf[:0])
		if _, err := g.Apply(s, engine.Move[Action]{Seat: int(s.ToAct), Action: buf[r.IntN(len(buf))], At: at}); err != nil {
			panic(err)
		}
	}
	return s
}

// FuzzAction decodes any bytes as an action message and applies it at some point of a random
// game: no panic, and a refusal leaves the state as it was.
func FuzzAction(f *testing.F) {
	g := Game{}
	for _, a := range []Action{
		{Kind: ActPass, Card: NoCard}, {Kind: ActOpenBet, Card: 3, A: 4, B: 1}, {Kind: ActOpenToken, Card: 7, A: 2},
		{Kind: ActOpenChange, Card: 1, A: 2, B: 3}, {Kind: ActOption, A: 2}, {Kind: ActTarget, A: 3},
		{Kind: ActLay, Card: 35}, {Kind: ActChangeBet, A: 15, B: 1}, {Kind: ActKeepBet}, {Kind: ActPlay, Card: 8},
		{Kind: ActRedeem}, {Kind: ActKeepCounter},
	} {
		b, _ := proto.Marshal(g.EncodeAction(a))
		f.Add(b, uint64(1), uint16(5), uint8(1))
	}
	f.Add([]byte{0x12, 0x02, 0x08, 0x09}, uint64(2), uint16(40), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, steps uint16, seat uint8) {
		m := &sponsiov1.Action{}
		if err := proto.Unmarshal(data, m); err != nil {
			return
		}
		a, err := g.DecodeAction(m)
		if err != nil {
			if _, ok := err.(*engine.Violation); !ok {
				t.Fatalf("decode error %T", err)
			}
			return
		}
		s := stateAt(3+int(seed%2), seed, int(steps%400))
		if err := enginetest.CheckUnchangedOnError(g, s, engine.Move[Action]{Seat: int(seat%5) - 1, Action: a, At: at}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzEngineAction applies any engine-form action, however out of range its fields.
func FuzzEngineAction(f *testing.F) {
	f.Add(uint8(2), int8(3), int8(4), int8(1), uint64(1), uint16(3), uint8(1))
	f.Add(uint8(10), int8(-1), int8(0), int8(0), uint64(9), uint16(100), uint8(2))
	f.Add(uint8(3), int8(40), int8(-3), int8(9), uint64(4), uint16(0), uint8(0))
	g := Game{}
	f.Fuzz(func(t *testing.T, kind uint8, card, a, b int8, seed uint64, steps uint16, seat uint8) {
		s := stateAt(3+int(seed%2), seed, int(steps%400))
		act := Action{Kind: ActionKind(kind), Card: Card(card), A: a, B: b}
		if err := enginetest.CheckUnchangedOnError(g, s, engine.Move[Action]{Seat: int(seat % 4), Action: act, At: at}); err != nil {
			t.Fatal(err)
		}
	})
}
