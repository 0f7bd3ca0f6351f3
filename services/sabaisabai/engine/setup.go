package engine

import (
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/types/known/durationpb"
	"math/rand/v2"
	"time"
)

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
	s.discAt, s.topAt, s.drawAt, s.discTurn = 0, 0, 0, s.turn
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
