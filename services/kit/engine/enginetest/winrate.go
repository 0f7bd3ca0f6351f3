package enginetest

import (
	"math"
	"os"
)

// Wilson is the 95 % Wilson score interval of k successes in n trials.
func Wilson(k, n int) (lo, hi float64) {
	const z = 1.96
	p, nf := float64(k)/float64(n), float64(n)
	c := (p + z*z/(2*nf)) / (1 + z*z/nf)
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / (1 + z*z/nf)
	return c - h, c + h
}

// FullWinRate reports whether the bots' play-strength tests run at full size, 1,000 games
// (CARDROOM_WINRATE=1, make bots-winrate); otherwise they play a smaller sample with bounds
// derived from its spread.
func FullWinRate() bool { return os.Getenv("CARDROOM_WINRATE") == "1" }
