package stats

import (
	"math"
	"math/rand/v2"

	"google.golang.org/protobuf/reflect/protoreflect"
	"testing"
)

func TestRatingMovesTowardResults(t *testing.T) {
	p := DefaultRating
	mu := []float64{25, 25, 25, 25}
	sigma := []float64{p.Sigma, p.Sigma, p.Sigma, p.Sigma}
	p.Rate(mu, sigma, []uint32{1, 2, 3, 4})
	for i := 1; i < 4; i++ {
		if !(mu[i] < mu[i-1]) {
			t.Fatalf("mu not ordered by rank: %v", mu)
		}
	}
	if mu[0] <= 25 || mu[3] >= 25 {
		t.Fatalf("winner or loser did not move: %v", mu)
	}
	for _, s := range sigma {
		if s >= p.Sigma {
			t.Fatalf("sigma did not shrink: %v", sigma)
		}
	}
	// Mean skill is conserved for equal players (the model is symmetric).
	if sum := mu[0] + mu[1] + mu[2] + mu[3]; math.Abs(sum-100) > 1e-9 {
		t.Fatalf("sum of mu %v", sum)
	}
}

func TestRatingTies(t *testing.T) {
	p := DefaultRating
	mu := []float64{25, 25, 25}
	sigma := []float64{p.Sigma, p.Sigma, p.Sigma}
	p.Rate(mu, sigma, []uint32{1, 1, 3})
	if mu[0] != mu[1] || sigma[0] != sigma[1] || mu[2] >= 25 {
		t.Fatalf("tied seats differ: %v %v", mu, sigma)
	}
}

func TestRatingUpsetMovesMore(t *testing.T) {
	p := DefaultRating
	strongWins := []float64{30, 20}
	upset := []float64{30, 20}
	s1 := []float64{4, 4}
	s2 := []float64{4, 4}
	p.Rate(strongWins, s1, []uint32{1, 2})
	p.Rate(upset, s2, []uint32{2, 1})
	if !(upset[1]-20 > strongWins[0]-30) {
		t.Fatalf("an upset should move ratings more: %v %v", strongWins, upset)
	}
}

// TestRatingConverges checks that many games order players by their hidden skill.
func TestRatingConverges(t *testing.T) {
	p := DefaultRating
	r := rand.New(rand.NewPCG(1, 1))
	skill := []float64{3, 2, 1, 0, -1, -2}
	mu := make([]float64, len(skill))
	sigma := make([]float64, len(skill))
	for i := range mu {
		mu[i], sigma[i] = p.Mu, p.Sigma
	}
	for range 3000 {
		seats := r.Perm(len(skill))[:4]
		perf := make([]float64, 4)
		for i, s := range seats {
			perf[i] = skill[s] + r.NormFloat64()
		}
		rank := make([]uint32, 4)
		m, sg := make([]float64, 4), make([]float64, 4)
		for i := range 4 {
			rank[i] = 1
			for j := range 4 {
				if perf[j] > perf[i] {
					rank[i]++
				}
			}
			m[i], sg[i] = mu[seats[i]], sigma[seats[i]]
		}
		p.Rate(m, sg, rank)
		for i, s := range seats {
			mu[s], sigma[s] = m[i], sg[i]
		}
	}
	for i := 1; i < len(mu); i++ {
		if mu[i] >= mu[i-1] {
			t.Fatalf("ratings do not follow skill: %v", mu)
		}
	}
}

func TestBuckets(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for range 100000 {
		v := int64(r.Uint64() >> r.IntN(64))
		if r.IntN(2) == 0 {
			v = -v
		}
		lo, hi := bucketOf(v)
		if v < lo || v > hi {
			t.Fatalf("%d not in [%d, %d]", v, lo, hi)
		}
		if l2, h2 := bucketOf(lo); l2 != lo || h2 != hi {
			t.Fatalf("bucket of %d's lower bound %d is [%d, %d], not [%d, %d]", v, lo, l2, h2, lo, hi)
		}
		mag := max(v, -v)
		if mag < exactBelow && lo != hi {
			t.Fatalf("%d not exact", v)
		}
		if mag >= exactBelow && float64(hi-lo+1) > float64(mag)/32+1 {
			t.Fatalf("bucket [%d, %d] too wide for %d", lo, hi, v)
		}
	}
}

func TestDecodeIgnoresGameEvents(t *testing.T) {
	for _, c := range []struct {
		game, name string
		want       bool
	}{
		{"sapotagem", "cardroom.sapotagem.v1.CardPlayed", true},
		{"sapotagem", "cardroom.sponsio.v1.CardPlayed", false},
		{"sapotagem", "cardroom.sapotagem.v1.Inner.Nested", false},
		{"sapotagem", "cardroom.events.v1.Visibility", false},
	} {
		if got := isGameEvent(c.game, protoName(c.name)); got != c.want {
			t.Errorf("%s in %s: %v", c.name, c.game, got)
		}
	}
}

func protoName(s string) protoreflect.FullName { return protoreflect.FullName(s) }
