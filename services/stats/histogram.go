package stats

import (
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
)

// Histograms are kept as counters named "<name>:h:<lower bound>" next to "<name>:n" (samples),
// "<name>:sum", "<name>:min" and "<name>:max", so a batch of samples merges into plain counter
// increments that both stores add atomically. Values below 64 in magnitude have a bucket each;
// larger ones share buckets 1/32 of a power of two wide (relative width at most 1/32).

// exactBelow is the magnitude under which every value has its own bucket.
const exactBelow = 64

// bucketOf returns the bounds (both inclusive) of the bucket holding v.
func bucketOf(v int64) (lower, upper int64) {
	if v < 0 {
		if v == math.MinInt64 {
			v++
		}
		l, u := bucketOf(-v)
		return -u, -l
	}
	if v < exactBelow {
		return v, v
	}
	e := bits.Len64(uint64(v)) - 1
	shift := uint(e - 5)
	lower = (v >> shift) << shift
	return lower, lower + (int64(1) << shift) - 1
}

// sample adds one value to the histogram name in d.
func (d *GameDelta) sample(name string, v int64) {
	lower, _ := bucketOf(v)
	d.incr(name+":h:"+strconv.FormatInt(lower, 10), 1)
	d.incr(name+":n", 1)
	d.incr(name+":sum", v)
	d.min(name+":min", v)
	d.max(name+":max", v)
}

// distribution reads the histogram name back from a game's counters.
func distribution(c map[string]int64, name string, withBuckets bool) *statsv1.Distribution {
	n := c[name+":n"]
	d := &statsv1.Distribution{Count: uint64(max(n, 0))}
	if n <= 0 {
		return d
	}
	d.Mean = float64(c[name+":sum"]) / float64(n)
	d.Min, d.Max = c[name+":min"], c[name+":max"]
	prefix := name + ":h:"
	var bs []*statsv1.Bucket
	for k, v := range c {
		if !strings.HasPrefix(k, prefix) || v <= 0 {
			continue
		}
		lower, err := strconv.ParseInt(k[len(prefix):], 10, 64)
		if err != nil {
			continue
		}
		l, u := bucketOf(lower)
		if l != lower {
			continue
		}
		bs = append(bs, &statsv1.Bucket{Lower: l, Upper: u, Count: uint64(v)})
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Lower < bs[j].Lower })
	d.P50 = within(percentile(bs, n, 0.50), d.Min, d.Max)
	d.P90 = within(percentile(bs, n, 0.90), d.Min, d.Max)
	d.P99 = within(percentile(bs, n, 0.99), d.Min, d.Max)
	if withBuckets {
		d.Buckets = bs
	}
	return d
}

// percentile is the middle of the bucket holding the nearest-rank sample (distribution clamps it to
// [min, max]): the smallest sample with
// at least ceil(p*n) samples at or below it.
func percentile(bs []*statsv1.Bucket, n int64, p float64) float64 {
	rank := uint64(math.Ceil(p * float64(n)))
	rank = max(rank, 1)
	var seen uint64
	for _, b := range bs {
		seen += b.Count
		if seen >= rank {
			return bucketMiddle(b.Lower, b.Upper)
		}
	}
	if len(bs) == 0 {
		return 0
	}
	last := bs[len(bs)-1]
	return bucketMiddle(last.Lower, last.Upper)
}

func bucketMiddle(lower, upper int64) float64 { return float64(lower) + float64(upper-lower)/2 }

// within clamps a percentile to the exact [min, max] of the samples: a bucket's middle can lie
// beyond every sample in it (the samples 64 and 64 share the bucket [64, 65], whose middle is 64.5).
// The lowest and highest buckets hold min and max, so clamping only ever moves an estimate closer
// to the true percentile.
func within(v float64, lo, hi int64) float64 { return min(max(v, float64(lo)), float64(hi)) }
