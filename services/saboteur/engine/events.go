package engine

import (
	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

func ev(to int, e *pb.Event) engine.Event { return engine.Event{To: to, Payload: e} }
