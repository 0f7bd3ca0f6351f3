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

func newCardChanged() (*sponsiov1.Event, *sponsiov1.CardChanged) {
	b := new(struct {
		e sponsiov1.Event
		w sponsiov1.Event_CardChanged
		m sponsiov1.CardChanged
	})
	b.w.CardChanged, b.e.Kind = &b.m, &b.w
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

func newTrickWon() (*sponsiov1.Event, *sponsiov1.TrickWon) {
	b := new(struct {
		e sponsiov1.Event
		w sponsiov1.Event_TrickWon
		m sponsiov1.TrickWon
		c [4]*sponsiov1.Card
	})
	b.w.TrickWon, b.e.Kind = &b.m, &b.w
	b.m.Cards = b.c[:0]
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
