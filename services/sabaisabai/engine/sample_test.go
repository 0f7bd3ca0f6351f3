package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

// untimed is the view without its clock: the deadlines and the waiting discard's time, which a
// world (no clock) does not have.
func untimed(v *pb.View) *pb.View {
	c := proto.Clone(v).(*pb.View)
	c.NoseDeadline, c.TurnDeadline, c.ThrowWindowEnds, c.DiscardLandsAt = nil, nil, nil, nil
	return c
}

// checkSample deals worlds from viewer's view of s and requires each to show viewer the same view
// (without the clock), to hold the 61 cards once each, and the same seed to deal the same world.
func checkSample(s *State, viewer int, r *rand.Rand) error {
	g := Game{}
	v := g.View(s, viewer).(*pb.View)
	seed := r.Uint64()
	w, ok := Sample(v, rand.New(rand.NewPCG(seed, 1)))
	if !ok {
		return fmt.Errorf("seat %d's view cannot be sampled: %v", viewer, v)
	}
	if got := g.View(w, viewer).(*pb.View); !proto.Equal(untimed(v), untimed(got)) {
		return fmt.Errorf("seat %d: the world shows another view:\nwant %v\ngot  %v", viewer, untimed(v), untimed(got))
	}
	if c := w.Conservation(); c != NumCards {
		return fmt.Errorf("the world holds %d cards", c)
	}
	var seen [NumCards]bool
	each := func(id uint8) error {
		if id == noCard {
			return nil
		}
		if seen[id] {
			return fmt.Errorf("card %d twice in the world", id)
		}
		seen[id] = true
		return nil
	}
	for _, r := range w.rows {
		for _, id := range r {
			if err := each(id); err != nil {
				return err
			}
		}
	}
	for _, id := range append(append([]uint8{w.drawn}, w.pile...), w.disc...) {
		if err := each(id); err != nil {
			return err
		}
	}
	if w.ToAct() != viewer && len(g.Legal(s, viewer, nil)) > 0 {
		return fmt.Errorf("the world waits for seat %d, not its viewer %d", w.ToAct(), viewer)
	}
	again, _ := Sample(proto.Clone(v).(*pb.View), rand.New(rand.NewPCG(seed, 1)))
	if !reflect.DeepEqual(w, again) {
		return fmt.Errorf("the same view and seed dealt two worlds")
	}
	return nil
}

// sampledGames plays seeded random games (every option, seat counts, people and bots, random
// timeouts) and calls f at every step.
func sampledGames(t *testing.T, games int, f func(s *State, r *rand.Rand) error) {
	for i := range games {
		r := rand.New(rand.NewPCG(uint64(i), 31))
		p := enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05,
			OnStep: func(s *State, _ enginetest.Step[Action]) error { return f(s, r) }}
		if _, err := p.Run(randomConfig(i), rand.New(rand.NewPCG(uint64(i), 32))); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
	}
}

// TestSampleConsistentWithView: over many seeded games, a world dealt from a seat's view shows that
// seat the same view (every card it knows where it knows it, who knows each card, the piles'
// sizes, the phase, the effects, the call), holds every card once, waits for the viewer first, and
// is the same for the same view and seed.
func TestSampleConsistentWithView(t *testing.T) {
	games := 120
	if testing.Short() || raceEnabled {
		games = 40
	}
	checked := 0
	sampledGames(t, games, func(s *State, r *rand.Rand) error {
		if s.over() || r.IntN(5) != 0 {
			return nil
		}
		checked++
		return checkSample(s, r.IntN(int(s.n)), r)
	})
	t.Logf("%d views sampled", checked)
}

// TestSampleSameViewSameWorld: two states that differ only in cards a seat does not know (two
// of them change places) give that seat the same view, and so the same worlds for the same seed.
func TestSampleSameViewSameWorld(t *testing.T) {
	g := Game{}
	pairs := 0
	games := 40
	if raceEnabled {
		games = 20
	}
	sampledGames(t, games, func(s *State, r *rand.Rand) error {
		if s.over() {
			return nil
		}
		viewer := r.IntN(int(s.n))
		c := g.Clone(s)
		var hidden []*uint8
		for seat := range c.rows {
			for i, id := range c.rows[seat] {
				if id != noCard && c.known[id]&bit(uint8(viewer)) == 0 {
					hidden = append(hidden, &c.rows[seat][i])
				}
			}
		}
		for i := range c.pile {
			hidden = append(hidden, &c.pile[i])
		}
		if len(hidden) < 2 {
			return nil
		}
		a, b := hidden[r.IntN(len(hidden))], hidden[r.IntN(len(hidden))]
		if c.known[*a] != c.known[*b] || number(*a) == number(*b) {
			return nil
		}
		*a, *b = *b, *a
		v1, v2 := g.View(s, viewer).(*pb.View), g.View(c, viewer).(*pb.View)
		if !proto.Equal(v1, v2) {
			return fmt.Errorf("the swap changed seat %d's view", viewer)
		}
		seed := r.Uint64()
		w1, ok1 := Sample(v1, rand.New(rand.NewPCG(seed, 2)))
		w2, ok2 := Sample(v2, rand.New(rand.NewPCG(seed, 2)))
		if !ok1 || !ok2 || !reflect.DeepEqual(w1, w2) {
			return fmt.Errorf("two states with the same view for seat %d gave different worlds", viewer)
		}
		pairs++
		return nil
	})
	if pairs < 50 {
		t.Fatalf("only %d pairs of states compared", pairs)
	}
}

// TestSampleSpreadsUnseenCards: the cards a seat has not seen are dealt at random: over many worlds
// of one view, an unknown slot of another seat takes many different cards, and a known one never
// changes.
func TestSampleSpreadsUnseenCards(t *testing.T) {
	s, _, err := Game{}.Setup(engine.Config{Seats: 4, Seed: 3, Options: &pb.Options{PeekAtStart: 2}, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	v := Game{}.View(s, 0).(*pb.View)
	r := rand.New(rand.NewPCG(1, 1))
	other := map[uint8]bool{}
	for range 200 {
		w, ok := Sample(v, r)
		if !ok {
			t.Fatal("not sampled")
		}
		other[number(w.rows[1][0])] = true
		for slot := range 2 {
			if w.rows[0][slot] != s.rows[0][slot] && number(w.rows[0][slot]) != number(s.rows[0][slot]) {
				t.Fatalf("own known slot %d changed", slot)
			}
		}
	}
	if len(other) < 10 {
		t.Fatalf("an unseen card took only %d values in 200 worlds", len(other))
	}
	if _, ok := Sample(Game{}.View(s, -1).(*pb.View), r); ok {
		t.Fatal("a spectator's view was sampled")
	}
}

// TestWorldsPlayOut: worlds dealt from views of random games play out to the end of the game by
// ToAct, Policy and Step with no refused move and every card kept.
func TestWorldsPlayOut(t *testing.T) {
	g := Game{}
	worlds := 0
	var buf []Action
	games := 60
	if raceEnabled {
		games = 20
	}
	sampledGames(t, games, func(s *State, r *rand.Rand) error {
		if s.over() || r.IntN(40) != 0 {
			return nil
		}
		viewer := r.IntN(int(s.n))
		if len(g.Legal(s, viewer, nil)) == 0 {
			return nil // the search deals worlds for a seat that decides
		}
		w, ok := Sample(g.View(s, viewer).(*pb.View), r)
		if !ok {
			return fmt.Errorf("not sampled")
		}
		worlds++
		for steps := 0; ; steps++ {
			if steps > 20_000 {
				return fmt.Errorf("the world did not end")
			}
			seat := w.ToAct()
			if seat < 0 {
				break
			}
			buf = g.Legal(w, seat, buf[:0])
			if len(buf) == 0 {
				return fmt.Errorf("seat %d to act has no legal action", seat)
			}
			if err := w.Step(seat, w.Policy(seat, buf)); err != nil {
				return fmt.Errorf("world step %d: %w", steps, err)
			}
			if c := w.Conservation(); c != NumCards {
				return fmt.Errorf("the world holds %d cards", c)
			}
		}
		if !w.Over() {
			return fmt.Errorf("no seat to act before the game's end")
		}
		return nil
	})
	t.Logf("%d worlds played out", worlds)
}
