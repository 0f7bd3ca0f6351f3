package engine

import (
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
	s.discAt, s.discTurn = at, s.turn
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
	s.discAt, s.discTurn = at, s.turn
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

// legalRoom is the room Legal makes, in one allocation, in a buffer that lacks it: a seat's usual
// actions fit (a nose touch, the turn's, a throw per card, the call), so a caller that reuses its
// buffer does not grow it step by step.
const legalRoom = 16

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
