package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// randomConfig draws a valid table: a player count and a random variant combination.
func randomConfig(i int) engine.Config {
	r := rand.New(rand.NewPCG(uint64(i), 77))
	for {
		n := 3 + r.IntN(4)
		var vars []int
		if r.IntN(3) > 0 {
			vars = append(vars, schemeVariants[r.IntN(len(schemeVariants))])
		}
		for v := 1; v <= numVariants; v++ {
			if r.IntN(5) == 0 {
				vars = append(vars, v)
			}
		}
		o := OptionsOf(vars...)
		if CheckOptions(n, variantsOf(o)) != nil {
			continue
		}
		cfg := engine.Config{Seats: n, Seed: uint64(i)*7919 + 1, Options: o, Start: start}
		if i%3 == 0 {
			cfg.TurnTime = 30 * time.Second
		}
		return cfg
	}
}

// location lists where every card is; it fails unless each of the 52 is in exactly one place.
func conservation(s *State) error {
	var seen uint64
	count := 0
	add := func(what string, m uint64) error {
		if seen&m != 0 {
			return fmt.Errorf("cards %x of %s are also elsewhere", seen&m, what)
		}
		seen |= m
		count += popcount(m)
		return nil
	}
	type part struct {
		name string
		m    uint64
	}
	parts := [...]part{{"discard", s.Discard}, {"removed", s.Removed}, {"open pile", s.OpenPile}, {"fugitives", s.Fugitives},
		{"revealed", s.Revealed}, {"hidden", s.Hidden}, {"pile", setOf(s.Pile[s.PilePos:max(s.PilePos, s.PileLen)])},
		{"group", setOf(s.Group[:s.GroupLen])}}
	for _, p := range parts {
		if err := add(p.name, p.m); err != nil {
			return err
		}
	}
	for i := int8(0); i < s.N; i++ {
		if err := add("a hand", s.Hands[i]); err != nil {
			return fmt.Errorf("seat %d: %w", i, err)
		}
		if err := add("an area", s.Areas[i]); err != nil {
			return fmt.Errorf("seat %d: %w", i, err)
		}
	}
	if s.TrumpCard >= 0 {
		if err := add("trump", bit(s.TrumpCard)); err != nil {
			return err
		}
	}
	for i := 0; i < int(s.NPlayed); i++ {
		if err := add("table", bit(s.Table[i].Card)); err != nil {
			return err
		}
	}
	if s.on(vAceUpTheSleeve) {
		deck := s.SleeveDeck[:s.N]
		if s.Phase == PhaseSleeve {
			deck = nil
			for _, c := range s.Sleeve[:s.N] {
				if c >= 0 {
					deck = append(deck, c)
				}
			}
		}
		if err := add("trump deck", setOf(deck)); err != nil {
			return err
		}
	}
	if count != numCards {
		return fmt.Errorf("%d cards accounted for, not 52", count)
	}
	return nil
}

// secret is the set of cards viewer may not see now.
func secret(s *State, viewer int) uint64 {
	var m uint64 = s.Removed | setOf(s.Group[:s.GroupLen])
	for i := 0; i < int(s.N); i++ {
		if i != viewer {
			m |= s.Hands[i]
			if s.Phase == PhaseSleeve && s.Sleeve[i] >= 0 {
				m |= bit(s.Sleeve[i])
			}
		}
	}
	if !(s.Phase == PhaseHiddenPick && int(s.Turn) == viewer) {
		m |= s.Hidden
	}
	rest := s.Pile[s.PilePos:max(s.PilePos, s.PileLen)]
	switch {
	case s.on(vOpenInformation):
	case s.pileScheme() && !s.on(vClosedInformation) && len(rest) > 0:
		m |= setOf(rest[1:])
	default:
		m |= setOf(rest)
	}
	return m
}

// cardsIn collects every Card inside a message.
func cardsIn(msg proto.Message) uint64 {
	var m uint64
	var walk func(protoreflect.Message)
	walk = func(x protoreflect.Message) {
		if c, ok := x.Interface().(*pb.Card); ok {
			if card, v := cardFromPB(c, ""); v == nil && card >= 0 {
				m |= bit(card)
			}
			return
		}
		x.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind {
				return true
			}
			switch {
			case fd.IsList():
				for i := 0; i < val.List().Len(); i++ {
					walk(val.List().Get(i).Message())
				}
			case fd.IsMap():
			default:
				walk(val.Message())
			}
			return true
		})
	}
	walk(msg.ProtoReflect())
	return m
}

// eventCards is cardsIn for events without reflection (the property test's hot path); the first
// games cross-check it against cardsIn.
func eventCards(e *pb.Event) uint64 {
	var m uint64
	add := func(cs ...*pb.Card) {
		for _, c := range cs {
			if id := CardID(c); id >= 0 {
				m |= bit(id)
			}
		}
	}
	switch k := e.GetKind().(type) {
	case *pb.Event_GameStarted:
		add(k.GameStarted.GetOpenPile()...)
		add(k.GameStarted.GetFugitives()...)
	case *pb.Event_HandDealt:
		add(k.HandDealt.GetCards()...)
	case *pb.Event_RoundStarted:
		add(k.RoundStarted.GetTrumpCard(), k.RoundStarted.GetNextTrump())
		add(k.RoundStarted.GetRevealed()...)
	case *pb.Event_Jumped:
		add(k.Jumped.GetAreaCard(), k.Jumped.GetBomb(), k.Jumped.GetFugitive())
	case *pb.Event_CardPlayed:
		add(k.CardPlayed.GetCard())
	case *pb.Event_RoundEnded:
		add(k.RoundEnded.GetWinningCard())
		add(k.RoundEnded.GetCaptured()...)
		add(k.RoundEnded.GetDiscarded()...)
	case *pb.Event_CardTaken:
		add(k.CardTaken.GetCard())
	case *pb.Event_SleeveChosen:
		add(k.SleeveChosen.GetCard())
	case *pb.Event_SleeveRevealed:
		add(k.SleeveRevealed.GetCards()...)
	case *pb.Event_HiddenPileShown:
		add(k.HiddenPileShown.GetCards()...)
	}
	return m
}

// leakCheck follows one game: known[v] is every card viewer v has legitimately seen.
type leakCheck struct {
	known [7]uint64 // index viewer+1
	cross bool      // cross-check eventCards against cardsIn
}

func (lc *leakCheck) events(s *State, evs []engine.Event) error {
	for _, e := range evs {
		shown := eventCards(e.Payload.(*pb.Event))
		if lc.cross && shown != cardsIn(e.Payload) {
			return fmt.Errorf("eventCards misses cards of %v", e.Payload)
		}
		if e.To == engine.Public {
			for v := -1; v < int(s.N); v++ {
				if leak := shown & secret(s, v) &^ lc.known[v+1]; leak != 0 {
					return fmt.Errorf("public event %v shows secret cards %x to viewer %d", e.Payload, leak, v)
				}
			}
			for v := range lc.known {
				lc.known[v] |= shown
			}
			continue
		}
		if leak := shown & secret(s, e.To) &^ lc.known[e.To+1]; leak != 0 {
			return fmt.Errorf("event %v to seat %d shows secret cards %x", e.Payload, e.To, leak)
		}
		lc.known[e.To+1] |= shown
	}
	return nil
}

func (lc *leakCheck) views(g Game, s *State) error {
	for v := -1; v < int(s.N); v++ {
		shown := cardsIn(g.View(s, v))
		if leak := shown & secret(s, v) &^ lc.known[v+1]; leak != 0 {
			return fmt.Errorf("view of %d shows secret cards %x", v, leak)
		}
		lc.known[v+1] |= shown
	}
	return nil
}

// handsAndMarkers checks the base invariant at a round's start: hand + markers = rounds left.
func handsAndMarkers(s *State) error {
	if s.Phase != PhasePlay || s.NPlayed != 0 || s.Acted != 0 {
		return nil
	}
	left := int(s.Rounds - s.Round + 1)
	for i := int8(0); i < s.N; i++ {
		if got := popcount(s.Hands[i]) + int(s.Markers[i]); got != left {
			return fmt.Errorf("round %d seat %d: hand+markers %d, rounds left %d", s.Round, i, got, left)
		}
	}
	return nil
}

// keepsHandMarkers: variants under which hand + markers = rounds left holds.
func keepsHandMarkers(vars uint32) bool {
	return vars&(1<<vFrogsOnDuty|1<<vAceUpTheSleeve|1<<vCostlyAbsence|1<<vRemoteBomb|1<<vPlanting|1<<vPlantingMore) == 0
}

func TestPropertiesRandomGames(t *testing.T) {
	games := 10_000
	if testing.Short() {
		games = 1000
	}
	g := Game{}
	viewEvery, sampleEvery, unchangedEvery, roundTripEvery := 40, 10, 10, 1
	if raceEnabled {
		viewEvery, sampleEvery, unchangedEvery, roundTripEvery = 150, 40, 30, 10
	}
	var illegal = []Action{Jump(), Play(0), Play(12), Play(51), PlayTo(5, 1), Pick(3), Pick(40), Decline(), ChooseTrump(2),
		{Kind: KindJump, Card: 7, Bomb: 12, Fugitive: 30, Target: -1}, {Kind: 99, Card: -1, Bomb: -1, Fugitive: -1, Target: -1}}
	for i := range games {
		cfg := randomConfig(i)
		vars := variantsOf(cfg.Options.(*pb.Options))
		lc := &leakCheck{cross: i < 300 && (!raceEnabled || i < 50)}
		r := rand.New(rand.NewPCG(uint64(i), 3))
		fullViews := i < 200 && (!raceEnabled || i < 40)
		p := enginetest.Playout[*State, Action]{Game: g, TimeoutChance: 0.05}
		p.OnStep = func(s *State, st enginetest.Step[Action]) error {
			if err := conservation(s); err != nil {
				return err
			}
			if keepsHandMarkers(vars) {
				if err := handsAndMarkers(s); err != nil {
					return err
				}
			}
			if err := lc.events(s, st.Events); err != nil {
				return err
			}
			if fullViews || r.IntN(viewEvery) == 0 {
				if err := lc.views(g, s); err != nil {
					return err
				}
			}
			if r.IntN(sampleEvery) == 0 && s.Phase == PhasePlay {
				if err := checkSample(g, s, r); err != nil {
					return err
				}
			}
			if r.IntN(unchangedEvery) == 0 {
				seat := r.IntN(int(s.N) + 1)
				a := illegal[r.IntN(len(illegal))]
				if err := enginetest.CheckUnchangedOnError(g, s, engine.Move[Action]{Seat: seat, Action: a, At: st.At}); err != nil {
					return err
				}
			}
			return nil
		}
		s0, setup, err := g.Setup(cfg)
		if err != nil {
			t.Fatalf("game %d setup: %v", i, err)
		}
		if err := conservation(s0); err != nil {
			t.Fatalf("game %d after setup: %v", i, err)
		}
		if err := lc.events(s0, setup); err != nil {
			t.Fatalf("game %d setup: %v", i, err)
		}
		res, err := p.Run(cfg, r)
		if err != nil {
			t.Fatalf("game %d (%d seats, %s): %v", i, cfg.Seats, describeVariants(vars), err)
		}
		if _, over := g.Outcome(res.State); !over {
			t.Fatalf("game %d not over", i)
		}
		if i%roundTripEvery != 0 {
			continue
		}
		if err := enginetest.CheckStateRoundTrip(g, res.State); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
	}
}

func TestDeterminism(t *testing.T) {
	n := 300
	if testing.Short() || raceEnabled {
		n = 50
	}
	enginetest.CheckDeterminism(t, enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05}, n, randomConfig)
}

func TestEveryVariantPlays(t *testing.T) {
	for v := 1; v <= numVariants; v++ {
		for n := 3; n <= 6; n++ {
			o := OptionsOf(v)
			if CheckOptions(n, variantsOf(o)) != nil {
				continue
			}
			for seed := range 20 {
				cfg := engine.Config{Seats: n, Seed: uint64(seed), Options: o, Start: start}
				p := enginetest.Playout[*State, Action]{Game: Game{}, OnStep: func(s *State, _ enginetest.Step[Action]) error { return conservation(s) }}
				if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(seed), 1))); err != nil {
					t.Fatalf("variant %d, %d players, seed %d: %v", v, n, seed, err)
				}
			}
		}
	}
}

// checkSample requires that a state sampled from the acting seat's view holds every card once and
// offers that seat the same legal actions.
func checkSample(g Game, s *State, r *rand.Rand) error {
	v := g.View(s, int(s.Turn)).(*pb.View)
	ss, ok := Sample(v, r)
	if !ok {
		return nil
	}
	if err := conservation(ss); err != nil {
		return fmt.Errorf("sampled state: %w", err)
	}
	want := g.Legal(s, int(s.Turn), nil)
	got := g.Legal(ss, int(s.Turn), nil)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return fmt.Errorf("sampled state offers %v, the real one %v", got, want)
	}
	Playout(ss, r, int(s.Turn))
	if ss.Phase != PhaseOver {
		return fmt.Errorf("sampled playout did not end")
	}
	return nil
}
