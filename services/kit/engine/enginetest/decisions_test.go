package enginetest

import (
	"math/rand/v2"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
)

func TestTimes(t *testing.T) {
	d := Times{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond, 10 * time.Millisecond}
	if got := d.Mean(); got != 4*time.Millisecond {
		t.Errorf("mean %v, want 4ms", got)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0, time.Millisecond}, {0.5, 3 * time.Millisecond}, {0.99, 10 * time.Millisecond}, {1, 10 * time.Millisecond}} {
		if got := d.Pct(c.p); got != c.want {
			t.Errorf("Pct(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if d[0] != 3*time.Millisecond {
		t.Error("Pct sorted the times in place")
	}
	if (Times{}).Mean() != 0 || (Times{}).Pct(0.5) != 0 {
		t.Error("no times: want 0")
	}
}

// first is a bot that plays its first legal action.
type first struct{}

func (first) Choose(_ proto.Message, legal []int, _ *rand.Rand) int { return legal[0] }

// TestTimed: only decisions among more than one action are timed.
func TestTimed(t *testing.T) {
	var d Times
	b := Timed[int]{Bot: first{}, Times: &d}
	if a := b.Choose(nil, []int{7}, nil); a != 7 {
		t.Fatalf("chose %d", a)
	}
	b.Choose(nil, []int{1, 2}, nil)
	b.Choose(nil, []int{3, 4, 5}, nil)
	if len(d) != 2 {
		t.Errorf("%d times, want 2 (a forced move is not a decision)", len(d))
	}
}

func TestWilson(t *testing.T) {
	lo, hi := Wilson(40, 100)
	if lo < 0.30 || lo > 0.31 || hi < 0.49 || hi > 0.50 { // 0.3094–0.4980
		t.Errorf("Wilson(40, 100) = %.4f–%.4f, want about 0.3094–0.4980", lo, hi)
	}
}
