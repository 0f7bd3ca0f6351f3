package engine

import "testing"

func TestRenderLabel(t *testing.T) {
	names := func(seat int) (string, bool) {
		switch seat {
		case 0:
			return "Ann", false
		case 2:
			return "Bo", true
		}
		return "", false
	}
	for _, c := range []struct{ in, want string }{
		{"play yellow 1 (Ducks)", "play yellow 1 (Ducks)"},
		{SeatRef(0) + " jumps", "seat 0 (Ann) jumps"},
		{SeatRef(2) + " gives " + SeatRef(1) + " a card", "seat 2 (you) gives seat 1 a card"},
		{"odd {seat:x} and {seat:3", "odd {seat:x} and {seat:3"},
		{"{seat:-1} {seat:0}", "{seat:-1} seat 0 (Ann)"},
	} {
		if got := RenderLabel(c.in, names); got != c.want {
			t.Errorf("RenderLabel(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := RenderLabel(SeatRef(4)+" wins", nil); got != "seat 4 wins" {
		t.Errorf("without names: %q", got)
	}
}

func TestAppendSeatRef(t *testing.T) {
	for _, seat := range []int{0, 3, 12} {
		if got, want := string(AppendSeatRef([]byte("x"), seat)), "x"+SeatRef(seat); got != want {
			t.Errorf("AppendSeatRef(%d) = %q, want %q", seat, got, want)
		}
	}
}
