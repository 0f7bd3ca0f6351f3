//go:build race

package stats_test

// The race detector slows the embedded NATS server tenfold: the bus tests feed fewer games.
const raceEnabled = true
