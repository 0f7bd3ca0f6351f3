// Package engine holds the pure rules of sabai-sabai: a real-time card game where players draw,
// keep or play cards, throw identical cards out of turn and try to end a round with the fewest
// card points. It has no clock, no I/O and no randomness but the seeded source in the State.
package engine

import (
	"math/rand/v2"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Defaults and limits of the options.
const (
	DefaultRounds       = 5
	MaxRounds           = 50
	DefaultNoseDeadline = 5 * time.Second
	MaxNoseDeadline     = time.Minute
	// DefaultThrowWindow is the reflex window at tables with a person (Ruling R1).
	DefaultThrowWindow = 800 * time.Millisecond
	// DefaultBotReactionMin and DefaultBotReactionMax bound a bot's reaction delay to a new top,
	// DefaultBotThink is how long a bot thinks before its discard lands (Ruling B1).
	DefaultBotReactionMin = 400 * time.Millisecond
	DefaultBotReactionMax = 900 * time.Millisecond
	DefaultBotThink       = 300 * time.Millisecond
	// MaxDelay bounds the throw window and the bots' delays.
	MaxDelay = 10 * time.Second
	// FinalRoundCycles is the guard of the final round (Ruling E3): it ends after this many full
	// turn cycles as if called.
	FinalRoundCycles = 30
)

// Game is sabai-sabai for engine.Game.
type Game struct{}

var _ engine.Game[*State, Action] = Game{}

// Info implements engine.Game.
func (Game) Info() engine.Info {
	return engine.Info{
		Name:     "sabaisabai",
		MinSeats: 2,
		MaxSeats: maxSeat,
		Options:  &pb.Options{},
		Action:   &pb.Action{},
		View:     &pb.View{},
	}
}

// Setup implements engine.Game.
func (Game) Setup(cfg engine.Config) (*State, []engine.Event, error) {
	if cfg.Seats < 2 || cfg.Seats > maxSeat {
		return nil, nil, engine.Invalid("seats", engine.CodeBadSeatCount,
			"sabai-sabai is for 2 to 12 players, not %d", cfg.Seats)
	}
	opts := &pb.Options{}
	if cfg.Options != nil {
		o, ok := cfg.Options.(*pb.Options)
		if !ok {
			return nil, nil, engine.Invalid("options", engine.CodeBadOptions,
				"options are %T, not cardroom.sabaisabai.v1.Options", cfg.Options)
		}
		opts = o
	}
	s := &State{n: uint8(cfg.Seats), forOthers: true, rounds: DefaultRounds, hall: -1}
	if opts.GetPeekAtStart() > rowSize {
		return nil, nil, engine.Invalid("options.peek_at_start", engine.CodeBadOptions,
			"peek_at_start is %d; it must be 0 to 4", opts.GetPeekAtStart())
	}
	s.peek = uint8(opts.GetPeekAtStart())
	if opts.ThrowForOthers != nil {
		s.forOthers = opts.GetThrowForOthers()
	}
	if r := opts.GetRounds(); r > MaxRounds {
		return nil, nil, engine.Invalid("options.rounds", engine.CodeBadOptions,
			"rounds is %d; it must be 1 to %d (0 for %d)", r, MaxRounds, DefaultRounds)
	} else if r > 0 {
		s.rounds = uint8(r)
	}
	nose := DefaultNoseDeadline
	if d := opts.GetNoseDeadline(); d != nil {
		if err := d.CheckValid(); err != nil || d.AsDuration() < 0 || d.AsDuration() > MaxNoseDeadline {
			return nil, nil, engine.Invalid("options.nose_deadline", engine.CodeBadOptions,
				"nose_deadline must be between 0 (the default, 5s) and %v", MaxNoseDeadline)
		}
		if d.AsDuration() > 0 {
			nose = d.AsDuration()
		}
	}
	s.noseNS = int64(nose)
	turn := cfg.TurnTime
	if d := opts.GetTurnTime(); d != nil {
		if err := d.CheckValid(); err != nil || d.AsDuration() < 0 {
			return nil, nil, engine.Invalid("options.turn_time", engine.CodeBadOptions,
				"turn_time must not be negative")
		}
		if d.AsDuration() > 0 {
			turn = d.AsDuration()
		}
	}
	if turn < 0 {
		return nil, nil, engine.Invalid("turn_time", engine.CodeBadOptions, "turn time must not be negative")
	}
	s.turnNS = int64(turn)
	if err := s.timing(cfg, opts); err != nil {
		return nil, nil, err
	}
	s.seed = cfg.Seed
	s.rng = *rand.NewPCG(cfg.Seed, cfg.Seed^0x5ab0_5ab0_5ab0_5ab0)
	s.vp = make([]int32, s.n)
	s.rows = make([][]uint8, s.n)
	// The rows, the draw pile and the discard pile share one allocation; a row that outgrows its
	// eight slots moves out of it.
	cards := make([]uint8, 2*NumCards+8*int(s.n))
	s.pile, s.disc = cards[:0:NumCards], cards[NumCards:NumCards:2*NumCards]
	for i := range s.rows {
		r := cards[2*NumCards+8*i:]
		s.rows[i] = r[:0:8]
	}
	s.lastAt = nanos(cfg.Start)
	evs := make([]engine.Event, 0, 2+int(s.n))
	s.deal(&evs)
	return s, evs, nil
}

// timing sets the throw window and the bots' delays (Rulings R1 and B1) from the seats' kinds and
// the options. The window defaults to 800 ms when a seat is a person; the bots' delays apply to
// bot seats. A harness that does not say who sits (cfg.Kinds nil) gets neither by default.
func (s *State) timing(cfg engine.Config, opts *pb.Options) error {
	if cfg.Kinds != nil && len(cfg.Kinds) != cfg.Seats {
		return engine.Invalid("seats", engine.CodeBadSeatCount, "%d seat kinds for %d seats", len(cfg.Kinds), cfg.Seats)
	}
	people := false
	for i, k := range cfg.Kinds {
		switch k {
		case gamev1.PlayerKind_PLAYER_KIND_HUMAN:
			people = true
		case gamev1.PlayerKind_PLAYER_KIND_BOT:
			s.bots |= bit(uint8(i))
		}
	}
	window := time.Duration(0)
	if people {
		window = DefaultThrowWindow
	}
	window, err := delay("throw_window", opts.GetThrowWindow(), window)
	if err != nil {
		return err
	}
	rmin, err := delay("bot_reaction_min", opts.GetBotReactionMin(), DefaultBotReactionMin)
	if err != nil {
		return err
	}
	rmax, err := delay("bot_reaction_max", opts.GetBotReactionMax(), DefaultBotReactionMax)
	if err != nil {
		return err
	}
	think, err := delay("bot_think", opts.GetBotThink(), DefaultBotThink)
	if err != nil {
		return err
	}
	if opts.GetBotReactionMin() != nil && opts.GetBotReactionMax() == nil {
		rmax = max(rmax, rmin)
	}
	if opts.GetBotReactionMax() != nil && opts.GetBotReactionMin() == nil {
		rmin = min(rmin, rmax)
	}
	if rmax < rmin {
		return engine.Invalid("options.bot_reaction_max", engine.CodeBadOptions,
			"bot_reaction_max (%v) is less than bot_reaction_min (%v)", rmax, rmin)
	}
	s.windowNS, s.reactMinNS, s.reactMaxNS, s.thinkNS = int64(window), int64(rmin), int64(rmax), int64(think)
	return nil
}

// delay is the duration option name: def when unset, else its value, which must lie in 0…MaxDelay.
func delay(name string, d *durationpb.Duration, def time.Duration) (time.Duration, error) {
	if d == nil {
		return def, nil
	}
	if err := d.CheckValid(); err != nil || d.AsDuration() < 0 || d.AsDuration() > MaxDelay {
		return 0, engine.Invalid("options."+name, engine.CodeBadOptions, "%s must be between 0 and %v", name, MaxDelay)
	}
	return d.AsDuration(), nil
}

// deal starts the next round: every card is shuffled and each seat gets four face-down cards.
func (s *State) deal(evs *[]engine.Event) {
	s.round++
	if s.round == 1 {
		s.starter = 0
	} else {
		// The starting player of a round deals the next one; the player after the dealer starts.
		s.starter = s.next(s.starter)
	}
	s.pile = s.pile[:0]
	for id := range uint8(NumCards) {
		s.pile = append(s.pile, id)
	}
	s.shuffle(s.pile)
	s.known = [NumCards]uint16{}
	for i := range s.rows {
		s.rows[i] = s.rows[i][:0]
		for range rowSize {
			s.rows[i] = append(s.rows[i], s.pile[len(s.pile)-1])
			s.pile = s.pile[:len(s.pile)-1]
		}
	}
	s.disc = s.disc[:0]
	s.drawn = noCard
	s.locked, s.touched, s.noseOpen, s.noseAt = 0, 0, false, 0
	s.called, s.caller, s.lastSeat, s.remaining = false, 0, 0, 0
	s.queue = s.queue[:0]
	s.roundTurns = 0
	s.discAt, s.topAt, s.drawAt = 0, 0, 0
	s.pend, s.pendSlot, s.pendAt = 0, 0, 0
	emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_RoundStarted{RoundStarted: &pb.RoundStarted{
		Round: uint32(s.round), Dealer: uint32(s.prev(s.starter)), Starter: uint32(s.starter),
		FinalRound: s.final(), DrawSize: uint32(len(s.pile)),
	}}})
	if s.peek > 0 {
		for seat := range s.n {
			p := &pb.PeekAtStart{}
			for slot := range s.peek {
				id := s.rows[seat][slot]
				s.known[id] |= bit(seat)
				p.Slots = append(p.Slots, uint32(slot))
				p.Cards = append(p.Cards, uint32(number(id)))
			}
			emit(evs, int(seat), &pb.Event{Kind: &pb.Event_PeekAtStart{PeekAtStart: p}})
		}
	}
	s.startTurn(s.starter, evs, nil)
}

// startTurn starts seat's turn; its TurnStarted event uses b's memory when b is not nil.
func (s *State) startTurn(seat uint8, evs *[]engine.Event, b *turnStartedBox) {
	s.cur = seat
	s.turn++
	s.ph = phaseDraw
	s.turnDone = false
	if b == nil {
		b = s.mem.turn.get()
	}
	emit(evs, engine.Public, b.event(seat, s.turn))
}

// finishTurn marks the turn player's turn as played; the next turn starts once no effect is
// pending (settle).
func (s *State) finishTurn() {
	s.turnDone = true
	s.roundTurns++
	if s.called && s.remaining > 0 {
		s.remaining--
	}
}

// settle runs after every action: it drops pending effects that have no target, and when nothing
// is pending ends the round or starts the next turn (spare, when not nil, is the memory of its
// TurnStarted event).
func (s *State) settle(evs *[]engine.Event, spare *turnStartedBox) {
	for len(s.queue) > 0 && !s.hasTarget(s.queue[0]) {
		e := s.queue[0]
		s.queue = s.queue[1:]
		emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_EffectSkipped{EffectSkipped: &pb.EffectSkipped{
			Effect: effectPB(e)}}})
	}
	if len(s.queue) > 0 || s.ph == phaseEnding || s.ph == phaseOver {
		return
	}
	for seat := range s.n {
		if !s.hasCards(seat) {
			s.endRound(evs)
			return
		}
	}
	if !s.turnDone {
		return
	}
	switch {
	case s.called && s.remaining == 0:
		s.endRound(evs)
	case s.final() && s.roundTurns >= FinalRoundCycles*uint32(s.n):
		s.endRound(evs)
	default:
		s.startTurn(s.next(s.cur), evs, spare)
	}
}

// endRound ends the round now, or once the open nose window has closed.
func (s *State) endRound(evs *[]engine.Event) {
	s.pend, s.pendSlot, s.pendAt = 0, 0, 0 // a discard still waiting never lands: the round is over
	if s.noseOpen {
		s.ph = phaseEnding
		return
	}
	s.score(evs)
}

// score reveals every row, gives the victory points and deals the next round or ends the game.
func (s *State) score(evs *[]engine.Event) {
	ended := &pb.RoundEnded{Round: uint32(s.round), Results: make([]*pb.SeatRound, 0, s.n)}
	points := make([]int, s.n)
	ass := -1
	// Every seat's result, and every seat's cards, in one allocation each.
	results := make([]pb.SeatRound, s.n)
	total := 0
	for _, row := range s.rows {
		total += len(row)
	}
	all := make([]uint32, 0, total)
	for seat := range s.n {
		r := &results[seat]
		r.Seat = uint32(seat)
		jokers, cards := 0, 0
		start := len(all)
		for _, id := range s.rows[seat] {
			if id == noCard {
				continue
			}
			n := number(id)
			cards++
			if n == Joker {
				jokers++
			}
			if id == assID {
				ass = int(seat)
				r.AssJoker = true
			}
			points[seat] += Points(n)
			all = append(all, uint32(n))
		}
		if cards > 0 {
			r.Cards = all[start:len(all):len(all)]
		}
		r.CardPoints = int32(points[seat])
		if cards == 4 && jokers == 4 {
			s.hall = int8(seat)
		}
		ended.Results = append(ended.Results, r)
	}
	best := 1 << 30
	for seat := range int(s.n) {
		if seat != ass && points[seat] < best {
			best = points[seat]
		}
	}
	for seat, r := range ended.Results {
		switch {
		case seat == ass:
			r.VictoryPointChange = -1
		case points[seat] == best:
			r.VictoryPointChange = 1
		}
		s.vp[seat] += r.VictoryPointChange
		r.VictoryPoints = s.vp[seat]
	}
	if s.hall >= 0 {
		h := uint32(s.hall)
		ended.HallOfFame = &h
	}
	emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_RoundEnded{RoundEnded: ended}})
	if s.hall >= 0 || s.final() {
		s.ph = phaseOver
		s.noseOpen = false
		g := &pb.GameEnded{}
		for _, w := range s.winners() {
			g.Winners = append(g.Winners, uint32(w))
		}
		g.HallOfFame = ended.HallOfFame
		emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_GameEnded{GameEnded: g}})
		return
	}
	s.deal(evs)
}

func (s *State) winners() []int {
	if s.hall >= 0 {
		return []int{int(s.hall)}
	}
	best := s.vp[0]
	for _, v := range s.vp {
		best = max(best, v)
	}
	var w []int
	for seat, v := range s.vp {
		if v == best {
			w = append(w, seat)
		}
	}
	return w
}

// drawCard takes the top of the draw pile, reshuffling the discard pile first when it is empty
// (Ruling D2). ok is false when no card is left anywhere to draw.
func (s *State) drawCard(evs *[]engine.Event) (uint8, bool) {
	if len(s.pile) == 0 {
		if len(s.disc) <= 1 {
			return noCard, false
		}
		top := s.disc[len(s.disc)-1]
		s.pile = append(s.pile, s.disc[:len(s.disc)-1]...)
		s.disc = append(s.disc[:0], top)
		for _, id := range s.pile {
			s.known[id] = 0
		}
		s.shuffle(s.pile)
		emit(evs, engine.Public, evReshuffled(len(s.pile)))
	}
	id := s.pile[len(s.pile)-1]
	s.pile = s.pile[:len(s.pile)-1]
	return id, true
}

func (s *State) canDraw() bool { return len(s.pile) > 0 || len(s.disc) > 1 }

// penalty gives seat one face-down card from the draw pile that nobody knows.
func (s *State) penalty(seat uint8, why pb.PenaltyReason, evs *[]engine.Event, box *penaltyBox) {
	if box == nil {
		box = &penaltyBox{}
	}
	e, p := box.event(seat, why)
	if id, ok := s.drawCard(evs); ok {
		s.known[id] = 0
		p.Slot = uint32(s.place(seat, id))
		p.Drawn = true
	}
	emit(evs, engine.Public, e)
}

// land puts a card face up on the discard pile and opens a nose window when it makes four
// identical cards together.
func (s *State) land(id uint8, at int64, evs *[]engine.Event) {
	s.disc = append(s.disc, id)
	s.topAt = at
	s.reveal(id)
	c := class(number(id))
	run := 0
	for i := len(s.disc) - 1; i >= 0 && run < 5; i-- {
		if class(number(s.disc[i])) != c {
			break
		}
		run++
	}
	if run != 4 {
		return
	}
	if s.noseOpen {
		// A new four together while a window is open (only possible with five jokers): the old
		// window closes as at its deadline.
		s.closeNose(true, evs)
	}
	s.noseOpen = true
	s.touched = 0
	s.noseAt = at + s.noseNS
	emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_NoseWindowOpened{NoseWindowOpened: &pb.NoseWindowOpened{
		Card: uint32(number(id)), Deadline: timestamp(s.noseAt)}}})
}

// closeNose closes the nose window: at the deadline every seat that has not touched draws a
// penalty card, otherwise the one remaining seat does (Ruling N1).
func (s *State) closeNose(byDeadline bool, evs *[]engine.Event) {
	c := &pb.NoseWindowClosed{ByDeadline: byDeadline}
	s.noseOpen = false
	late := s.all() &^ s.touched
	for seat := range s.n {
		if late&bit(seat) != 0 {
			c.Penalized = append(c.Penalized, uint32(seat))
		}
	}
	s.touched = 0
	emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_NoseWindowClosed{NoseWindowClosed: c}})
	for _, seat := range c.Penalized {
		s.penalty(uint8(seat), pb.PenaltyReason_PENALTY_REASON_NOSE, evs, nil)
	}
}

// Outcome implements engine.Game: victory points are the score.
func (Game) Outcome(s *State) (*gamev1.Outcome, bool) {
	if !s.over() {
		return nil, false
	}
	return s.outcome(), true
}

func (s *State) outcome() *gamev1.Outcome {
	win := s.winners()
	o := &gamev1.Outcome{Results: make([]*gamev1.SeatResult, 0, s.n)}
	rs := make([]gamev1.SeatResult, s.n) // one allocation for every seat's result
	for seat := range int(s.n) {
		rank := uint32(1)
		for other := range int(s.n) {
			if better(s, other, seat) {
				rank++
			}
		}
		r := &rs[seat]
		r.Seat, r.Score, r.Rank, r.Winner = uint32(seat), int64(s.vp[seat]), rank, contains(win, seat)
		o.Results = append(o.Results, r)
	}
	o.Summary = summary(s, win)
	return o
}

func better(s *State, a, b int) bool {
	if s.hall >= 0 {
		if a == int(s.hall) {
			return b != a
		}
		if b == int(s.hall) {
			return false
		}
	}
	return s.vp[a] > s.vp[b]
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Clone implements engine.Game.
func (Game) Clone(s *State) *State {
	c := *s
	c.mem = frames{}
	c.vp = append([]int32(nil), s.vp...)
	c.rows = make([][]uint8, len(s.rows))
	for i, r := range s.rows {
		c.rows[i] = append(make([]uint8, 0, max(8, len(r))), r...)
	}
	c.pile = append(make([]uint8, 0, NumCards), s.pile...)
	c.disc = append(make([]uint8, 0, NumCards), s.disc...)
	c.queue = append([]effect(nil), s.queue...)
	return &c
}

func emit(evs *[]engine.Event, to int, e *pb.Event) {
	*evs = append(*evs, engine.Event{To: to, Payload: e})
}

var _ proto.Message = (*pb.Event)(nil)
