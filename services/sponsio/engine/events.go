package engine

import (
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
)

// seed gives an action's event list its backing array from the first event's allocation, so the
// most frequent actions cost one allocation for their events and the list together.
func seed(evs *[]engine.Event, arr []engine.Event) {
	if cap(*evs) == 0 {
		*evs = arr[:0]
	}
}

// The frequent events are made in one allocation each: the Event, its oneof wrapper and the
// inner message live in one struct (random games make hundreds of events, see the benchmarks).

func newPassed(evs *[]engine.Event) (*sponsiov1.Event, *sponsiov1.Passed) {
	b := new(struct {
		e   sponsiov1.Event
		w   sponsiov1.Event_Passed
		m   sponsiov1.Passed
		evs [2]engine.Event
	})
	b.w.Passed, b.e.Kind = &b.m, &b.w
	seed(evs, b.evs[:])
	return &b.e, &b.m
}

func newCardOpened(evs *[]engine.Event) (*sponsiov1.Event, *sponsiov1.CardOpened) {
	b := new(struct {
		e   sponsiov1.Event
		w   sponsiov1.Event_CardOpened
		m   sponsiov1.CardOpened
		evs [3]engine.Event
	})
	b.w.CardOpened, b.e.Kind = &b.m, &b.w
	seed(evs, b.evs[:])
	return &b.e, &b.m
}

func newCouponTaken() (*sponsiov1.Event, *sponsiov1.CouponTaken) {
	b := new(struct {
		e sponsiov1.Event
		w sponsiov1.Event_CouponTaken
		m sponsiov1.CouponTaken
	})
	b.w.CouponTaken, b.e.Kind = &b.m, &b.w
	return &b.e, &b.m
}

func newBetMarked(evs *[]engine.Event) (*sponsiov1.Event, *sponsiov1.BetMarked) {
	b := new(struct {
		e   sponsiov1.Event
		w   sponsiov1.Event_BetMarked
		m   sponsiov1.BetMarked
		evs [2]engine.Event
	})
	b.w.BetMarked, b.e.Kind = &b.m, &b.w
	seed(evs, b.evs[:])
	return &b.e, &b.m
}

func newCardPlayed(evs *[]engine.Event) (*sponsiov1.Event, *sponsiov1.CardPlayed) {
	b := new(struct {
		e   sponsiov1.Event
		w   sponsiov1.Event_CardPlayed
		m   sponsiov1.CardPlayed
		evs [2]engine.Event
	})
	b.w.CardPlayed, b.e.Kind = &b.m, &b.w
	seed(evs, b.evs[:])
	return &b.e, &b.m
}

func newBetSettled() (*sponsiov1.Event, *sponsiov1.BetSettled) {
	b := new(struct {
		e sponsiov1.Event
		w sponsiov1.Event_BetSettled
		m sponsiov1.BetSettled
	})
	b.w.BetSettled, b.e.Kind = &b.m, &b.w
	return &b.e, &b.m
}

func newMarkerMoved() (*sponsiov1.Event, *sponsiov1.MarkerMoved) {
	b := new(struct {
		e sponsiov1.Event
		w sponsiov1.Event_MarkerMoved
		m sponsiov1.MarkerMoved
	})
	b.w.MarkerMoved, b.e.Kind = &b.m, &b.w
	return &b.e, &b.m
}

func newTokenTaken() (*sponsiov1.Event, *sponsiov1.TokenTaken) {
	b := new(struct {
		e sponsiov1.Event
		w sponsiov1.Event_TokenTaken
		m sponsiov1.TokenTaken
	})
	b.w.TokenTaken, b.e.Kind = &b.m, &b.w
	return &b.e, &b.m
}

// newOpenedCoupon makes the two events of opening a card to bet, in one allocation.
func newOpenedCoupon(evs *[]engine.Event) (*sponsiov1.Event, *sponsiov1.CardOpened, *sponsiov1.Event, *sponsiov1.CouponTaken) {
	b := new(struct {
		e1  sponsiov1.Event
		w1  sponsiov1.Event_CardOpened
		m1  sponsiov1.CardOpened
		e2  sponsiov1.Event
		w2  sponsiov1.Event_CouponTaken
		m2  sponsiov1.CouponTaken
		evs [2]engine.Event
	})
	b.w1.CardOpened, b.e1.Kind = &b.m1, &b.w1
	b.w2.CouponTaken, b.e2.Kind = &b.m2, &b.w2
	seed(evs, b.evs[:])
	return &b.e1, &b.m1, &b.e2, &b.m2
}

// newOpenedChange makes the two events of opening a card to change one, in one allocation.
func newOpenedChange(evs *[]engine.Event) (*sponsiov1.Event, *sponsiov1.CardOpened, *sponsiov1.Event, *sponsiov1.CardChanged) {
	b := new(struct {
		e1  sponsiov1.Event
		w1  sponsiov1.Event_CardOpened
		m1  sponsiov1.CardOpened
		e2  sponsiov1.Event
		w2  sponsiov1.Event_CardChanged
		m2  sponsiov1.CardChanged
		evs [3]engine.Event
	})
	b.w1.CardOpened, b.e1.Kind = &b.m1, &b.w1
	b.w2.CardChanged, b.e2.Kind = &b.m2, &b.w2
	seed(evs, b.evs[:])
	return &b.e1, &b.m1, &b.e2, &b.m2
}

// newPlayedTrick makes the events of the card that completes a trick, in one allocation.
func newPlayedTrick(evs *[]engine.Event) (*sponsiov1.Event, *sponsiov1.CardPlayed, *sponsiov1.Event, *sponsiov1.TrickWon) {
	b := new(struct {
		e1  sponsiov1.Event
		w1  sponsiov1.Event_CardPlayed
		m1  sponsiov1.CardPlayed
		e2  sponsiov1.Event
		w2  sponsiov1.Event_TrickWon
		m2  sponsiov1.TrickWon
		c   [4]*sponsiov1.Card
		evs [2]engine.Event
	})
	b.w1.CardPlayed, b.e1.Kind = &b.m1, &b.w1
	b.w2.TrickWon, b.e2.Kind = &b.m2, &b.w2
	b.m2.Cards = b.c[:0]
	seed(evs, b.evs[:])
	return &b.e1, &b.m1, &b.e2, &b.m2
}

func pub(evs *[]engine.Event, e *sponsiov1.Event) {
	*evs = append(*evs, engine.Event{To: engine.Public, Payload: e})
}
