package engine

import (
	"slices"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
)

// Apply implements engine.Game. Every check comes first; the state changes only after them.
func (Game) Apply(s *State, m engine.Move[Action]) ([]engine.Event, error) {
	at := nanos(m.At)
	if err := s.check(m.Seat, &m.Action, at); err != nil {
		return nil, err
	}
	var evs []engine.Event
	var spare *turnStartedBox // memory for the next TurnStarted, lent by a play's or keep's frame
	seat := uint8(m.Seat)
	a := &m.Action
	// Turn actions, throws and resolutions build their events in one frame each (see events.go),
	// the turn actions' frames lent by the state's chunks (see frames); the rarer actions use a
	// plain list.
	if (a.Kind == KindPlay || a.Kind == KindKeep) && at < s.landAt() {
		// Chosen inside the throw window (or a bot's think): the discard lands at the deadline.
		s.pend, s.pendSlot, s.pendAt = a.Kind, a.Slot, s.landAt()
		evs = make([]engine.Event, 0, 1)
		emit(&evs, engine.Public, &pb.Event{Kind: &pb.Event_DiscardPending{DiscardPending: &pb.DiscardPending{
			Seat: uint32(seat), LandsAt: timestamp(s.pendAt)}}})
		s.lastAt = at
		return evs, nil
	}
	switch a.Kind {
	case KindDraw:
		s.drawAt = at
		fr := s.mem.draw.get()
		evs = fr.evs[:0]
		s.doDraw(&evs, fr)
	case KindPlay:
		fr := s.mem.play.get()
		evs = fr.evs[:0]
		spare = &fr.turn
		s.doPlay(at, &evs, &fr.played)
	case KindKeep:
		fr := s.mem.keep.get()
		evs = fr.evs[:0]
		spare = &fr.turn
		s.doKeep(a.Slot, at, &evs, &fr.kept)
	case KindThrow:
		s.doThrow(seat, a, at, &evs)
	case KindResolve:
		s.doResolve(a, &evs) // the effect's frame lends the list
	case KindTouchNose:
		evs = make([]engine.Event, 0, 4)
		s.doTouch(seat, &evs)
	case KindCall:
		evs = make([]engine.Event, 0, 2)
		s.doCall(seat, &evs)
	}
	s.settle(&evs, spare)
	s.lastAt = at
	return evs, nil
}

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
	if a.Turn != s.turn || class(a.Top) != class(number(top)) {
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

// doDraw draws for the turn player; fr, when not nil, holds the events' memory.
func (s *State) doDraw(evs *[]engine.Event, fr *drawFrame) {
	id, ok := s.drawCard(evs)
	if !ok {
		// Nothing left to draw anywhere: the round cannot go on and ends now.
		s.endRound(evs)
		return
	}
	seat := s.cur
	s.known[id] = bit(seat)
	if fr == nil {
		fr = &drawFrame{}
	}
	emit(evs, engine.Public, fr.drew.event(seat))
	emit(evs, int(seat), fr.card.event(number(id)))
	if id == assID {
		// Ruling A1: the Ass Joker cannot be played; it joins the row and the turn ends.
		slot := s.place(seat, id)
		emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_AssJokerAdded{AssJokerAdded: &pb.AssJokerAdded{
			Seat: uint32(seat), Slot: uint32(slot)}}})
		s.finishTurn()
		return
	}
	s.drawn = id
	s.ph = phaseDecide
}

func (s *State) doPlay(at int64, evs *[]engine.Event, box *playedBox) {
	if box == nil {
		box = &playedBox{}
	}
	id := s.drawn
	s.drawn = noCard
	emit(evs, engine.Public, box.event(s.cur, number(id)))
	s.discAt = at
	s.land(id, at, evs)
	s.queueFunction(s.cur, number(id), evs)
	s.finishTurn()
}

func (s *State) doKeep(slot uint8, at int64, evs *[]engine.Event, box *keptBox) {
	seat := s.cur
	old := s.rows[seat][slot]
	if old == assID {
		// Ruling A2: the Ass Joker cannot be swapped out; it is shown, stays, and the drawn card
		// must be played.
		s.reveal(old)
		f := &revealFrame{}
		emit(evs, engine.Public, f.event(seat, slot))
		s.doPlay(at, evs, &f.played)
		return
	}
	s.rows[seat][slot] = s.drawn
	s.drawn = noCard
	emit(evs, engine.Public, box.event(seat, slot, number(old)))
	s.discAt = at
	s.land(old, at, evs)
	s.finishTurn()
}

func (s *State) queueFunction(exec uint8, n uint8, evs *[]engine.Event) {
	if !isFunction(n) {
		return
	}
	s.enqueue(effect{exec: exec, kind: effectKind(n-Peek) + effPeek}, evs)
}

func (s *State) enqueue(e effect, evs *[]engine.Event) {
	s.queue = append(s.queue, e)
	emit(evs, engine.Public, s.evEffectQueued(e))
}

func (s *State) doThrow(me uint8, a *Action, at int64, evs *[]engine.Event) {
	want := class(number(s.top()))
	hit := true
	for _, sl := range a.Slots[:a.N] {
		if class(number(s.rows[a.Owner][sl])) != want {
			hit = false
		}
	}
	if !hit {
		// A wrong throw: every named card is shown and goes back; the thrower draws a penalty card
		// and may not throw until another player has thrown successfully.
		fr := &wrongFrame{}
		*evs = fr.evs[:0]
		e, slots, cards, m := fr.wrong.event(me, a.Owner)
		for i, sl := range a.Slots[:a.N] {
			id := s.rows[a.Owner][sl]
			slots[i], cards[i] = uint32(sl), uint32(number(id))
			s.reveal(id)
		}
		m.Slots, m.Cards = slots[:a.N], cards[:a.N]
		emit(evs, engine.Public, e)
		s.locked |= bit(me)
		s.penalty(me, pb.PenaltyReason_PENALTY_REASON_WRONG_THROW, evs, &fr.pen)
		return
	}
	s.locked &= bit(me)
	fr := &thrownFrame{}
	*evs = fr.evs[:0]
	e, slots, cards, m := fr.thrown.event(me, a.Owner)
	for i, sl := range a.Slots[:a.N] {
		slots[i], cards[i] = uint32(sl), uint32(number(s.rows[a.Owner][sl]))
	}
	m.Slots, m.Cards = slots[:a.N], cards[:a.N]
	emit(evs, engine.Public, e)
	for _, sl := range a.Slots[:a.N] {
		id := s.remove(a.Owner, sl)
		s.land(id, at, evs)
		// Thrown functions take effect one after another, each executed by the thrower.
		s.queueFunction(me, number(id), evs)
	}
	if a.Owner != me {
		// The sabai-sabai move: one own card back to the owner for each card thrown for them.
		for range a.N {
			s.enqueue(effect{exec: me, kind: effGiveBack, to: a.Owner}, evs)
		}
	}
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

// doResolve resolves the pending effect; its events come in one frame, whose list is used when
// *evs has none yet.
func (s *State) doResolve(a *Action, evs *[]engine.Event) {
	e := s.queue[0]
	s.queue = s.queue[1:]
	me := e.exec
	switch e.kind {
	case effPeek:
		id := s.rows[me][a.Slot]
		s.known[id] |= bit(me)
		f := &peekFrame{}
		if *evs == nil {
			*evs = f.evs[:0]
		}
		pub, m1, priv, m2 := f.events()
		m1.Seat, m1.Slot = uint32(me), uint32(a.Slot)
		m2.Slot, m2.Card = uint32(a.Slot), uint32(number(id))
		emit(evs, engine.Public, pub)
		emit(evs, int(me), priv)
	case effSpy:
		id := s.rows[a.Target][a.TargetSlot]
		s.known[id] |= bit(me)
		f := &spyFrame{}
		if *evs == nil {
			*evs = f.evs[:0]
		}
		pub, m1, priv, m2 := f.events()
		m1.Seat, m1.TargetSeat, m1.TargetSlot = uint32(me), uint32(a.Target), uint32(a.TargetSlot)
		m2.TargetSeat, m2.TargetSlot, m2.Card = uint32(a.Target), uint32(a.TargetSlot), uint32(number(id))
		emit(evs, engine.Public, pub)
		emit(evs, int(me), priv)
	case effGive, effGiveBack:
		to := a.Target
		if e.kind == effGiveBack {
			to = e.to
		}
		id := s.remove(me, a.Slot)
		slot := s.place(to, id)
		f := &gaveFrame{}
		if *evs == nil {
			*evs = f.evs[:0]
		}
		pub, m := f.event()
		m.From, m.FromSlot, m.To, m.ToSlot = uint32(me), uint32(a.Slot), uint32(to), uint32(slot)
		m.GiveBack = e.kind == effGiveBack
		emit(evs, engine.Public, pub)
	case effSwitch:
		mine, theirs := s.rows[me][a.Slot], s.rows[a.Target][a.TargetSlot]
		s.rows[me][a.Slot], s.rows[a.Target][a.TargetSlot] = theirs, mine
		f := &switchedFrame{}
		if *evs == nil {
			*evs = f.evs[:0]
		}
		pub, m := f.event()
		m.Seat, m.OwnSlot, m.Other, m.OtherSlot = uint32(me), uint32(a.Slot), uint32(a.Target), uint32(a.TargetSlot)
		emit(evs, engine.Public, pub)
	}
}

func (s *State) doTouch(me uint8, evs *[]engine.Event) {
	s.touched |= bit(me)
	emit(evs, engine.Public, evNoseTouched(me))
	if popcount(s.touched) == int(s.n)-1 {
		s.closeNose(false, evs)
		if s.ph == phaseEnding {
			s.score(evs)
		}
	}
}

func (s *State) doCall(me uint8, evs *[]engine.Event) {
	s.called, s.caller = true, me
	// Every player takes one more turn, the turn in progress counting as the first of them.
	s.remaining = s.n
	s.lastSeat = s.prev(s.cur)
	if s.turnDone {
		s.lastSeat = s.cur
	}
	emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_SabaiSabaiCalled{SabaiSabaiCalled: &pb.SabaiSabaiCalled{
		Seat: uint32(me), LastTurnSeat: uint32(s.lastSeat)}}})
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

// legalRoom is the room Legal makes, in one allocation, in a buffer that lacks it: a seat's usual
// actions fit (a nose touch, the turn's, a throw per card, the call), so a caller that reuses its
// buffer does not grow it step by step.
const legalRoom = 16

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

// Deadline implements engine.Game: the nose window's deadline, and with a turn timer the last
// action's time plus the turn time while a turn action or an effect is awaited.
func (Game) Deadline(s *State) (time.Time, bool) {
	d, ok := s.deadline()
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, d).UTC(), true
}

// NotBefore implements engine.Pacer: a bot seat's throw is allowed once its reaction delay to the
// card on top has passed since that card landed (Ruling B1). Any other action, or a person's, may be
// applied at once (a discard chosen early waits on the table's deadline instead).
func (Game) NotBefore(s *State, seat int, a Action) (time.Time, bool) {
	if a.Kind != KindThrow || seat < 0 || seat >= int(s.n) || s.bots&bit(uint8(seat)) == 0 || s.top() == noCard {
		return time.Time{}, false
	}
	return time.Unix(0, s.topAt+s.reaction(uint8(seat))).UTC(), true
}

// Timeout implements engine.Game. A passed nose deadline closes the window (every seat that has
// not touched draws a penalty card). A passed turn deadline makes the awaited move: the pending
// effect's first target (see autoResolve), the draw, or playing the drawn card.
func (Game) Timeout(s *State, at time.Time) ([]engine.Event, error) {
	d, ok := s.deadline()
	if !ok {
		return nil, engine.Refuse(engine.CodeNoDeadline, "nothing waits on a deadline")
	}
	now := nanos(at)
	if now < d {
		return nil, engine.Refuse(engine.CodeTooEarly, "the deadline has not passed")
	}
	evs := make([]engine.Event, 0, 6)
	switch {
	case s.noseOpen && now >= s.noseAt:
		s.closeNose(true, &evs)
		if s.ph == phaseEnding {
			s.score(&evs)
		}
	case s.pending() && now >= s.pendAt:
		s.landPending(now, &evs)
	case len(s.queue) > 0:
		a := s.autoResolve(s.queue[0])
		s.doResolve(&a, &evs)
	case s.ph == phaseDraw:
		s.drawAt = now
		s.doDraw(&evs, nil)
	default:
		s.doPlay(now, &evs, nil)
	}
	s.settle(&evs, nil)
	s.lastAt = now
	return evs, nil
}

// landPending lands the discard chosen inside the window: the keep as chosen, or, when the keep's
// slot was emptied meanwhile (its card thrown), the drawn card played instead.
func (s *State) landPending(now int64, evs *[]engine.Event) {
	k, slot := s.pend, s.pendSlot
	s.pend, s.pendSlot, s.pendAt = 0, 0, 0
	if k == KindKeep && s.occupied(s.cur, slot) {
		s.doKeep(slot, now, evs, &keptBox{})
		return
	}
	s.doPlay(now, evs, nil)
}

// autoResolve picks a pending effect's target for a seat that let its time pass: its first card,
// the first other seat in turn order and that seat's first card. settle guarantees a target exists.
func (s *State) autoResolve(e effect) Action {
	a := Action{Kind: KindResolve}
	for i, id := range s.rows[e.exec] {
		if id != noCard {
			a.Slot = uint8(i)
			break
		}
	}
	for o := s.next(e.exec); o != e.exec; o = s.next(o) {
		if e.kind == effGive || s.hasCards(o) {
			a.Target = o
			for j, id := range s.rows[o] {
				if id != noCard {
					a.TargetSlot = uint8(j)
					break
				}
			}
			break
		}
	}
	return a
}
