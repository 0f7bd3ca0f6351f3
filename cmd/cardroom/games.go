package main

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai"
	"cardroom.dev/services/saboteur"
	"cardroom.dev/services/sapotagem"
	"cardroom.dev/services/sponsio"
	"cardroom.dev/services/stats"
	"google.golang.org/protobuf/proto"
)

// engines are the games this binary serves, in port order.
func engines() []engine.Engine {
	return []engine.Engine{
		sabaisabai.Engine(),
		saboteur.Engine(),
		sapotagem.Engine(),
		sponsio.Engine(),
	}
}

// statsAggregator is the stats service's aggregation of these games: it knows no game of its own,
// and decodes the tables' options with the games' option messages.
func statsAggregator() stats.Aggregator {
	var options []proto.Message
	for _, e := range engines() {
		options = append(options, e.Info().Options)
	}
	return stats.NewAggregator(options...)
}
