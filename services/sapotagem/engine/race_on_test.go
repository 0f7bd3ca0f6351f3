//go:build race

package engine

// raceEnabled: the race detector slows the engine about tenfold, so the property test keeps its
// 10,000 games but renders fewer views.
const raceEnabled = true
