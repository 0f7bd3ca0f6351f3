package play

import "testing"

func TestPaint(t *testing.T) {
	got := paint(`card { colour: COLOUR_RED rank: 7 } other: COLOUR_UNSPECIFIED`)
	want := "card { colour: \x1b[31mred\x1b[0m rank: 7 } other: COLOUR_UNSPECIFIED"
	if got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
