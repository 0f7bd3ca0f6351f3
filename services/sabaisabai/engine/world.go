package engine

import (
	"math"
	"time"

	"cardroom.dev/services/kit/engine"
)

// A world is a state the search bot plays out (see Sample): it has no clock, so the real-time
// game is played as a sequence of moves, each seat moving when the heuristic bot would want to,
// in this order:
//
//  1. the seat Sample dealt the world for, once (the search's root decision);
//  2. a nose to touch: the untouched seats in seat order (the last one left is penalised, as
//     with bots asked in seat order);
//  3. a throw: of the seats that know a card to throw, the one with the shortest reaction delay;
//  4. a call: a seat whose known total is low;
//  5. the pending effect's executor;
//  6. the turn player.
//
// Every seat decides by Policy, the heuristic bot's rules read from the world's knowledge: only
// what that seat knows.

// epoch is the time every action of a world is applied at: worlds have no clock.
var epoch = time.Unix(0, 0).UTC()

// ToAct is the seat the world waits for, -1 when none (the game is over).
func (s *State) ToAct() int {
	if s.over() {
		return -1
	}
	if s.prio != 0 {
		return int(s.prio) - 1
	}
	if s.noseOpen {
		for seat := range s.n {
			if s.touched&bit(seat) == 0 {
				return int(seat)
			}
		}
	}
	if s.ph == phaseEnding {
		return -1
	}
	best, bestAt := -1, int64(math.MaxInt64)
	for seat := range s.n {
		if s.wantsThrow(seat) {
			if at := s.reaction(seat); at < bestAt {
				best, bestAt = int(seat), at
			}
		}
	}
	if best >= 0 {
		return best
	}
	if !s.final() && !s.called {
		for seat := range s.n {
			if s.shouldCall(seat) {
				return int(seat)
			}
		}
	}
	if len(s.queue) > 0 {
		return int(s.queue[0].exec)
	}
	if !s.turnDone && s.pend == 0 {
		return int(s.cur)
	}
	return -1
}

// Step applies seat's legal action in a world at once. An error means the world model went wrong
// (a bug); the world is then ended where it stands so that a search cannot loop on it.
func (s *State) Step(seat int, a Action) error {
	s.prio = 0
	if _, err := (Game{}).Apply(s, engine.Move[Action]{Seat: seat, Action: a, At: epoch}); err != nil {
		s.ph = phaseOver
		return err
	}
	return nil
}

// Round is the round being played (from 1).
func (s *State) Round() int { return int(s.round) }

// Over reports whether the game is over.
func (s *State) Over() bool { return s.over() }

// Value is seat's score of a world, from 0 to 1: a finished game 1 for a winner (a shared win
// too) and 0 else; after a round, by its lead in victory points over the best other seat, which
// counts for less the more rounds are left; in a round not yet finished, by its card points
// against the best other seat's (the Ass Joker counting 30).
// root is the world the playout started from.
func (s *State) Value(root *State, seat int) float64 {
	var v float64
	if s.over() {
		for _, w := range s.winners() {
			if w == seat {
				v = 1
			}
		}
	} else {
		best := int32(math.MinInt32)
		for o := range int(s.n) {
			if o != seat {
				best = max(best, s.vp[o])
			}
		}
		lead := float64(s.vp[seat] - best)
		left := float64(int(s.rounds) - int(s.round) + 1)
		v = 0.5 + 0.5*math.Tanh(0.9*lead/math.Sqrt(left))
	}
	if s.round != root.round || s.over() {
		// The round's margin: its card points against the best other seat's.
		other := int16(math.MaxInt16)
		for o := range int(s.n) {
			if o != seat {
				other = min(other, s.ended[o])
			}
		}
		return 0.85*v + 0.15*(0.5+0.5*math.Tanh(float64(other-s.ended[seat])/8))
	}
	pts := func(o uint8) float64 {
		t := 0.0
		for _, id := range s.rows[o] {
			if id == assID {
				t += assCost
			} else if id != noCard {
				t += float64(Points(number(id)))
			}
		}
		return t
	}
	other := math.Inf(1)
	for o := range s.n {
		if int(o) != seat {
			other = min(other, pts(o))
		}
	}
	return 0.8*v + 0.2*(0.5+0.5*math.Tanh((other-pts(uint8(seat)))/8))
}

// The heuristic bot's constants (see package bot): an unseen card is worth the deck's mean, the
// Ass Joker 30 points, and a seat calls at an estimated total of 6 or less.
const (
	unknownValue = 6.6
	assCost      = 30
	callAt       = 6
)

func (s *State) knows(seat, id uint8) bool { return s.known[id]&(bit(seat)|public) != 0 }

// worth is what card id is worth to seat: its points, the Ass Joker's cost, or the mean when seat
// does not know it.
func (s *State) worth(seat, id uint8) float64 {
	switch {
	case !s.knows(seat, id):
		return unknownValue
	case id == assID:
		return assCost
	}
	return float64(Points(number(id)))
}

// estimate is seat's own total as it knows it, and how many of its cards it does not know.
func (s *State) estimate(seat uint8) (float64, int) {
	t, unknown := 0.0, 0
	for _, id := range s.rows[seat] {
		if id == noCard {
			continue
		}
		if !s.knows(seat, id) {
			unknown++
		}
		t += s.worth(seat, id)
	}
	return t, unknown
}

func (s *State) shouldCall(seat uint8) bool {
	t, unknown := s.estimate(seat)
	return unknown <= 1 && t <= callAt
}

// throwable reports whether seat would throw card id from owner's row onto the top (of class
// want): it knows the card, the card is identical, and an own joker is kept (only the Ass Joker is
// burned on a joker).
func (s *State) throwable(seat, owner, id, want uint8) bool {
	if id == noCard || !s.knows(seat, id) || class(number(id)) != want {
		return false
	}
	if owner == seat {
		return want != Joker || id == assID
	}
	return s.forOthers && s.known[id]&bit(owner) == 0
}

// wantsThrow reports whether seat knows a card it would throw now.
func (s *State) wantsThrow(seat uint8) bool {
	top := s.top()
	if top == noCard || s.locked&bit(seat) != 0 || s.ph == phaseEnding {
		return false
	}
	want := class(number(top))
	for o := range s.n {
		if o != seat && !s.forOthers {
			continue
		}
		for _, id := range s.rows[o] {
			if s.throwable(seat, o, id, want) {
				return true
			}
		}
	}
	return false
}

// Policy is seat's move by the heuristic bot's rules (package bot's Heuristic.Wants, then its
// Choose when it must act), read from the world: it uses only what seat knows.
func (s *State) Policy(seat int, legal []Action) Action {
	me := uint8(seat)
	has := func(k Kind) int {
		for i, a := range legal {
			if a.Kind == k {
				return i
			}
		}
		return -1
	}
	if has(KindTouchNose) >= 0 {
		return Action{Kind: KindTouchNose}
	}
	if a, ok := s.policyThrow(me, legal); ok {
		return a
	}
	if has(KindResolve) >= 0 {
		return s.policyResolve(me, legal)
	}
	call := has(KindCall) >= 0 && s.shouldCall(me)
	if has(KindDraw) >= 0 {
		if call {
			return Action{Kind: KindCall}
		}
		return Action{Kind: KindDraw}
	}
	if has(KindPlay) >= 0 {
		return s.policyDecide(me, legal)
	}
	if call {
		return Action{Kind: KindCall}
	}
	if i := has(KindCall); i >= 0 {
		return legal[i]
	}
	return legal[0]
}

func (s *State) policyThrow(me uint8, legal []Action) (Action, bool) {
	top := s.top()
	if top == noCard {
		return Action{}, false
	}
	want := class(number(top))
	var pick Action
	found := false
	for _, a := range legal {
		if a.Kind != KindThrow {
			continue
		}
		all := true
		for _, sl := range a.Slots[:a.N] {
			if !s.throwable(me, a.Owner, s.rows[a.Owner][sl], want) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		// The most own cards at once first, then cards for others.
		if !found || (a.Owner == me && (pick.Owner != me || a.N > pick.N)) {
			pick, found = a, true
		}
	}
	return pick, found
}

// worst is seat's own slot it most wants to be rid of; keepable leaves out a known Ass Joker,
// which cannot be swapped out (Ruling A2).
func (s *State) worst(me uint8, keepable bool) (int, float64) {
	best, bv := -1, -1e9
	for i, id := range s.rows[me] {
		if id == noCard || (keepable && id == assID && s.knows(me, id)) {
			continue
		}
		if x := s.worth(me, id); x > bv {
			best, bv = i, x
		}
	}
	return best, bv
}

func (s *State) policyDecide(me uint8, legal []Action) Action {
	d := number(s.drawn)
	if isFunction(d) {
		return Action{Kind: KindPlay}
	}
	dv := s.worth(me, s.drawn)
	if slot, wv := s.worst(me, true); slot >= 0 && dv < wv-0.5 {
		for _, a := range legal {
			if a.Kind == KindKeep && int(a.Slot) == slot {
				return a
			}
		}
	}
	return Action{Kind: KindPlay}
}

// leader is the seat me most wants to hurt: most victory points, then fewest cards.
func (s *State) leader(me uint8) uint8 {
	best := -1
	for o := range s.n {
		if o == me {
			continue
		}
		if best < 0 || s.vp[o] > s.vp[best] || (s.vp[o] == s.vp[best] && s.count(o) < s.count(uint8(best))) {
			best = int(o)
		}
	}
	return uint8(best)
}

// ResolveScore is how much the heuristic bot likes resolving e with a: peek an unknown own card,
// spy a card nobody it cares about knows (the leader's first), give away the worst card, switch
// the worst own card for the best other one.
func (s *State) resolveScore(me uint8, e effect, a Action, leader uint8) float64 {
	switch e.kind {
	case effPeek:
		if !s.knows(me, s.rows[me][a.Slot]) {
			return 1
		}
		return 0
	case effSpy:
		id := s.rows[a.Target][a.TargetSlot]
		v := 0.0
		if !s.knows(me, id) {
			v += 2
		}
		if s.known[id]&bit(a.Target) == 0 {
			v++
		}
		if a.Target == leader {
			v += 0.5
		}
		return v
	case effGive, effGiveBack:
		v := s.worth(me, s.rows[me][a.Slot])
		if e.kind == effGive && a.Target == leader {
			v += 0.1
		}
		return v
	case effSwitch:
		return s.worth(me, s.rows[me][a.Slot]) - s.worth(me, s.rows[a.Target][a.TargetSlot])
	}
	return 0
}

func (s *State) policyResolve(me uint8, legal []Action) Action {
	e := s.queue[0]
	lead := s.leader(me)
	best, bs := legal[0], math.Inf(-1)
	for _, a := range legal {
		if a.Kind != KindResolve {
			continue
		}
		if v := s.resolveScore(me, e, a, lead); v > bs {
			best, bs = a, v
		}
	}
	return best
}

// Narrow keeps, of seat's legal actions in a world, those worth searching: a touch, a throw or a
// call the heuristic wants is its only move; at its turn the draw (or call), the play or a keep
// (never into a known Ass Joker's slot), and a pending effect's targets, the best max by the
// heuristic's liking when there are more.
func (s *State) Narrow(seat int, legal []Action, most int) []Action {
	a := s.Policy(seat, legal)
	switch a.Kind {
	case KindTouchNose, KindThrow:
		return []Action{a}
	case KindCall:
		if s.cur != uint8(seat) || s.turnDone || len(s.queue) > 0 {
			return []Action{a}
		}
	}
	me := uint8(seat)
	resolving := len(s.queue) > 0 && s.queue[0].exec == me
	out := make([]Action, 0, len(legal))
	for _, b := range legal {
		if resolving != (b.Kind == KindResolve) {
			continue
		}
		switch b.Kind {
		case KindDraw, KindPlay, KindCall, KindResolve:
			out = append(out, b)
		case KindKeep:
			if id := s.rows[me][b.Slot]; id != assID || !s.knows(me, id) {
				out = append(out, b)
			}
		}
	}
	if len(out) == 0 {
		return []Action{a}
	}
	if len(out) > most && resolving {
		e, lead := s.queue[0], s.leader(me)
		score := make([]float64, len(out))
		for i, b := range out {
			score[i] = s.resolveScore(me, e, b, lead)
		}
		// Keep the most liked: a partial selection sort, the heuristic's choice (the first best)
		// first.
		for i := range most {
			k := i
			for j := i + 1; j < len(out); j++ {
				if score[j] > score[k] {
					k = j
				}
			}
			out[i], out[k] = out[k], out[i]
			score[i], score[k] = score[k], score[i]
		}
		out = out[:most]
	}
	return out
}
