package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
)

// pub appends a public event; evs is nil in quiet playouts (bots' rollouts), which keep no events.
func pub(evs *[]engine.Event, e *pb.Event) {
	if evs == nil {
		return
	}
	*evs = append(*evs, engine.Event{To: engine.Public, Payload: e})
}

// roundStartedEvent and roundEndedEvent hold an event with its wrapper, payload and cards in one
// allocation: they come every round.
type roundStartedEvent struct {
	e           pb.Event
	w           pb.Event_RoundStarted
	rs          pb.RoundStarted
	trump, next pb.Card
}

type roundEndedEvent struct {
	e      pb.Event
	w      pb.Event_RoundEnded
	re     pb.RoundEnded
	card   pb.Card
	winner uint32
}

// setCard fills a card message in place and returns it.
func setCard(m *pb.Card, c int8) *pb.Card {
	m.Colour, m.Rank, m.Faction = colourPB(colourOf(c)), uint32(rankOf(c)), pb.Faction(factionOf(c)+1)
	return m
}
