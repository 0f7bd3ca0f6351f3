package bot

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/search"
	spe "cardroom.dev/services/sponsio/engine"
	"google.golang.org/protobuf/proto"
)

// Levels are the game's bots by level (search.Levels): the heuristic bot, and the search bot.
var Levels = search.Levels[spe.Action]{
	Normal: Heuristic{},
	Strong: func(budget time.Duration) engine.Bot[spe.Action] { return NewStrong(StrongOptions{Budget: budget}) },
}

// StrongOptions tune the search bot. Zero values take the defaults.
type StrongOptions struct {
	// Iterations per decision (default StrongIterations).
	Iterations int
	// Budget per decision in time (default none: iterations only, deterministic given the rand
	// source).
	Budget time.Duration
}

// StrongIterations is the search's default number of iterations per decision.
var StrongIterations = 400

// NewStrong is the strong bot: information-set Monte Carlo tree search (package search) over
// worlds spe.Sample deals from the seat's view, each played out to the end of the round with the
// heuristic's fast rules (rollout) and scored by the coins and counter value each seat then holds.
// Tables Sample does not model (a custom coupon table) fall back to the heuristic bot.
func NewStrong(o StrongOptions) *search.Bot[*spe.State, spe.Action] {
	it := o.Iterations
	if it == 0 {
		it = StrongIterations
	}
	return search.New(search.Options[*spe.State, spe.Action]{
		Game:        spe.Game{},
		Sample:      sample,
		ToAct:       toAct,
		Apply:       func(s *spe.State, seat int, a spe.Action) { s.Step(seat, a) },
		Value:       value,
		Rollout:     rollout,
		Prune:       prune,
		ModelOthers: true,
		Stop:        func(root, s *spe.State, _ int) bool { return s.Round != root.Round },
		Iterations:  it,
		Budget:      o.Budget,
		Fallback:    Heuristic{},
	})
}

// sample is spe.Sample behind the search's signature: it sees the view and nothing else.
func sample(view proto.Message, r *rand.Rand) (*spe.State, bool) {
	v, ok := view.(*sponsiov1.View)
	if !ok {
		return nil, false
	}
	return spe.Sample(v, r)
}

func toAct(s *spe.State) int {
	if s.Phase == spe.PhaseOver {
		return -1
	}
	return int(s.ToAct)
}

// worth is what a seat holds: its coins and what its sequence counter would redeem for.
func worth(s *spe.State, p int) float64 {
	st := &s.Seats[p]
	w := float64(st.Coins)
	if m := st.Marker; m >= 0 && int(m) < len(spe.Standard.CounterValues) {
		w += 0.8 * float64(spe.Standard.CounterValues[m])
	}
	return w
}

// value scores seat's position: a finished game by its result, a finished round by how far the
// seat's worth (coins, counter) is ahead of the best other seat's.
func value(_, s *spe.State, seat int) float64 {
	if s.Phase == spe.PhaseOver {
		if s.Seats[seat].Winner {
			return 1
		}
		return 0
	}
	best := math.Inf(-1)
	for p := range int(s.Players) {
		if p != seat {
			best = max(best, worth(s, p))
		}
	}
	return 0.5 + 0.5*math.Tanh((worth(s, seat)-best)/8)
}

// rollout is the heuristic's fast part: pass in betting turns (bet only when the rules force
// it), play cards by the take or duck plan that suits the seat's bets, redeem the counter as the
// heuristic does, lay the lowest card for a price.
func rollout(s *spe.State, seat int, legal []spe.Action, r *rand.Rand) spe.Action {
	switch s.Decision {
	case spe.DecTurn:
		if legal[0].Kind == spe.ActPass {
			return legal[0]
		}
		for _, a := range legal {
			if a.Kind == spe.ActPass {
				return a
			}
		}
	case spe.DecPlay:
		var hand spe.Cards
		for _, a := range legal {
			hand = hand.With(a.Card)
		}
		c := choose(hand, s.Plays, int(s.Leader), int(s.NPlayed), planOf(s, seat))
		for _, a := range legal {
			if a.Card == c {
				return a
			}
		}
	case spe.DecRedeem:
		st := &s.Seats[seat]
		v := int32(spe.Standard.CounterValues[st.Marker])
		if s.Round >= 5 || st.Marker >= 5 || st.Coins+v >= 30 {
			return legal[0]
		}
		return legal[len(legal)-1]
	case spe.DecChangeBet:
		return legal[0]
	case spe.DecPriceCard, spe.DecCombatCard:
		best := legal[0]
		for _, a := range legal {
			if a.Card != spe.NoCard && a.Card.Value() < best.Card.Value() {
				best = a
			}
		}
		return best
	}
	return legal[r.IntN(len(legal))]
}

// planOf is duck when the seat holds a bet on few tricks or on not taking the last trick, else
// take.
func planOf(s *spe.State, seat int) plan {
	for i := range s.Bets {
		b := &s.Bets[i]
		if int(b.Owner) != seat || b.Option < 0 {
			continue
		}
		c := &spe.Standard.Coupons[i]
		o := c.Options[b.Option]
		switch c.Kind {
		case spe.KindTricks:
			if o.Max <= 1 {
				return duck
			}
		case spe.KindLastTrick, spe.KindMostTricks:
			if o.Max == 0 {
				return duck
			}
		}
	}
	return take
}

// prune keeps, of a betting turn's actions, passing and one of each bet or token: the one that
// opens the lowest card (changing a card with the talon, which the heuristic never does, is left
// out). Other decisions keep every action.
func prune(s *spe.State, seat int, legal []spe.Action) []spe.Action {
	if s.Decision != spe.DecTurn {
		return legal
	}
	out := legal[:0:0]
	for _, a := range legal {
		switch a.Kind {
		case spe.ActPass:
			out = append(out, a)
		case spe.ActOpenBet, spe.ActOpenToken:
			i := slices.IndexFunc(out, func(b spe.Action) bool { return b.Kind == a.Kind && b.A == a.A && b.B == a.B })
			switch {
			case i < 0:
				out = append(out, a)
			case a.Card.Value() < out[i].Card.Value():
				out[i] = a
			}
		}
	}
	if len(out) == 0 {
		return legal
	}
	return out
}
