package stats

import "math"

// RatingParams are the parameters of the Weng–Lin Bayesian approximation under the Plackett–Luce
// model ("A Bayesian Approximation Method for Online Ranking", Weng and Lin, JMLR 2011; the model
// OpenSkill implements). Every player is a team of one; a game's ranks (ties allowed) update every
// seat's skill estimate N(mu, sigma²) in one step.
type RatingParams struct {
	// Mu and Sigma are a new player's estimate.
	Mu, Sigma float64
	// Beta is the performance noise of one game.
	Beta float64
	// Kappa bounds how far one game can shrink a variance (sigma² never shrinks below kappa·sigma²).
	Kappa float64
	// Tau is added (in quadrature) to sigma before each game, so ratings keep moving.
	Tau float64
}

// DefaultRating is the rating system of every game: mu 25, sigma 25/3, beta 25/6, kappa 0.0001,
// tau 25/300. The displayed rating is mu - 3 sigma (0 for a new player).
var DefaultRating = RatingParams{Mu: 25, Sigma: 25.0 / 3, Beta: 25.0 / 6, Kappa: 0.0001, Tau: 25.0 / 300}

// Display is the conservative rating shown and ranked on leaderboards.
func Display(mu, sigma float64) float64 { return mu - 3*sigma }

// Rate updates mu and sigma in place from one game's ranks (1 is best; tied seats share a rank).
// The three slices have one entry per seat.
func (p RatingParams) Rate(mu, sigma []float64, rank []uint32) {
	n := len(mu)
	if n < 2 {
		return
	}
	var c2 float64
	for i := range n {
		s := math.Sqrt(sigma[i]*sigma[i] + p.Tau*p.Tau)
		sigma[i] = s
		c2 += s*s + p.Beta*p.Beta
	}
	c := math.Sqrt(c2)
	e := make([]float64, n)
	for i := range n {
		e[i] = math.Exp(mu[i] / c)
	}
	sumQ := make([]float64, n)
	ties := make([]float64, n)
	for q := range n {
		for s := range n {
			if rank[s] >= rank[q] {
				sumQ[q] += e[s]
			}
			if rank[s] == rank[q] {
				ties[q]++
			}
		}
	}
	newMu := make([]float64, n)
	newSigma := make([]float64, n)
	for i := range n {
		var omega, delta float64
		for q := range n {
			if rank[q] > rank[i] {
				continue
			}
			quot := e[i] / sumQ[q]
			if q == i {
				omega += (1 - quot) / ties[q]
			} else {
				omega -= quot / ties[q]
			}
			delta += quot * (1 - quot) / ties[q]
		}
		s2 := sigma[i] * sigma[i]
		gamma := sigma[i] / c
		newMu[i] = mu[i] + s2/c*omega
		newSigma[i] = sigma[i] * math.Sqrt(math.Max(1-gamma*s2/c2*delta, p.Kappa))
	}
	copy(mu, newMu)
	copy(sigma, newSigma)
}
