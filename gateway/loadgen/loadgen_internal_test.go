package loadgen

import (
	"bytes"
	"strings"
	"testing"
	"time"

	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
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
	enc := func(a proto.Message) []byte {
		b, err := proto.Marshal(anyOf(t, a))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	throw := enc(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Throw{Throw: &sabaisabaiv1.Throw{}}})
	call := enc(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_CallSabaiSabai{CallSabaiSabai: &sabaisabaiv1.CallSabaiSabai{}}})
	draw := enc(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Draw{Draw: &sabaisabaiv1.Draw{}}})
	nose := enc(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_TouchNose{TouchNose: &sabaisabaiv1.TouchNose{}}})
	none := enc(&sabaisabaiv1.Action{})
	other := enc(&sapotagemv1.Action{Kind: &sapotagemv1.Action_Play{Play: &sapotagemv1.PlayCard{}}})
	// A call given after a throw on the wire: the last member of the oneof wins.
	throwThenCall := enc(&sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Draw{Draw: &sabaisabaiv1.Draw{}}})
	{
		var a anypb.Any
		if err := proto.Unmarshal(throwThenCall, &a); err != nil {
			t.Fatal(err)
		}
		a.Value = protowire.AppendBytes(protowire.AppendTag(a.Value, sabaiThrow, protowire.BytesType), nil)
		b, err := proto.Marshal(&a)
		if err != nil {
			t.Fatal(err)
		}
		throwThenCall = b
	}
	malformed := append(bytes.Clone(throw[:len(throw)-1]), 0xff)
	for _, c := range []struct {
		game string
		acts [][]byte
		want bool
	}{
		{"sabaisabai", [][]byte{throw, call}, true},
		{"sabaisabai", [][]byte{throw}, true},
		{"sabaisabai", [][]byte{throwThenCall}, true},
		{"sabaisabai", [][]byte{draw, throw, call}, false},
		{"sabaisabai", [][]byte{nose, throw}, false},
		{"sabaisabai", [][]byte{none}, false},
		{"sabaisabai", [][]byte{other}, false},
		{"sabaisabai", [][]byte{throw, malformed}, false},
		{"sabaisabai", nil, false},
		{"sapotagem", [][]byte{throw}, false},
	} {
		if got := optionalOnly(c.game, c.acts); got != c.want {
			t.Errorf("optionalOnly(%s, %d actions) = %v, want %v", c.game, len(c.acts), got, c.want)
		}
		// As the generated code reads them.
		if c.game == "sabaisabai" && len(c.acts) > 0 {
			want := true
			for _, raw := range c.acts {
				var x anypb.Any
				var a sabaisabaiv1.Action
				if proto.Unmarshal(raw, &x) != nil || x.UnmarshalTo(&a) != nil {
					want = false
					break
				}
				switch a.GetKind().(type) {
				case *sabaisabaiv1.Action_Throw, *sabaisabaiv1.Action_CallSabaiSabai:
				default:
					want = false
				}
			}
			if want != c.want {
				t.Errorf("case %d actions: the generated code says %v", len(c.acts), want)
			}
		}
	}
}

// TestPollFor: flat out and at busy paces a seat polls every 30 s; at an idle pace (1 action/s
// across 500 tables, each table acting every 500 s) no seat polls before its turn can come.
func TestPollFor(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want time.Duration
	}{
		{Options{Tables: 500}, poll},
		{Options{Tables: 500, Rate: 500}, poll},
		{Options{Tables: 500, Rate: 100}, 40 * time.Second},
		{Options{Tables: 500, Rate: 1}, 4000 * time.Second},
	} {
		if got := pollFor(c.o); got != c.want {
			t.Errorf("pollFor(%d tables, %g/s) = %v, want %v", c.o.Tables, c.o.Rate, got, c.want)
		}
	}
}
