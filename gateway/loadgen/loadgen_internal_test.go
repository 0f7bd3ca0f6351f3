package loadgen

import (
	"strings"
	"testing"
	"time"

	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"google.golang.org/protobuf/types/known/anypb"
)

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(101-i)*time.Millisecond)
	}
	s := sortedCopy(d)
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.95, 95 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := percentile(s, c.p); got != c.want {
			t.Errorf("p%.0f = %v, want %v", 100*c.p, got, c.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile of nothing = %v", got)
	}
	l := summarise(d)
	if l.Count != 100 || l.P50 != 50 || l.P99 != 99 || l.Max != 100 || l.Mean != 50.5 {
		t.Errorf("summary %+v", l)
	}
}

func TestCommas(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 1234567.4: "1,234,567", 3000.6: "3,001"} {
		if got := commas(in); got != want {
			t.Errorf("commas(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestBar(t *testing.T) {
	b := bar(Progress{Elapsed: 15 * time.Second, Duration: 30 * time.Second, Actions: 45000, Rate: 3000, Errors: 2})
	for _, want := range []string{"[" + strings.Repeat("#", 15) + strings.Repeat(".", 15) + "]", "15s/30s", "45,000 actions", "3,000/s", "2 errors"} {
		if !strings.Contains(b, want) {
			t.Errorf("bar %q lacks %q", b, want)
		}
	}
}

func TestOptionalOnly(t *testing.T) {
	anyOf := func(a *sabaisabaiv1.Action) *anypb.Any {
		x, err := anypb.New(a)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	throw := anyOf(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Throw{Throw: &sabaisabaiv1.Throw{}}})
	call := anyOf(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_CallSabaiSabai{CallSabaiSabai: &sabaisabaiv1.CallSabaiSabai{}}})
	draw := anyOf(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Draw{Draw: &sabaisabaiv1.Draw{}}})
	nose := anyOf(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_TouchNose{TouchNose: &sabaisabaiv1.TouchNose{}}})
	for _, c := range []struct {
		game string
		acts []*anypb.Any
		want bool
	}{
		{"sabaisabai", []*anypb.Any{throw, call}, true},
		{"sabaisabai", []*anypb.Any{throw}, true},
		{"sabaisabai", []*anypb.Any{draw, throw, call}, false},
		{"sabaisabai", []*anypb.Any{nose, throw}, false},
		{"sabaisabai", nil, false},
		{"sapotagem", []*anypb.Any{throw}, false},
	} {
		if got := optionalOnly(c.game, c.acts); got != c.want {
			t.Errorf("optionalOnly(%s, %d actions) = %v, want %v", c.game, len(c.acts), got, c.want)
		}
	}
}
