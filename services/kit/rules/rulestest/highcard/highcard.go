// Package highcard is the tiny game cardroom's own tests run the harness and the gateway with:
// secret cards, public reveals, per-seat private events, a deadline per action, a random bot. It is
// test support, like net/http/httptest: no binary links it.
package highcard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Engine returns the game, named name, type-erased with a random bot.
func Engine(name string) engine.Engine {
	return engine.Erase[*State, string](Game{name: name}, nil)
}

// New returns the typed game, named "highcard".
func New() Game { return Named("highcard") }

// Named returns the typed game, named name: tests that need two games play it under two names.
func Named(name string) Game { return Game{name: name} }

// Game is the tiny game the harness is tested with. Each seat is dealt a secret card (1..13);
// in seat order each one reveals it or passes; the highest revealed card wins the round. Options:
// the number of rounds (UInt32Value, default 1, at most 1000). Actions are the strings "reveal" and
// "pass"; a timeout passes for the seat on turn.
type Game struct{ name string }

// State is one table of high card.
type State struct {
	Seats    int
	Rounds   int
	Round    int
	Cards    []int
	Revealed []bool
	Turn     int
	Acted    int
	Score    []int
	Done     bool
	LastAt   int64 // ms
	TurnMS   int64
	RNG      [2]uint64
}

func (g Game) Info() engine.Info {
	return engine.Info{Name: g.name, MinSeats: 2, MaxSeats: 6,
		Options: &wrapperspb.UInt32Value{}, Action: &wrapperspb.StringValue{}, View: &wrapperspb.StringValue{}}
}

func (g Game) Setup(cfg engine.Config) (*State, []engine.Event, error) {
	rounds := int(cfg.Options.(*wrapperspb.UInt32Value).GetValue())
	if rounds == 0 {
		rounds = 1
	}
	if rounds > 1000 {
		return nil, nil, engine.Invalid("options", engine.CodeBadOptions, "at most 1000 rounds, not %d", rounds)
	}
	s := &State{Seats: cfg.Seats, Rounds: rounds, Score: make([]int, cfg.Seats),
		LastAt: cfg.Start.UnixMilli(), TurnMS: cfg.TurnTime.Milliseconds(), RNG: [2]uint64{cfg.Seed, 7}}
	return s, g.deal(s, make([]engine.Event, 0, 1+s.Seats)), nil
}

// deal deals a round and appends its events to evs.
func (Game) deal(s *State, evs []engine.Event) []engine.Event {
	pcg := rand.NewPCG(s.RNG[0], s.RNG[1])
	deck := rand.New(pcg).Perm(13)
	s.RNG[0], s.RNG[1] = pcg.Uint64(), pcg.Uint64()
	// Every card is dealt again and every reveal forgotten: the slices of the last round serve.
	if len(s.Cards) != s.Seats {
		s.Cards = make([]int, s.Seats)
	}
	if len(s.Revealed) != s.Seats {
		s.Revealed = make([]bool, s.Seats)
	}
	clear(s.Revealed)
	evs = append(evs, engine.Event{To: engine.Public, Payload: wrapperspb.String("round " + strconv.Itoa(s.Round+1) + " dealt")})
	for i := range s.Seats {
		s.Cards[i] = deck[i] + 1
		evs = append(evs, engine.Event{To: i, Payload: wrapperspb.String("your card " + strconv.Itoa(s.Cards[i]))})
	}
	s.Turn, s.Acted = 0, 0
	return evs
}

// events starts the events of one seat's move with the first, with room for those of the end of
// the round and the next deal when the move ends the round.
func (Game) events(s *State, first string) []engine.Event {
	n := 1
	if s.Acted+1 >= s.Seats {
		n += 2 + s.Seats
	}
	evs := make([]engine.Event, 1, n)
	evs[0] = engine.Event{To: engine.Public, Payload: wrapperspb.String(first)}
	return evs
}

func (g Game) Apply(s *State, m engine.Move[string]) ([]engine.Event, error) {
	if s.Done {
		return nil, engine.Refuse(engine.CodeGameOver, "the game is over")
	}
	if m.Seat != s.Turn {
		return nil, engine.Refuse(engine.CodeNotYourTurn, "it is seat %d's turn", s.Turn)
	}
	var ev string
	if m.Action == "reveal" {
		s.Revealed[m.Seat] = true
		ev = "seat " + strconv.Itoa(m.Seat) + " reveals " + strconv.Itoa(s.Cards[m.Seat])
	} else {
		ev = "seat " + strconv.Itoa(m.Seat) + " passes"
	}
	s.LastAt = m.At.UnixMilli()
	return g.advance(s, g.events(s, ev)), nil
}

func (g Game) advance(s *State, evs []engine.Event) []engine.Event {
	s.Acted++
	s.Turn = (s.Turn + 1) % s.Seats
	if s.Acted < s.Seats {
		return evs
	}
	best, winner := 0, -1
	for i, c := range s.Cards {
		if s.Revealed[i] && c > best {
			best, winner = c, i
		}
	}
	if winner >= 0 {
		s.Score[winner]++
	}
	evs = append(evs, engine.Event{To: engine.Public, Payload: wrapperspb.String("round won by " + strconv.Itoa(winner))})
	s.Round++
	if s.Round == s.Rounds {
		s.Done = true
		return evs
	}
	return g.deal(s, evs)
}

func (Game) Deadline(s *State) (time.Time, bool) {
	if s.Done || s.TurnMS == 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(s.LastAt + s.TurnMS), true
}

func (g Game) Timeout(s *State, at time.Time) ([]engine.Event, error) {
	if _, ok := g.Deadline(s); !ok {
		return nil, engine.Refuse(engine.CodeNoDeadline, "nothing waits on time")
	}
	s.LastAt = at.UnixMilli()
	return g.advance(s, g.events(s, "seat "+strconv.Itoa(s.Turn)+" timed out")), nil
}

func (Game) Legal(s *State, seat int, buf []string) []string {
	if s.Done || seat != s.Turn {
		return buf
	}
	return append(buf, "reveal", "pass")
}

func (Game) View(s *State, viewer int) proto.Message {
	var b strings.Builder
	for i, c := range s.Cards {
		switch {
		case s.Revealed[i] || i == viewer:
			fmt.Fprintf(&b, "%d:%d ", i, c)
		default:
			fmt.Fprintf(&b, "%d:? ", i)
		}
	}
	return wrapperspb.String(strings.TrimSpace(b.String()))
}

func (Game) Outcome(s *State) (*gamev1.Outcome, bool) {
	if !s.Done {
		return nil, false
	}
	best := slices.Max(s.Score)
	out := &gamev1.Outcome{Summary: fmt.Sprintf("best score %d", best)}
	for i, sc := range s.Score {
		rank := 1
		for _, o := range s.Score {
			if o > sc {
				rank++
			}
		}
		out.Results = append(out.Results, &gamev1.SeatResult{Seat: uint32(i), Score: int64(sc), Rank: uint32(rank), Winner: sc == best})
	}
	return out, true
}

func (Game) Clone(s *State) *State {
	c := *s
	c.Cards, c.Revealed, c.Score = slices.Clone(s.Cards), slices.Clone(s.Revealed), slices.Clone(s.Score)
	return &c
}

// EncodeState writes the state as varints: seats, rounds, round, turn, acted, done, last, turn time,
// rng, then per seat card, revealed, score.
func (Game) EncodeState(s *State) ([]byte, error) {
	b := make([]byte, 0, 64)
	for _, v := range []uint64{uint64(s.Seats), uint64(s.Rounds), uint64(s.Round), uint64(s.Turn), uint64(s.Acted),
		b2u(s.Done), uint64(s.LastAt), uint64(s.TurnMS), s.RNG[0], s.RNG[1]} {
		b = binary.AppendUvarint(b, v)
	}
	for i := range s.Seats {
		b = binary.AppendUvarint(b, uint64(s.Cards[i]))
		b = binary.AppendUvarint(b, b2u(s.Revealed[i]))
		b = binary.AppendUvarint(b, uint64(s.Score[i]))
	}
	return b, nil
}

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

func (Game) DecodeState(b []byte) (*State, error) {
	next := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	s := &State{Seats: int(next()), Rounds: int(next()), Round: int(next()), Turn: int(next()), Acted: int(next()),
		Done: next() == 1, LastAt: int64(next()), TurnMS: int64(next()), RNG: [2]uint64{next(), next()}}
	if s.Seats > 6 {
		return nil, errors.New("bad state")
	}
	s.Cards, s.Revealed, s.Score = make([]int, s.Seats), make([]bool, s.Seats), make([]int, s.Seats)
	for i := range s.Seats {
		s.Cards[i], s.Revealed[i], s.Score[i] = int(next()), next() == 1, int(next())
	}
	if b == nil {
		return nil, errors.New("truncated state")
	}
	return s, nil
}

func (Game) EncodeAction(a string) proto.Message { return wrapperspb.String(a) }

func (Game) DecodeAction(m proto.Message) (string, error) {
	a := m.(*wrapperspb.StringValue).GetValue()
	if a != "reveal" && a != "pass" {
		return "", engine.Invalid("action", engine.CodeUnknownAction, "unknown action %q: reveal or pass", a)
	}
	return a, nil
}

var _ engine.Describer[*State, string] = Game{}

// DescribeAction labels "reveal" and "pass"; a pass names the seat the turn goes to.
func (Game) DescribeAction(s *State, seat int, a string) string {
	if a == "reveal" {
		return "reveal your card"
	}
	return "pass to " + engine.SeatRef((seat+1)%max(s.Seats, 1))
}

// DescribeEvent labels the game's events, which are sentences already: the seats they name become
// seat references.
func (Game) DescribeEvent(payload proto.Message) string {
	ev, ok := payload.(*wrapperspb.StringValue)
	if !ok {
		return ""
	}
	text := ev.GetValue()
	if rest, ok := strings.CutPrefix(text, "round won by "); ok {
		if seat, err := strconv.Atoi(rest); err == nil {
			if seat < 0 {
				return "nobody wins the round"
			}
			return engine.SeatRef(seat) + " wins the round"
		}
	}
	if rest, ok := strings.CutPrefix(text, "seat "); ok {
		num, tail, _ := strings.Cut(rest, " ")
		if seat, err := strconv.Atoi(num); err == nil {
			return engine.SeatRef(seat) + " " + tail
		}
	}
	return text
}
