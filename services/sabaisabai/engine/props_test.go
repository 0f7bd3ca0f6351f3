package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

var start = time.Unix(1_800_000_000, 0).UTC()

// propertyGames is the number of random games the property test plays (SABAI_GAMES overrides).
func propertyGames() int {
	if v, err := strconv.Atoi(os.Getenv("SABAI_GAMES")); err == nil && v > 0 {
		return v
	}
	return 10_000
}

// randomConfig varies seats and every option.
func randomConfig(i int) engine.Config {
	r := rand.New(rand.NewPCG(uint64(i), 77))
	seats := 4
	if i%4 == 0 {
		seats = 2 + r.IntN(11)
	}
	opts := &pb.Options{PeekAtStart: uint32(r.IntN(5)), Rounds: uint32(1 + r.IntN(3))}
	if r.IntN(4) == 0 {
		opts.ThrowForOthers = proto.Bool(false)
	}
	if r.IntN(2) == 0 {
		opts.NoseDeadline = durationpb.New(time.Duration(1+r.IntN(5)) * time.Second)
	}
	cfg := engine.Config{Seats: seats, Seed: uint64(i) * 7919, Options: opts, Start: start}
	if r.IntN(3) == 0 {
		cfg.TurnTime = time.Duration(2+r.IntN(10)) * time.Second
	}
	// Who sits: unsaid, people only (the throw window), or people and bots whose throws are not
	// delayed (a random playout acts without waiting for reactions) but whose discards wait for
	// their think.
	switch i % 3 {
	case 1:
		cfg.Kinds = make([]gamev1.PlayerKind, seats)
		for s := range cfg.Kinds {
			cfg.Kinds[s] = gamev1.PlayerKind_PLAYER_KIND_HUMAN
		}
		if r.IntN(2) == 0 {
			opts.ThrowWindow = durationpb.New(time.Duration(r.IntN(3000)) * time.Millisecond)
		}
	case 2:
		cfg.Kinds = make([]gamev1.PlayerKind, seats)
		for s := range cfg.Kinds {
			cfg.Kinds[s] = gamev1.PlayerKind(1 + r.IntN(2))
		}
		opts.BotReactionMin, opts.BotReactionMax = durationpb.New(0), durationpb.New(0)
	}
	return cfg
}

// TestProperties plays many random games with random throws, replays each from its log (same
// events, same final state) and checks at every step: card conservation, that every event goes to a seat or to everybody and reveals a face-down card only
// to an audience that knows it, and that refused random moves change nothing. Views are checked
// for leaks on a share of the steps (every step of the first games).
func TestProperties(t *testing.T) {
	n := propertyGames()
	// Two shards in parallel: the machine has two cores and the race detector is slow.
	const shards = 2
	for shard := range shards {
		t.Run(fmt.Sprint("shard", shard), func(t *testing.T) {
			t.Parallel()
			var games []int
			for i := shard; i < n; i += shards {
				games = append(games, i)
			}
			propertyGamesRun(t, games)
		})
	}
}

func propertyGamesRun(t *testing.T, games []int) {
	g := Game{}
	var steps, refused int
	for _, i := range games {
		cfg := randomConfig(i)
		chk := rand.New(rand.NewPCG(uint64(i), 3))
		// Every viewer at every step in the first games, one random viewer now and then after.
		viewEvery, allViewers := 1, true
		if i >= 10 {
			viewEvery, allViewers = 100, false
		}
		p := enginetest.Playout[*State, Action]{Game: g, TimeoutChance: 0.05, Record: true}
		p.OnStep = func(s *State, st enginetest.Step[Action]) error {
			steps++
			if c := s.Conservation(); c != NumCards {
				return fmt.Errorf("%d cards on the table", c)
			}
			if steps%64 == 0 {
				if err := s.validate(); err != nil {
					return err // every card exactly once
				}
			}
			if err := checkEvents(s, st.Events, allViewers); err != nil {
				return err
			}
			if steps%viewEvery == 0 {
				if err := checkViews(s, chk, allViewers); err != nil {
					return err
				}
			}
			if steps%32 == 0 {
				m := randomMove(s, chk)
				if err := enginetest.CheckUnchangedOnError(g, s, m); err != nil {
					return err
				}
				if _, err := g.Apply(g.Clone(s), m); err != nil {
					refused++
				}
			}
			if steps%200 == 0 {
				if err := enginetest.CheckStateRoundTrip(g, s); err != nil {
					return err
				}
			}
			return nil
		}
		res, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 11)))
		if err != nil {
			t.Fatalf("game %d (%d seats): %v", i, cfg.Seats, err)
		}
		if _, over := g.Outcome(res.State); !over {
			t.Fatalf("game %d did not end", i)
		}
		// Determinism of the ordered log: the same seed and actions give the same events and state.
		s2, evs, err := enginetest.Replay(g, cfg, res.Steps)
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		for j, st := range res.Steps {
			// Comparing payloads is slow (reflection): every game compares the counts and audiences,
			// the first 500 the payloads too.
			same := len(st.Events) == len(evs[j])
			for k := 0; same && k < len(st.Events); k++ {
				same = st.Events[k].To == evs[j][k].To
			}
			if !same || (i < 500 && !enginetest.SameEvents(st.Events, evs[j])) {
				t.Fatalf("game %d step %d: the replay gave other events", i, j)
			}
		}
		b1, _ := g.EncodeState(res.State)
		b2, _ := g.EncodeState(s2)
		if !bytes.Equal(b1, b2) {
			t.Fatalf("game %d: the replay ended in another state", i)
		}
	}
	t.Logf("%d games, %d steps, %d random moves refused", len(games), steps, refused)
	if refused == 0 {
		t.Fatal("no random move was ever refused: the illegal-move check checked nothing")
	}
}

func TestDeterminism(t *testing.T) {
	p := enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05}
	enginetest.CheckDeterminism(t, p, 300, randomConfig)
}

// randomMove makes a move that is often illegal: a random kind, seat and numbers near the valid
// ones.
func randomMove(s *State, r *rand.Rand) engine.Move[Action] {
	a := Action{Kind: Kind(1 + r.IntN(7))}
	a.Owner = uint8(r.IntN(int(s.n) + 1))
	a.N = uint8(1 + r.IntN(3))
	for i := range a.Slots {
		a.Slots[i] = uint8(r.IntN(6))
	}
	a.Top = uint8(1 + r.IntN(16))
	if top := s.top(); top != noCard && r.IntN(2) == 0 {
		a.Top = number(top)
	}
	a.Turn = s.turn - uint64(r.IntN(2))
	a.Slot, a.Target, a.TargetSlot = uint8(r.IntN(6)), uint8(r.IntN(int(s.n)+1)), uint8(r.IntN(6))
	return engine.Move[Action]{Seat: r.IntN(int(s.n)+1) - 1 + r.IntN(2), Action: a, At: start.Add(time.Hour)}
}

// checkEvents requires that each event goes to everybody or one seat, that secret kinds are never
// public, and that every face-down card an event shows is one its audience knows now (as its view
// shows it). Events before a new deal in the same step are about a finished round and skipped.
func checkEvents(s *State, evs []engine.Event, withViews bool) error {
	from := 0
	for i, e := range evs {
		if _, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_RoundStarted); ok {
			from = i
		}
	}
	views := map[int]*pb.View{}
	view := func(to int) *pb.View {
		if v, ok := views[to]; ok {
			return v
		}
		v := Game{}.View(s, to).(*pb.View)
		views[to] = v
		return v
	}
	shows := func(to int, owner, slot, card uint32) error {
		if !withViews {
			// The cheap form: the card is there and the audience knows it.
			if int(owner) >= int(s.n) || int(slot) >= len(s.rows[owner]) || s.rows[owner][slot] == noCard {
				return fmt.Errorf("event names seat %d slot %d that holds no card", owner, slot)
			}
			id := s.rows[owner][slot]
			knows := s.known[id]&public != 0 || (to >= 0 && s.known[id]&bit(uint8(to)) != 0)
			if uint32(number(id)) != card || !knows {
				return fmt.Errorf("event tells audience %d card %d at seat %d slot %d (there: %d, known by %b)",
					to, card, owner, slot, number(id), s.known[id])
			}
			return nil
		}
		v := view(to)
		rows := v.GetRows()
		if int(owner) >= len(rows) || int(slot) >= len(rows[owner].GetSlots()) {
			return fmt.Errorf("event names seat %d slot %d that does not exist", owner, slot)
		}
		if got := rows[owner].GetSlots()[slot].GetCard(); got != card {
			return fmt.Errorf("event tells audience %d card %d at seat %d slot %d, its view shows %d", to, card, owner, slot, got)
		}
		return nil
	}
	for i, e := range evs {
		if e.To != engine.Public && (e.To < 0 || e.To >= int(s.n)) {
			return fmt.Errorf("event to audience %d", e.To)
		}
		ev, ok := e.Payload.(*pb.Event)
		if !ok || ev.Kind == nil {
			return fmt.Errorf("event payload %T", e.Payload)
		}
		switch k := ev.Kind.(type) {
		case *pb.Event_DrewCard, *pb.Event_PeekResult, *pb.Event_SpyResult, *pb.Event_PeekAtStart:
			if e.To == engine.Public {
				return fmt.Errorf("secret event %T sent to everybody", k)
			}
		}
		if i < from {
			continue
		}
		var err error
		switch k := ev.Kind.(type) {
		case *pb.Event_PeekResult:
			err = shows(e.To, uint32(e.To), k.PeekResult.Slot, k.PeekResult.Card)
		case *pb.Event_SpyResult:
			err = shows(e.To, k.SpyResult.TargetSeat, k.SpyResult.TargetSlot, k.SpyResult.Card)
		case *pb.Event_PeekAtStart:
			for j, sl := range k.PeekAtStart.Slots {
				if err = shows(e.To, uint32(e.To), sl, k.PeekAtStart.Cards[j]); err != nil {
					break
				}
			}
		case *pb.Event_WrongThrow:
			for to := -1; to < int(s.n) && err == nil; to++ {
				for j, sl := range k.WrongThrow.Slots {
					if err = shows(to, k.WrongThrow.Owner, sl, k.WrongThrow.Cards[j]); err != nil {
						break
					}
				}
			}
		case *pb.Event_AssJokerRevealed:
			for to := -1; to < int(s.n) && err == nil; to++ {
				err = shows(to, k.AssJokerRevealed.Seat, k.AssJokerRevealed.Slot, AssJoker)
			}
		case *pb.Event_DrewCard:
			if s.drawn != noCard && e.To != int(s.cur) {
				err = fmt.Errorf("seat %d was told a drawn card held by seat %d", e.To, s.cur)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkViews requires, for every seat and a spectator, that the drawn card is shown to its drawer
// only, that every card shown is the card there and known to the viewer, and that the view does
// not change when two cards the viewer does not know (and that the same seats know) change places.
func checkViews(s *State, r *rand.Rand, all bool) error {
	g := Game{}
	for viewer := -1; viewer < int(s.n); viewer++ {
		if !all && r.IntN(int(s.n)+1) != 0 {
			continue
		}
		v := g.View(s, viewer).(*pb.View)
		if v.GetDrawnCard() != 0 && (viewer != int(s.cur) || s.drawn == noCard) {
			return fmt.Errorf("viewer %d sees a drawn card", viewer)
		}
		var me uint16
		if viewer >= 0 {
			me = bit(uint8(viewer))
		}
		for seat, row := range v.GetRows() {
			for slot, sl := range row.GetSlots() {
				id := s.rows[seat][slot]
				if sl.GetCard() == 0 {
					continue
				}
				if id == noCard || uint32(number(id)) != sl.GetCard() {
					return fmt.Errorf("viewer %d sees %d at seat %d slot %d", viewer, sl.GetCard(), seat, slot)
				}
				if s.known[id]&(me|public) == 0 {
					return fmt.Errorf("viewer %d sees a card it does not know", viewer)
				}
			}
		}
		if err := checkSwap(s, viewer, v, r); err != nil {
			return err
		}
	}
	return nil
}

func checkSwap(s *State, viewer int, v *pb.View, r *rand.Rand) error {
	g := Game{}
	c := g.Clone(s)
	var hidden []*uint8
	unknown := func(id uint8) bool {
		if viewer < 0 {
			return c.known[id]&public == 0
		}
		return c.known[id]&bit(uint8(viewer)) == 0
	}
	for seat := range c.rows {
		for i, id := range c.rows[seat] {
			if id != noCard && unknown(id) {
				hidden = append(hidden, &c.rows[seat][i])
			}
		}
	}
	for i := range c.pile {
		hidden = append(hidden, &c.pile[i])
	}
	if c.drawn != noCard && unknown(c.drawn) {
		hidden = append(hidden, &c.drawn)
	}
	for range 8 {
		if len(hidden) < 2 {
			return nil
		}
		a, b := hidden[r.IntN(len(hidden))], hidden[r.IntN(len(hidden))]
		if c.known[*a] != c.known[*b] || number(*a) == number(*b) {
			continue
		}
		*a, *b = *b, *a
		if w := g.View(c, viewer); !proto.Equal(v, w) {
			return fmt.Errorf("viewer %d's view changed when two cards it does not know changed places", viewer)
		}
		return nil
	}
	return nil
}
