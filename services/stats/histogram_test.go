package stats

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// deltaCounters reads a delta of one game as the store would hold it.
func deltaCounters(d *GameDelta) map[string]int64 {
	c := maps.Clone(d.Incr)
	maps.Copy(c, d.Min)
	maps.Copy(c, d.Max)
	return c
}

// TestPercentilesWithinRange: no percentile lies outside the samples' [min, max], also when every
// sample sits at one edge of a wide bucket.
func TestPercentilesWithinRange(t *testing.T) {
	for _, samples := range [][]int64{
		{64, 64},            // bucket [64, 65]: middle 64.5 > max
		{1000, 1000, 1001},  // bucket [992, 1023]: middle 1007.5
		{-1000, -1000},      // the same below zero
		{5, 1 << 40},        // a huge bucket above a small value
		{-(1 << 40), 3, 70}, // p50 in an exact bucket, the others at the edges
	} {
		d := newGameDelta()
		for _, v := range samples {
			d.sample("x", v)
		}
		got := distribution(deltaCounters(d), "x", false)
		for _, p := range []float64{got.GetP50(), got.GetP90(), got.GetP99()} {
			if p < float64(got.GetMin()) || p > float64(got.GetMax()) {
				t.Errorf("%v: percentile %v outside [%d, %d]", samples, p, got.GetMin(), got.GetMax())
			}
		}
	}
	if got := distribution(deltaCounters(sampled(64, 64)), "x", false); got.GetP50() != 64 || got.GetP99() != 64 {
		t.Errorf("samples 64, 64: p50 %v, p99 %v; want 64", got.GetP50(), got.GetP99())
	}
	r := rand.New(rand.NewPCG(3, 3))
	for range 2000 {
		d := newGameDelta()
		for range 1 + r.IntN(5) {
			d.sample("x", int64(r.Uint64()>>r.IntN(64))-int64(r.IntN(2))*(1<<r.IntN(40)))
		}
		got := distribution(deltaCounters(d), "x", false)
		for _, p := range []float64{got.GetP50(), got.GetP90(), got.GetP99()} {
			if p < float64(got.GetMin()) || p > float64(got.GetMax()) {
				t.Fatalf("percentile %v outside [%d, %d]", p, got.GetMin(), got.GetMax())
			}
		}
	}
}

func sampled(vs ...int64) *GameDelta {
	d := newGameDelta()
	for _, v := range vs {
		d.sample("x", v)
	}
	return d
}
