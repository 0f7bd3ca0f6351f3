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
		{SeatRef(0) + " jumps", "seat 1 (Ann) jumps"},
		{SeatRef(2) + " gives " + SeatRef(1) + " a card", "seat 3 (you) gives seat 2 a card"},
		{"odd {seat:x} and {seat:3", "odd {seat:x} and {seat:3"},
		{"{seat:-1} {seat:0}", "{seat:-1} seat 1 (Ann)"},
		{"{seat:+1}, {seat:}, {seat:1x}, {seat:99999999999999999999}", "seat 2, {seat:}, {seat:1x}, {seat:99999999999999999999}"},
		{"{seat:1234567890} ends", "seat 1234567891 ends"},
	} {
		if got := RenderLabel(c.in, names); got != c.want {
			t.Errorf("RenderLabel(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := RenderLabel(SeatRef(4)+" wins", nil); got != "seat 5 wins" {
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

// AppendLabel renders as RenderLabel does, into the caller's buffer without allocating.
func TestAppendLabel(t *testing.T) {
	names := func(seat int) (string, bool) { return "Ann", seat == 1 }
	label := SeatRef(0) + " gives " + SeatRef(1) + " a card, {seat:x}"
	buf := make([]byte, 0, 128)
	allocs := testing.AllocsPerRun(100, func() { buf = AppendLabel(buf[:0], label, names) })
	if got, want := string(buf), RenderLabel(label, names); got != want || want != "seat 1 (Ann) gives seat 2 (you) a card, {seat:x}" {
		t.Fatalf("AppendLabel: %q, RenderLabel: %q", got, want)
	}
	if allocs != 0 {
		t.Fatalf("AppendLabel allocates %v times", allocs)
	}
	if got := string(AppendLabel([]byte("> "), "plain", nil)); got != "> plain" {
		t.Fatalf("appended to a prefix: %q", got)
	}
}
