// Command stats runs the stats service: the event-stream consumer and the StatsService. It names
// the games whose table options the aggregates count: the stats package itself knows none.
package main

import (
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	saboteurv1 "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/stats"
)

func main() {
	stats.Main(&sabaisabaiv1.Options{}, &saboteurv1.Options{}, &sapotagemv1.Options{}, &sponsiov1.Options{})
}
