package stats

import (
	"math"
	"testing"
)

// TestRatingGolden compares Rate with reference values of OpenSkill's Plackett–Luce model (every
// player a team of one). With τ = 25/300 (the default, as openskill.py applies it before every
// game): the 4-player case is the published reference, the 2-player and tied cases are computed
// from the published formulas (Weng and Lin 2011, algorithm 4, ties through A_q). With τ = 0:
// openskill.js's own test values for 3 and 4 players, which leave τ out.
func TestRatingGolden(t *testing.T) {
	const s0 = 25.0 / 3
	noTau := DefaultRating
	noTau.Tau = 0
	for _, c := range []struct {
		name  string
		p     RatingParams
		mu    []float64
		sigma []float64
		rank  []uint32
		want  [][2]float64
		tol   float64
	}{
		{"4 players ranked 1-4", DefaultRating, []float64{25, 25, 25, 25}, []float64{s0, s0, s0, s0}, []uint32{1, 2, 3, 4},
			[][2]float64{{27.795253, 8.263572}, {26.552918, 8.179618}, {24.689416, 8.084128}, {20.962413, 8.084128}}, 1e-6},
		{"2 players", DefaultRating, []float64{25, 25}, []float64{s0, s0}, []uint32{1, 2},
			[][2]float64{{27.635389, 8.065901}, {22.364611, 8.065901}}, 1e-6},
		{"3 players, two tied first", DefaultRating, []float64{25, 25, 25}, []float64{s0, s0, s0}, []uint32{1, 1, 3},
			[][2]float64{{25.717262, 8.205243}, {25.717262, 8.205243}, {23.565476, 8.205243}}, 1e-6},
		{"4 players, seats 0 and 2 tied second", DefaultRating, []float64{25, 25, 25, 25}, []float64{s0, s0, s0, s0}, []uint32{2, 1, 2, 4},
			[][2]float64{{24.689416, 8.179618}, {27.795253, 8.263572}, {24.689416, 8.179618}, {22.825915, 8.179618}}, 1e-6},
		{"2 players, an upset", DefaultRating, []float64{30, 20}, []float64{4, 6}, []uint32{2, 1},
			[][2]float64{{28.719015, 3.970649}, {22.881523, 5.846261}}, 1e-6},
		{"openskill.js 3p FFA (no tau)", noTau, []float64{25, 25, 25}, []float64{s0, s0, s0}, []uint32{1, 2, 3},
			[][2]float64{{27.868876552746237, 8.204837030780652}, {25.717219138186557, 8.057829747583874}, {21.413904309067206, 8.057829747583874}}, 1e-9},
		{"openskill.js 4p FFA (no tau)", noTau, []float64{25, 25, 25, 25}, []float64{s0, s0, s0, s0}, []uint32{1, 2, 3, 4},
			[][2]float64{{27.795084971874736, 8.263160757613477}, {26.552824984374855, 8.179213704945203}, {24.68943500312503, 8.083731307186588}, {20.96265504062538, 8.083731307186588}}, 1e-9},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.p.Rate(c.mu, c.sigma, c.rank)
			for i, w := range c.want {
				if math.Abs(c.mu[i]-w[0]) > c.tol || math.Abs(c.sigma[i]-w[1]) > c.tol {
					t.Errorf("seat %d: μ/σ %.9f/%.9f, want %.9f/%.9f", i, c.mu[i], c.sigma[i], w[0], w[1])
				}
			}
		})
	}
}
