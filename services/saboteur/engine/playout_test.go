package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// cfgFor spreads games over both modes, every player count, the classic option and turn timers.
func cfgFor(i int) engine.Config {
	opts := &pb.Options{}
	n := 2 + i%11
	if i%3 == 0 {
		opts.Mode = pb.Mode_MODE_CLASSIC
		n = 3 + (i/3)%8
		opts.ClassicDiscardTwoToRepair = (i/3)%2 == 0
	}
	tt := time.Duration(0)
	if i%4 == 1 {
		tt = 30 * time.Second
	}
	return engine.Config{Seats: n, Seed: uint64(i)*7919 + 1, Options: opts, TurnTime: tt, Start: t0}
}

// checkEvents requires that no audience learns what it may not: public events carry no hand, role,
// map or inspection, and drawn cards; private ones carry only the seat's own cards and role.
func checkEvents(s *State, st enginetest.Step[Action], evs []engine.Event) error {
	// Events before a new round's deal speak of hands and roles that the deal has since replaced.
	fresh := 0
	for i, e := range evs {
		if _, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_RoundStarted); ok {
			fresh = i
		}
	}
	for i, e := range evs {
		p := e.Payload.(*pb.Event)
		stale := i < fresh || s.over
		if e.To == engine.Public {
			switch k := p.Kind.(type) {
			case *pb.Event_HandDealt, *pb.Event_RoleDealt, *pb.Event_MapResult, *pb.Event_InspectionResult:
				return fmt.Errorf("private event %T sent publicly", k)
			case *pb.Event_Drew:
				if len(k.Drew.Cards) > 0 {
					return fmt.Errorf("public draw shows cards")
				}
			}
			continue
		}
		if e.To < 0 || e.To >= s.n {
			return fmt.Errorf("event for audience %d", e.To)
		}
		hand := s.hands[e.To]
		var shown []pb.Card
		switch k := p.Kind.(type) {
		case *pb.Event_HandDealt:
			shown = k.HandDealt.Cards
		case *pb.Event_Drew:
			shown = k.Drew.Cards
			if int(k.Drew.Seat) != e.To {
				return fmt.Errorf("seat %d told of seat %d's draw", e.To, k.Drew.Seat)
			}
		case *pb.Event_RoleDealt:
			if uint8(k.RoleDealt.Role) != s.roles[e.To] && !stale {
				return fmt.Errorf("seat %d told role %v, holds %v", e.To, k.RoleDealt.Role, s.roles[e.To])
			}
		case *pb.Event_MapResult, *pb.Event_InspectionResult:
			if e.To != st.Seat {
				return fmt.Errorf("seat %d got another's %T", e.To, k)
			}
		default:
			return fmt.Errorf("unexpected private %T", k)
		}
		cs := make([]uint8, len(shown))
		for i, c := range shown {
			cs[i] = uint8(c)
		}
		if !stale && !holds(hand, cs) {
			return fmt.Errorf("seat %d shown cards %v not in its hand %v", e.To, shown, hand)
		}
	}
	return nil
}

// checkViews requires that every view shows only its viewer's hand and role, roles the viewer has
// inspected, and face-down goals only the viewer has mapped; a spectator sees none of those.
func checkViews(s *State) error {
	for v := -1; v < s.n; v++ {
		view := s.view(v)
		if v < 0 {
			if len(view.Hand) != 0 || view.Role != 0 {
				return fmt.Errorf("spectator sees a hand or role")
			}
		} else {
			h := make([]uint8, len(view.Hand))
			for i, c := range view.Hand {
				h[i] = uint8(c)
			}
			if !slices.Equal(h, s.hands[v]) || uint8(view.Role) != s.roles[v] {
				return fmt.Errorf("seat %d sees a wrong hand or role", v)
			}
		}
		for i, si := range view.SeatInfo {
			if si.Role == 0 || i == v {
				continue
			}
			if v < 0 || uint8(si.Role) != s.seen[v*s.n+i] {
				return fmt.Errorf("viewer %d sees seat %d's role", v, i)
			}
		}
		for i, bc := range view.Board {
			if bc.FaceDown && bc.Card != 0 && (v < 0 || s.mapped[v]&(1<<(i-1)) == 0) {
				return fmt.Errorf("viewer %d sees a face-down goal", v)
			}
		}
		if view.Removed != uint32(len(s.removed)) {
			return fmt.Errorf("removed count")
		}
	}
	return nil
}

// eastward mostly places the path card that lies furthest east, else plays at random.
type eastward struct{}

func (eastward) Choose(_ proto.Message, legal []Action, r *rand.Rand) Action {
	if r.IntN(10) < 8 {
		best := -1
		for i, a := range legal {
			if a.Kind == KindPlace && (best < 0 || a.X > legal[best].X) {
				best = i
			}
		}
		if best >= 0 {
			return legal[best]
		}
	}
	return legal[r.IntN(len(legal))]
}

// checkPlacementsComplete compares the legal placements with a brute force over every cell around
// the board, every path card in hand and both orientations.
func checkPlacementsComplete(s *State) error {
	if s.over || s.phase != phaseTurn {
		return nil
	}
	seat := s.cur
	listed := map[Action]bool{}
	for _, a := range (Game{}).Legal(s, seat, nil) {
		if a.Kind == KindPlace {
			listed[a] = true
		}
	}
	minX, maxX, minY, maxY := 0, 0, 0, 0
	for _, sl := range s.b.slots {
		minX, maxX = min(minX, int(sl.x)), max(maxX, int(sl.x))
		minY, maxY = min(minY, int(sl.y)), max(maxY, int(sl.y))
	}
	for _, c := range s.hands[seat] {
		if !IsPath(c) {
			continue
		}
		for _, rot := range []bool{false, true} {
			for x := minX - 1; x <= maxX+1; x++ {
				for y := minY - 1; y <= maxY+1; y++ {
					a := Action{Kind: KindPlace, Card: c, Rot: rot, X: int8(x), Y: int8(y)}
					if s.validate(seat, a) != nil {
						if listed[a] {
							return fmt.Errorf("legal lists a refused placement %+v", a)
						}
						continue
					}
					if rot && symmetric[c] {
						a.Rot = false
					}
					if !listed[a] {
						return fmt.Errorf("valid placement %+v missing from the legal list", a)
					}
				}
			}
		}
	}
	return nil
}

// randomIllegal makes a random, mostly illegal action.
func randomIllegal(r *rand.Rand) Action {
	a := Action{Kind: Kind(r.IntN(7)), Card: uint8(r.IntN(int(numCards))), Rot: r.IntN(2) == 0,
		X: int8(r.IntN(21) - 10), Y: int8(r.IntN(21) - 10), Target: uint8(r.IntN(13)), Tool: uint8(r.IntN(4)),
		InFront: frontCards[r.IntN(5)], N: uint8(1 + r.IntN(3))}
	for i := range a.Cards {
		a.Cards[i] = uint8(1 + r.IntN(int(numCards)-1))
	}
	return a
}

func TestPropertiesRandomGames(t *testing.T) {
	games := 5000
	if testing.Short() {
		games = 500
	}
	const shards = 4
	for sh := range shards {
		t.Run(fmt.Sprintf("shard%d", sh), func(t *testing.T) {
			t.Parallel()
			propertyShard(t, sh, shards, games)
		})
	}
}

// randomGame plays one game from cfg: each action chosen by choose from the legal list of the seat
// to act (the only seat that can act), a pending deadline let pass with a 5% chance. A step is
// handed to onStep. It is a lean playout (no view per step), so thousands of games stay cheap.
func randomGame(cfg engine.Config, r *rand.Rand, choose func([]Action, *rand.Rand) Action,
	onStep func(*State, enginetest.Step[Action]) error) (*State, []engine.Event, error) {
	g := Game{}
	s, setup, err := g.Setup(cfg)
	if err != nil {
		return nil, nil, err
	}
	now := cfg.Start
	var legal []Action
	for steps := 0; !s.over; steps++ {
		if steps > 10_000 {
			return s, setup, fmt.Errorf("game not over after %d steps", steps)
		}
		legal = g.Legal(s, s.cur, legal[:0])
		deadline, waits := g.Deadline(s)
		st := enginetest.Step[Action]{Seat: -1}
		if waits && (len(legal) == 0 || r.Float64() < 0.05) {
			now = deadline
			st.Timeout, st.At = true, now
			st.Events, err = g.Timeout(s, now)
		} else {
			if len(legal) == 0 {
				return s, setup, fmt.Errorf("seat %d to act has no legal action", s.cur)
			}
			st.Seat, st.Action = s.cur, choose(legal, r)
			now = now.Add(time.Second)
			st.At = now
			st.Events, err = g.Apply(s, engine.Move[Action]{Seat: st.Seat, Action: st.Action, At: now})
		}
		if err != nil {
			return s, setup, fmt.Errorf("step %d: legal move refused: %w", steps, err)
		}
		if err := onStep(s, st); err != nil {
			return s, setup, fmt.Errorf("step %d: %w", steps, err)
		}
	}
	return s, setup, nil
}

func uniform(legal []Action, r *rand.Rand) Action { return legal[r.IntN(len(legal))] }

func propertyShard(t *testing.T, shard, shards, games int) {
	g := Game{}
	var gold, picks, steals int
	for i := shard; i < games; i += shards {
		cfg := cfgFor(i)
		r := rand.New(rand.NewPCG(uint64(i), 3))
		deep := i%50 == 0
		choose := uniform
		if (i/shards)%2 == 1 {
			// Half the games dig eastward greedily, so gold is reached, shared out and stolen often.
			choose = func(legal []Action, r *rand.Rand) Action { return eastward{}.Choose(nil, legal, r) }
		}
		onStep := func(s *State, st enginetest.Step[Action]) error {
			if !s.over && !s.Conserved() {
				return fmt.Errorf("cards not conserved")
			}
			if err := checkEvents(s, st, st.Events); err != nil {
				return err
			}
			for _, e := range st.Events {
				switch k := e.Payload.(*pb.Event).Kind.(type) {
				case *pb.Event_RoundEnded:
					if k.RoundEnded.Result.GoldReached {
						gold++
					}
				case *pb.Event_GoldPicked:
					picks++
				case *pb.Event_Stolen:
					if k.Stolen.Took {
						steals++
					}
				}
			}
			if st.Action.Kind == KindPlace || st.Action.Card == cRockfall || len(st.Events) > 2*s.n {
				// The board only changes by a placement, a rockfall or a new round's deal.
				if !s.b.consistent() {
					return fmt.Errorf("board inconsistent")
				}
			}
			if deep {
				for seat := range s.n {
					if seat != s.cur && len(g.Legal(s, seat, nil)) > 0 {
						return fmt.Errorf("seat %d may act out of turn", seat)
					}
				}
				if !s.BoardConsistent() {
					return fmt.Errorf("incremental reachability differs from a recomputation")
				}
				if err := checkPlacementsComplete(s); err != nil {
					return err
				}
				if err := checkViews(s); err != nil {
					return err
				}
				if err := enginetest.CheckStateRoundTrip(g, s); err != nil {
					return err
				}
				for range 3 {
					m := engine.Move[Action]{Seat: r.IntN(s.n), Action: randomIllegal(r), At: st.At}
					if err := enginetest.CheckUnchangedOnError(g, s, m); err != nil {
						return err
					}
				}
			}
			return nil
		}
		var steps []enginetest.Step[Action]
		record := func(s *State, st enginetest.Step[Action]) error {
			steps = append(steps, st)
			return onStep(s, st)
		}
		s, setup, err := randomGame(cfg, r, choose, record)
		if err != nil {
			t.Fatalf("game %d (%d seats, %v): %v", i, cfg.Seats, cfg.Options, err)
		}
		// Determinism: the seed and the action log (through the proto encoding) give the same events
		// and the same final state.
		s2, evs, err := enginetest.Replay(g, cfg, steps)
		if err != nil {
			t.Fatalf("game %d replay: %v", i, err)
		}
		for j := range steps {
			// Every game compares the event counts; every tenth the events themselves (proto.Equal is
			// slow, and TestDeterminism compares them all on 100 more games).
			if len(steps[j].Events) != len(evs[j]) || i%10 == 0 && !enginetest.SameEvents(steps[j].Events, evs[j]) {
				t.Fatalf("game %d step %d: replay gave other events", i, j)
			}
		}
		b1, _ := g.EncodeState(s)
		b2, _ := g.EncodeState(s2)
		if !bytes.Equal(b1, b2) {
			t.Fatalf("game %d: replayed state differs", i)
		}
		if err := checkEvents(s, enginetest.Step[Action]{Seat: -1}, setup); err != nil {
			t.Fatalf("game %d deal: %v", i, err)
		}
		if _, ok := g.Outcome(s); !ok {
			t.Fatalf("game %d not over", i)
		}
	}
	t.Logf("shard %d: rounds reaching the gold %d, gold cards picked %d, nuggets stolen %d", shard, gold, picks, steals)
	if gold == 0 || steals == 0 || picks == 0 {
		t.Fatal("the random games never exercised the round's end")
	}
}

func TestDeterminism(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 50
	}
	enginetest.CheckDeterminism(t, enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05}, n, cfgFor)
}

func TestSetupRefusals(t *testing.T) {
	for _, tc := range []struct {
		seats int
		opts  *pb.Options
		code  string
	}{
		{1, &pb.Options{}, engine.CodeBadSeatCount},
		{13, &pb.Options{}, engine.CodeBadSeatCount},
		{2, &pb.Options{Mode: pb.Mode_MODE_CLASSIC}, engine.CodeBadSeatCount},
		{11, &pb.Options{Mode: pb.Mode_MODE_CLASSIC}, engine.CodeBadSeatCount},
		{4, &pb.Options{ClassicDiscardTwoToRepair: true}, engine.CodeBadOptions},
		{4, &pb.Options{Mode: 9}, engine.CodeBadOptions},
	} {
		_, _, err := Game{}.Setup(engine.Config{Seats: tc.seats, Options: tc.opts})
		v, ok := err.(*engine.Violation)
		if !ok || v.Code != tc.code || v.Kind != engine.Malformed {
			t.Errorf("%d seats %v: %v", tc.seats, tc.opts, err)
		}
	}
	for _, n := range []int{2, 12} {
		if _, _, err := (Game{}).Setup(engine.Config{Seats: n, Options: &pb.Options{}}); err != nil {
			t.Errorf("%d seats: %v", n, err)
		}
	}
}
