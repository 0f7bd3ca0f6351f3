package engine

import (
	"cardroom.dev/services/kit/engine"
	"slices"
)

// check says whether seat may take a now, without changing anything.
func (s *State) check(seat int, a *Action, at int64) error {
	if seat < 0 || seat >= int(s.n) {
		return engine.Invalid("seat", engine.CodeBadSeat, "seat %d is not at this table", seat)
	}
	if s.over() {
		return engine.Refuse(engine.CodeGameOver, "the game is over")
	}
	me := uint8(seat)
	switch a.Kind {
	case KindDraw, KindPlay, KindKeep:
		if s.ph == phaseEnding {
			return engine.Refuse(CodeRoundEnding, "the round is over; only nose touches are left")
		}
		if me != s.cur {
			return engine.Refuse(engine.CodeNotYourTurn, "it is seat %d's turn", s.cur)
		}
		if s.turnDone {
			return engine.Refuse(CodeWrongPhase, "your turn is played")
		}
		if s.pend != 0 {
			return engine.Refuse(CodeDiscardPending, "your discard is chosen; it lands when the throw window closes")
		}
		if len(s.queue) > 0 {
			return engine.Refuse(CodeEffectPending, "an effect must be resolved first")
		}
		if a.Kind == KindDraw {
			if s.ph != phaseDraw {
				return engine.Refuse(CodeWrongPhase, "you have drawn already")
			}
			return nil
		}
		if s.ph != phaseDecide {
			return engine.Refuse(CodeWrongPhase, "draw first")
		}
		if a.Kind == KindKeep && !s.occupied(me, a.Slot) {
			return engine.Refuse(CodeNoSuchSlot, "you have no card at slot %d", a.Slot)
		}
		return nil
	case KindThrow:
		return s.checkThrow(me, a, at)
	case KindResolve:
		if len(s.queue) == 0 {
			return engine.Refuse(engine.CodeNothingToDo, "no effect is pending")
		}
		if s.queue[0].exec != me {
			return engine.Refuse(CodeNotExecutor, "seat %d resolves the pending effect", s.queue[0].exec)
		}
		return s.checkResolve(s.queue[0], a)
	case KindTouchNose:
		if !s.noseOpen {
			return engine.Refuse(CodeNoNoseWindow, "no four together to touch your nose for")
		}
		if s.touched&bit(me) != 0 {
			return engine.Refuse(CodeAlreadyTouched, "you have touched your nose already")
		}
		return nil
	case KindCall:
		switch {
		case s.ph == phaseEnding:
			return engine.Refuse(CodeRoundEnding, "the round is over")
		case s.final():
			return engine.Refuse(CodeFinalRound, "sabai sabai cannot be called in the final round")
		case s.called:
			return engine.Refuse(CodeAlreadyCalled, "sabai sabai was called already this round")
		}
		return nil
	}
	return engine.Invalid("action", engine.CodeUnknownAction, "unknown action kind %d", a.Kind)
}

func (s *State) checkThrow(me uint8, a *Action, at int64) error {
	if a.N == 0 || a.N > MaxThrow {
		return engine.Invalid("throw.slots", engine.CodeBadAction, "a throw names 1 to %d slots", MaxThrow)
	}
	if a.Owner >= s.n {
		return engine.Invalid("throw.owner", engine.CodeBadSeat, "seat %d is not at this table", a.Owner)
	}
	if a.Top < 1 || a.Top > AssJoker {
		return engine.Invalid("throw.expect_top", CodeBadCard, "card %d does not exist", a.Top)
	}
	for i := range a.N {
		for j := range i {
			if a.Slots[i] == a.Slots[j] {
				return engine.Invalid("throw.slots", CodeDuplicateSlot, "slot %d named twice", a.Slots[i])
			}
		}
	}
	if s.ph == phaseEnding {
		return engine.Refuse(CodeRoundEnding, "the round is over")
	}
	top := s.top()
	if top == noCard {
		return engine.Refuse(CodeNothingToThrowOn, "the discard pile is empty")
	}
	// Ruling T1: stale when a discard landed after the turn the throw names (the top it aimed at
	// is buried), or the top is of another rank; turns that started without a discard (an effect
	// resolved, a call) leave the top, and the throw, as they were.
	if a.Turn < s.discTurn || a.Turn > s.turn || class(a.Top) != class(number(top)) {
		return engine.Outdated(CodeStaleThrow, "the throw aimed at %d in turn %d; the top is now %d in turn %d",
			a.Top, a.Turn, number(top), s.turn)
	}
	if s.bots&bit(me) != 0 && at < s.topAt+s.reaction(me) {
		// Ruling B1: a bot throws only once its reaction delay has passed since the card landed.
		return engine.Refuse(CodeBotReacting, "a bot may throw only after its reaction delay")
	}
	if s.locked&bit(me) != 0 {
		return engine.Refuse(CodeThrowLocked, "after a wrong throw you may throw again only once another player has thrown")
	}
	if a.Owner != me && !s.forOthers {
		return engine.Refuse(CodeForOthersOff, "throwing for others is switched off at this table")
	}
	// Ruling T1: a slot named with a card must still hold that card, and the thrower must still
	// know it (else a named card would probe unknown cards for free). The check uses only what the
	// thrower knows, so a refusal tells nothing new.
	for i, sl := range a.Slots[:a.N] {
		c := a.Cards[i]
		if c == 0 {
			continue
		}
		if !s.occupied(a.Owner, sl) {
			return engine.Outdated(CodeStaleThrow, "the throw aimed at the %s in seat %d's slot %d; that slot is empty now",
				cardWords(uint32(c)), a.Owner, sl)
		}
		id := s.rows[a.Owner][sl]
		if s.known[id]&bit(me) == 0 || number(id) != c {
			return engine.Outdated(CodeStaleThrow, "the throw aimed at the %s in seat %d's slot %d; another card lies there now",
				cardWords(uint32(c)), a.Owner, sl)
		}
	}
	for _, sl := range a.Slots[:a.N] {
		if !s.occupied(a.Owner, sl) {
			return engine.Refuse(CodeNoSuchSlot, "seat %d has no card at slot %d", a.Owner, sl)
		}
		if a.Owner == me {
			continue
		}
		k := s.known[s.rows[a.Owner][sl]]
		if k&bit(me) == 0 {
			return engine.Refuse(CodeNotKnown, "you may throw another player's card only if you know it")
		}
		if k&bit(a.Owner) != 0 {
			return engine.Refuse(CodeOwnerPriority, "seat %d knows that card: only they may throw it", a.Owner)
		}
	}
	return nil
}

func (s *State) checkResolve(e effect, a *Action) error {
	me := e.exec
	switch e.kind {
	case effPeek, effGive, effSwitch, effGiveBack:
		if !s.occupied(me, a.Slot) {
			return engine.Refuse(CodeNoSuchSlot, "you have no card at slot %d", a.Slot)
		}
	}
	switch e.kind {
	case effSpy, effGive, effSwitch:
		if a.Target >= s.n || a.Target == me {
			return engine.Refuse(CodeBadTarget, "target another player's seat")
		}
	}
	switch e.kind {
	case effSpy, effSwitch:
		if !s.occupied(a.Target, a.TargetSlot) {
			return engine.Refuse(CodeNoSuchSlot, "seat %d has no card at slot %d", a.Target, a.TargetSlot)
		}
	}
	return nil
}

func (s *State) hasTarget(e effect) bool {
	switch e.kind {
	case effPeek, effGive, effGiveBack:
		return s.hasCards(e.exec)
	case effSpy:
		return s.otherHasCards(e.exec)
	case effSwitch:
		return s.hasCards(e.exec) && s.otherHasCards(e.exec)
	}
	return false
}

// Legal implements engine.Game: the nose touch, the pending effect's targets, the turn actions,
// throws (each own card alone, every own known identical card at once, and known cards of others
// their owners do not know) and the sabai sabai call.
//
// Legal itself only answers the common "nothing" (see idle) and is small enough to inline into
// the method's interface wrapper; legal lists the rest.
func (Game) Legal(s *State, seat int, buf []Action) []Action {
	if seat < 0 || seat >= int(s.n) || s.over() || s.idle(uint8(seat)) {
		return buf
	}
	return s.legal(uint8(seat), buf)
}

func (s *State) legal(me uint8, buf []Action) []Action {
	if cap(buf)-len(buf) < legalRoom {
		buf = slices.Grow(buf, legalRoom)
	}
	var a *Action
	if s.noseOpen && s.touched&bit(me) == 0 {
		buf, _ = push(buf, KindTouchNose)
	}
	if s.ph == phaseEnding {
		return buf
	}
	if len(s.queue) > 0 {
		if s.queue[0].exec == me {
			buf = s.legalResolve(s.queue[0], buf)
		}
	} else if me == s.cur && !s.turnDone && s.pend == 0 {
		if s.ph == phaseDraw {
			buf, _ = push(buf, KindDraw)
		} else {
			buf, _ = push(buf, KindPlay)
			for i, id := range s.rows[me] {
				if id != noCard {
					buf, a = push(buf, KindKeep)
					a.Slot = uint8(i)
				}
			}
		}
	}
	if top := s.top(); top != noCard && s.locked&bit(me) == 0 {
		tn := number(top)
		want := class(tn)
		turn := s.turn
		var multi, multiCards [MaxThrow]uint8
		nm := uint8(0)
		for i, id := range s.rows[me] {
			if id == noCard {
				continue
			}
			buf, a = push(buf, KindThrow)
			a.Owner, a.Top, a.Turn, a.N, a.Slots[0] = me, tn, turn, 1, uint8(i)
			if s.known[id]&bit(me) != 0 {
				a.Cards[0] = number(id)
				if class(number(id)) == want && nm < MaxThrow {
					multi[nm], multiCards[nm] = uint8(i), number(id)
					nm++
				}
			}
		}
		if nm > 1 {
			buf, a = push(buf, KindThrow)
			a.Owner, a.Top, a.Turn, a.N, a.Slots, a.Cards = me, tn, turn, nm, multi, multiCards
		}
		if s.forOthers {
			for o := range s.n {
				if o == me {
					continue
				}
				for i, id := range s.rows[o] {
					if id != noCard && s.known[id]&bit(me) != 0 && s.known[id]&bit(o) == 0 {
						buf, a = push(buf, KindThrow)
						a.Owner, a.Top, a.Turn, a.N, a.Slots[0], a.Cards[0] = o, tn, turn, 1, uint8(i), number(id)
					}
				}
			}
		}
	}
	if !s.final() && !s.called {
		buf, _ = push(buf, KindCall)
	}
	return buf
}

// idle reports, cheaply, that seat has no legal action, as most seats at most moments have (not
// their turn, no effect to resolve, locked out of throwing, no nose to touch, no call left). False
// means nothing: Legal then lists what there is.
func (s *State) idle(me uint8) bool {
	return !s.noseOpen && len(s.queue) == 0 && (me != s.cur || s.turnDone) &&
		(s.locked&bit(me) != 0 || len(s.disc) == 0) && (s.called || s.final())
}

// push appends an action of kind k to buf and returns it, to be filled in place. An action built
// apart and then copied in would be read back in wide loads right after its narrow stores, which
// the processor cannot forward and stalls on; zeroing the slot and setting fields does not.
func push(buf []Action, k Kind) ([]Action, *Action) {
	n := len(buf)
	if n == cap(buf) {
		buf = slices.Grow(buf, 1)
	}
	buf = buf[:n+1]
	a := &buf[n]
	*a = Action{Kind: k}
	return buf, a
}

func (s *State) legalResolve(e effect, buf []Action) []Action {
	me := e.exec
	// The targets of a spy, give or switch can outnumber legalRoom: make room for all at once.
	switch e.kind {
	case effSpy, effGive, effSwitch:
		others := 0
		for o := range s.n {
			if o == me {
				continue
			}
			if e.kind == effGive {
				others++
			} else {
				others += s.count(o)
			}
		}
		need := others
		if e.kind != effSpy {
			need *= s.count(me)
		}
		buf = slices.Grow(buf, need)
	}
	var a *Action
	if e.kind == effSpy {
		for o := range s.n {
			if o == me {
				continue
			}
			for j, oid := range s.rows[o] {
				if oid != noCard {
					buf, a = push(buf, KindResolve)
					a.Target, a.TargetSlot = o, uint8(j)
				}
			}
		}
		return buf
	}
	for i, id := range s.rows[me] {
		if id == noCard {
			continue
		}
		switch e.kind {
		case effPeek, effGiveBack:
			buf, a = push(buf, KindResolve)
			a.Slot = uint8(i)
		case effGive:
			for o := range s.n {
				if o != me {
					buf, a = push(buf, KindResolve)
					a.Slot, a.Target = uint8(i), o
				}
			}
		case effSwitch:
			for o := range s.n {
				if o == me {
					continue
				}
				for j, oid := range s.rows[o] {
					if oid != noCard {
						buf, a = push(buf, KindResolve)
						a.Slot, a.Target, a.TargetSlot = uint8(i), o, uint8(j)
					}
				}
			}
		}
	}
	return buf
}
