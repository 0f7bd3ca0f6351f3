// Command stats runs the stats service: the event-stream consumer and the StatsService.
package main

import "cardroom.dev/services/stats"

func main() { stats.Main() }
