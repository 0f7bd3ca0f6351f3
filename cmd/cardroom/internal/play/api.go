package play

import (
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
)

// eventLabel is the words the gateway puts on an event ("": the client words it).
func eventLabel(e *eventsv1.Event) string { return e.GetLabel() }
