package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

func cfg(seats int, seed uint64) engine.Config {
	return engine.Config{Seats: seats, Seed: seed, Options: &sponsiov1.Options{}, Start: time.Unix(1_800_000_000, 0)}
}

// deck is the set of cards in play.
func (s *State) deck() Cards {
	if s.Removed == NoColour {
		return allCards
	}
	return allCards &^ allCards.OfColour(s.Removed)
}

// checkCards requires every card of the deck in exactly one place.
func checkCards(s *State) error {
	seen, dup := s.Talon, Cards(0)
	add := func(c Cards) {
		dup |= seen & c
		seen |= c
	}
	for p := range s.Players {
		st := &s.Seats[p]
		add(st.Hand)
		add(st.Open)
		add(st.Taken)
		if st.Open&st.Played != 0 || st.Hand&st.Played != 0 {
			return fmt.Errorf("seat %d holds a played card", p)
		}
		if c := s.Plays[p]; c != NoCard {
			add(Cards(0).With(c))
		}
	}
	if dup != 0 {
		return fmt.Errorf("cards %b in two places", dup)
	}
	if seen != s.deck() {
		return fmt.Errorf("cards missing or foreign: have %b want %b", seen, s.deck())
	}
	return nil
}

// checkCoins requires the seats' coins (with those on the 3-Coin token) to be the start coins plus
// the bank's net flow, and never negative.
func checkCoins(s *State) error {
	var sum int64
	for p := range s.Players {
		st := &s.Seats[p]
		if st.Coins < 0 || st.Staked < 0 {
			return fmt.Errorf("seat %d has %d coins", p, st.Coins)
		}
		sum += int64(st.Coins) + int64(st.Staked)
	}
	want := int64(s.Players)*int64(s.rules.StartCoins) + s.BankOut - s.BankIn
	if sum != want {
		return fmt.Errorf("coins %d, want %d (bank out %d in %d)", sum, want, s.BankOut, s.BankIn)
	}
	return nil
}

// checkViews requires that no view shows another seat's hand, and that a seat's view and a
// spectator's do not change when hidden cards of other seats are swapped.
func checkViews(s *State, r *rand.Rand) error {
	g := Game{}
	for viewer := -1; viewer < int(s.Players); viewer++ {
		v := s.view(viewer)
		for _, pv := range v.GetSeats() {
			if int(pv.GetSeat()) != viewer && len(pv.GetHand()) > 0 {
				return fmt.Errorf("viewer %d sees seat %d's hand", viewer, pv.GetSeat())
			}
		}
		c, ok := swapHidden(s, viewer, -1, r)
		if !ok {
			continue
		}
		if !proto.Equal(v, g.View(c, viewer)) {
			return fmt.Errorf("viewer %d's view depends on other seats' hidden cards", viewer)
		}
	}
	return nil
}

// swapHidden returns a clone of s where one hidden card of two seats other than a and b is
// swapped.
func swapHidden(s *State, a, b int, r *rand.Rand) (*State, bool) {
	var others []int8
	for p := range s.Players {
		if int(p) != a && int(p) != b && s.Seats[p].Hand != 0 {
			others = append(others, p)
		}
	}
	if len(others) < 2 {
		return nil, false
	}
	r.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	c := s.clone()
	p, q := &c.Seats[others[0]], &c.Seats[others[1]]
	x, y := pick(p.Hand, r), pick(q.Hand, r)
	p.Hand, q.Hand = p.Hand.Without(x).With(y), q.Hand.Without(y).With(x)
	return c, true
}

func pick(s Cards, r *rand.Rand) Card {
	n := r.IntN(s.Len())
	for ; n > 0; n-- {
		s &= s - 1
	}
	return s.First()
}

// randomAction is any action, mostly illegal.
func randomAction(r *rand.Rand) Action {
	return Action{Kind: ActionKind(r.IntN(14)), Card: Card(r.IntN(38) - 1), A: int8(r.IntN(18) - 1), B: int8(r.IntN(3))}
}

func TestPropertiesRandomGames(t *testing.T) {
	games := 10_000
	g := Game{}
	r := rand.New(rand.NewPCG(7, 7))
	var plays [4]int
	p := enginetest.Playout[*State, Action]{Game: g, TimeoutChance: 0.02}
	var buf []Action
	heavy := false
	p.OnStep = func(s *State, st enginetest.Step[Action]) error {
		if err := checkCards(s); err != nil {
			return err
		}
		if err := checkCoins(s); err != nil {
			return err
		}
		for _, e := range st.Events {
			ev := e.Payload.(*sponsiov1.Event)
			if e.To == engine.Public && ev.GetHandDealt() != nil {
				return fmt.Errorf("a hand dealt in public")
			}
			if cp := ev.GetCardPlayed(); cp != nil {
				plays[cp.GetSeat()]++
			}
			if tw := ev.GetTrickWon(); tw != nil && tw.GetTrick() == 8 {
				for q := range s.Players {
					if plays[q] != 8 {
						return fmt.Errorf("seat %d played %d cards this round", q, plays[q])
					}
				}
				plays = [4]int{}
			}
		}
		if !heavy || r.IntN(20) != 0 || s.Phase == PhaseOver {
			return nil
		}
		if err := checkViews(s, r); err != nil {
			return err
		}
		if err := enginetest.CheckStateRoundTrip(g, s); err != nil {
			return err
		}
		// Refused moves change nothing, and a move is accepted exactly when Legal lists it.
		buf = g.Legal(s, int(s.ToAct), buf[:0])
		for range 8 {
			seat := r.IntN(int(s.Players))
			a := randomAction(r)
			if r.IntN(2) == 0 {
				seat = int(s.ToAct)
			}
			if err := enginetest.CheckUnchangedOnError(g, s, engine.Move[Action]{Seat: seat, Action: a, At: time.Unix(1_900_000_000, 0)}); err != nil {
				return err
			}
			listed := false
			for _, l := range buf {
				listed = listed || (seat == int(s.ToAct) && sameAction(l, a))
			}
			if !wellFormed(a) {
				continue
			}
			if accepted := s.check(seat, a) == nil; accepted != listed {
				return fmt.Errorf("action %v by seat %d: accepted %v, listed %v", a, seat, accepted, listed)
			}
		}
		return nil
	}
	for i := range games {
		heavy = i < 100
		plays = [4]int{}
		c := cfg(3+i%2, uint64(i))
		if i%3 == 0 {
			c.TurnTime = time.Minute // random timeouts too
		}
		if _, err := p.Run(c, rand.New(rand.NewPCG(uint64(i), 99))); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
	}
}

// sameAction compares actions on the fields their kind uses.
func sameAction(a, b Action) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case ActPass, ActKeepBet, ActRedeem, ActKeepCounter:
		return true
	case ActOpenBet, ActOpenChange:
		return a.Card == b.Card && a.A == b.A && a.B == b.B
	case ActOpenToken:
		return a.Card == b.Card && a.A == b.A
	case ActOption, ActTarget:
		return a.A == b.A
	case ActChangeBet:
		return a.A == b.A && a.B == b.B
	default:
		return a.Card == b.Card
	}
}

// TestHiddenCardsDoNotReachOthers applies the same move to a state and to a copy where hidden cards
// of two other seats are swapped: the public events and the mover's events must be the same.
func TestHiddenCardsDoNotReachOthers(t *testing.T) {
	g := Game{}
	r := rand.New(rand.NewPCG(3, 3))
	for i := range 150 {
		s, _, err := g.Setup(cfg(4, uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		var buf []Action
		for s.Phase != PhaseOver {
			buf = g.Legal(s, int(s.ToAct), buf[:0])
			a := buf[r.IntN(len(buf))]
			mover := int(s.ToAct)
			c, ok := swapHidden(s, mover, -1, r)
			m := engine.Move[Action]{Seat: mover, Action: a, At: time.Unix(1_900_000_000, 0)}
			evs, err := g.Apply(s, m)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			evs2, err := g.Apply(c, m)
			if err != nil {
				t.Fatalf("game %d: move %v refused after a swap of others' hidden cards: %v", i, a, err)
			}
			for _, to := range []int{engine.Public, mover} {
				a, b := enginetest.Payloads(evs, to), enginetest.Payloads(evs2, to)
				if len(a) != len(b) {
					t.Fatalf("game %d: events for %d depend on others' hidden cards", i, to)
				}
				for k := range a {
					if !proto.Equal(a[k], b[k]) {
						t.Fatalf("game %d: event %v for %d depends on others' hidden cards", i, a[k], to)
					}
				}
			}
		}
	}
}

func TestDeterminism(t *testing.T) {
	p := enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05}
	enginetest.CheckDeterminism(t, p, 200, func(i int) engine.Config {
		c := cfg(3+i%2, uint64(i)*7919)
		c.TurnTime = 30 * time.Second
		return c
	})
}
