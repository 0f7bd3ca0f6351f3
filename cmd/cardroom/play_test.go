package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cardroom.dev/cmd/cardroom/internal/play"
	"cardroom.dev/services/kit/testenv"
	tea "charm.land/bubbletea/v2"
)

// startServe runs `cardroom serve` (embedded NATS, memory store) for the test; its front address.
func startServe(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan map[string]string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "error"},
			func(string) string { return "" }, io.Discard, io.Discard, ready)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case addrs := <-ready:
		return addrs["front"]
	case code := <-done:
		t.Fatalf("serve exited with %d", code)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	return ""
}

// terminal is a person at `cardroom play`: it types keys into the client's input and reads what
// the screen shows (the client's snapshots, taken after every change).
type terminal struct {
	t    *testing.T
	keys *io.PipeWriter
	mu   sync.Mutex
	last play.Snapshot
	all  []play.Snapshot // every snapshot with moves or results, for the checks after the game
	// statuses are the status lines shown, in order: a status may be replaced before until looks.
	statuses []string
	woken    chan struct{}
	done     chan int
	out      *bytes.Buffer
}

// run starts the client with args (and the config directory dir) against addr.
func runClient(t *testing.T, addr, dir string, args ...string) *terminal {
	t.Helper()
	pr, pw := io.Pipe()
	term := &terminal{t: t, keys: pw, woken: make(chan struct{}, 1), done: make(chan int, 1), out: &bytes.Buffer{}}
	o, err := play.ParseArgs(append(args, "--addr", addr, "--config", dir), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o.Input, o.Output = pr, term.out
	o.Program = []tea.ProgramOption{tea.WithWindowSize(120, 60), tea.WithoutSignals(), tea.WithoutSignalHandler()}
	o.Observe = term.observe
	go func() {
		term.done <- play.Run(t.Context(), o)
		_ = pr.Close()
	}()
	return term
}

func (c *terminal) observe(s play.Snapshot) {
	c.mu.Lock()
	c.last = s
	if s.Moves != nil || s.Results != nil {
		c.all = append(c.all, s)
	}
	if n := len(c.statuses); n == 0 || c.statuses[n-1] != s.Status {
		c.statuses = append(c.statuses, s.Status)
	}
	c.mu.Unlock()
	select {
	case c.woken <- struct{}{}:
	default:
	}
}

func (c *terminal) screen() play.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// until waits for a screen that satisfies ok.
func (c *terminal) until(what string, ok func(play.Snapshot) bool) play.Snapshot {
	c.t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		if s := c.screen(); ok(s) {
			return s
		}
		select {
		case <-c.woken:
		case code := <-c.done:
			c.done <- code
			if s := c.screen(); ok(s) {
				return s
			}
			c.t.Fatalf("the client ended (exit %d) before %s; last screen:\n%s\noutput tail: %q", code, what, c.screen().Screen, tail(c.out.String()))
		case <-deadline:
			s := c.screen()
			c.t.Fatalf("no %s; status %q, acting %v, list version %d; last screen:\n%s", what, s.Status, s.Acting, s.Version, s.Screen)
		}
	}
}

// shown is how many status lines were shown so far (a mark for said).
func (c *terminal) shown() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.statuses)
}

// said reports whether a status line shown since mark contains words, however briefly it stayed.
func (c *terminal) said(mark int, words string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.statuses[min(mark, len(c.statuses)):], func(s string) bool { return strings.Contains(s, words) })
}

func tail(s string) string { return s[max(len(s)-300, 0):] }

func (c *terminal) press(keys string) {
	c.t.Helper()
	if _, err := io.WriteString(c.keys, keys); err != nil {
		c.t.Fatalf("typing %q: %v", keys, err)
	}
}

// exit waits for the client to end; its exit code.
func (c *terminal) exit() int {
	c.t.Helper()
	select {
	case code := <-c.done:
		return code
	case <-time.After(30 * time.Second):
		c.t.Fatalf("the client did not end; last screen:\n%s", c.screen().Screen)
	}
	return -1
}

// playMoves plays until stop says so: whenever a new list (or a new step of one) is shown, it takes
// the entry under the cursor with enter, or types a number; when the list is still there after its
// move was answered (refused: the connection was lost, the player went too fast), it chooses again,
// as a person would. Returns the number of keys that chose.
func (c *terminal) playMoves(stop func(play.Snapshot) bool) int {
	c.t.Helper()
	type shown struct {
		version  uint64
		group    string
		moves    int
		answered int
	}
	var last shown
	n := 0
	c.until("the end of the moves", func(s play.Snapshot) bool {
		if stop(s) {
			return true
		}
		if s.Moves == nil || s.Acting {
			return false
		}
		now := shown{s.Version, s.Group, len(s.Moves), s.Answered}
		if now == last {
			return false
		}
		last = now
		if n%3 == 1 && len(s.Moves) >= 2 && len(s.Moves) <= 9 {
			c.press("2")
		} else {
			c.press("\r")
		}
		n++
		return false
	})
	return n
}

func finished(s play.Snapshot) bool { return s.Stage == "finished" }

// TestPlayToTheEnd: a person opens a private Sponsio table, adds two bots with "b", starts it with
// "s" and plays to the end by keys, through a connection that is lost once on the way (the client
// reconnects and plays on). The betting turns are chosen in steps (a card to open first, then what
// to do with it); the result screen names every seat, the player's marked "you".
func TestPlayToTheEnd(t *testing.T) {
	p := testenv.NewProxy(t, startServe(t))
	addr := p.Addr()
	c := runClient(t, addr, t.TempDir(), "sponsio", "--create", "--seats", "3", "--name", "Ann")
	c.until("the lobby", func(s play.Snapshot) bool { return s.Stage == "lobby" && strings.Contains(s.Screen, "invite code") })
	mark := c.shown()
	c.press("b")
	c.until("a bot", func(play.Snapshot) bool { return c.said(mark, "2 of 3") })
	c.press("b")
	c.until("a second bot", func(play.Snapshot) bool { return c.said(mark, "3 of 3") })
	c.press("s")
	keys := c.playMoves(func(s play.Snapshot) bool { return s.Version > 20 && !s.Acting })
	mark = c.shown()
	p.Cut()
	c.until("the lost connection", func(play.Snapshot) bool { return c.said(mark, "connection lost") })
	keys += c.playMoves(finished)
	end := c.until("the result screen", func(s play.Snapshot) bool { return finished(s) && s.Results != nil })
	if len(end.Results) != 4 || !slices.ContainsFunc(end.Results, func(l string) bool { return strings.Contains(l, "Ann (you)") }) {
		t.Fatalf("results %q", end.Results)
	}
	if !strings.Contains(end.Screen, "game over") {
		t.Fatalf("the result screen:\n%s", end.Screen)
	}
	c.press("q")
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d: %s", code, tail(c.out.String()))
	}
	if !strings.Contains(c.out.String(), "game over at table") {
		t.Fatalf("the client's last words: %q", tail(c.out.String()))
	}
	// The betting turns came in steps: the first step's list has a card to open with its "…", and a
	// step chose among one card's moves.
	var stepped, opened bool
	for _, s := range c.all {
		stepped = stepped || strings.HasPrefix(s.Group, "open ")
		opened = opened || slices.ContainsFunc(s.Moves, func(m string) bool { return strings.HasPrefix(m, "open ") && strings.HasSuffix(m, "…") })
		if len(s.Moves) > 40 {
			t.Fatalf("a list of %d moves at one step:\n%s", len(s.Moves), s.Screen)
		}
		for _, m := range s.Moves {
			if strings.Contains(m, ":{") || strings.Contains(m, "COLOUR_") {
				t.Fatalf("a move not in words: %q", m)
			}
		}
	}
	// What happened, in words, the player's seat as "you" and the others by name.
	var you, named bool
	for _, l := range end.Log {
		if strings.Contains(l, ":{") || strings.Contains(l, "{seat:") {
			t.Fatalf("an event not in words: %q", l)
		}
		you = you || strings.Contains(l, "(you)")
		named = named || strings.Contains(l, "(Bot ")
	}
	if !you || !named {
		t.Fatalf("the log names no seat (you %v, a bot by name %v):\n%s", you, named, strings.Join(end.Log, "\n"))
	}
	if !stepped || !opened {
		t.Fatalf("no move chosen in steps (stepped %v, offered %v)", stepped, opened)
	}
	t.Logf("%d keys chose moves; %d screens with moves", keys, len(c.all))
}

// TestResume: a person queues for Saboteur (bots fill the table), plays a few moves and leaves with
// q; run again, the client signs in as the same player with the credential it kept and returns to
// the same seat of the same table, whose board it draws with its coordinates, and plays on to the end.
func TestResume(t *testing.T) {
	addr := startServe(t)
	dir := t.TempDir()
	c := runClient(t, addr, dir, "saboteur", "--seats", "3", "--wait", "100ms", "--name", "Ann")
	first := c.until("the first moves", func(s play.Snapshot) bool { return s.Moves != nil && s.Seat >= 0 })
	c.playMoves(func(s play.Snapshot) bool { return !s.Acting && s.Version > first.Version+3 })
	before := c.screen()
	c.press("q")
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d after q: %s", code, tail(c.out.String()))
	}
	if !strings.Contains(c.out.String(), "your seat is kept") {
		t.Fatalf("the client's last words: %q", tail(c.out.String()))
	}

	again := runClient(t, addr, dir, "saboteur", "--name", "Ann")
	back := again.until("the table again", func(s play.Snapshot) bool { return s.Stage == "playing" && s.Seat >= 0 })
	if back.Player != before.Player || back.Table != before.Table || back.Seat != before.Seat {
		t.Fatalf("back as player %s at table %s seat %d, was %s at %s seat %d", back.Player, back.Table, back.Seat,
			before.Player, before.Table, before.Seat)
	}
	// The board, with its coordinates: x along the top, y down the left.
	board := again.until("the board", func(s play.Snapshot) bool { return strings.Contains(s.Screen, "  x\n") })
	if !strings.Contains(board.Screen, "  0 ") || !strings.Contains(board.Screen, "  y\n") {
		t.Fatalf("no coordinates on the board:\n%s", board.Screen)
	}
	again.playMoves(finished)
	end := again.until("the result screen", func(s play.Snapshot) bool { return finished(s) && s.Results != nil })
	if !slices.ContainsFunc(end.Results, func(l string) bool { return strings.Contains(l, "Ann (you)") }) {
		t.Fatalf("results %q", end.Results)
	}
	again.press("q")
	if code := again.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The table is over: a third run queues again.
	third := runClient(t, addr, dir, "saboteur", "--seats", "3", "--wait", "100ms", "--name", "Ann")
	s := third.until("a new table", func(s play.Snapshot) bool { return s.Stage == "playing" && s.Table != "" })
	if s.Table == before.Table || s.Player != before.Player {
		t.Fatalf("third run: player %s table %s (was %s at %s)", s.Player, s.Table, before.Player, before.Table)
	}
	third.press("q")
	third.exit()
}

// TestPlayArgs: a game the client does not know, or none, is refused before any call to a cardroom
// (the address here serves nothing).
func TestPlayArgs(t *testing.T) {
	for _, args := range [][]string{{"play"}, {"play", "chess"}, {"play", "--create"}, {"play", "sponsio", "--create", "--join", "ABC"}} {
		var out bytes.Buffer
		if code := run(t.Context(), append(args, "--addr", "127.0.0.1:1"), &out, &out); code != 2 {
			t.Errorf("%q: exit %d, want 2:\n%s", args, code, out.String())
		}
		if !strings.Contains(out.String(), "usage: cardroom play") || strings.Contains(out.String(), "signed in") {
			t.Errorf("%q printed %q", args, out.String())
		}
	}
	var out bytes.Buffer
	run(t.Context(), []string{"play", "chess"}, &out, &out)
	if !strings.Contains(out.String(), `unknown game "chess": this client plays sabaisabai, saboteur, sapotagem, sponsio`) {
		t.Errorf("an unknown game: %q", out.String())
	}
}

// TestJoinByCode: a second person takes the place at a private table by its invite code alone (the
// game is the table's); once its owner starts it, both see it from their own seats.
func TestJoinByCode(t *testing.T) {
	addr := startServe(t)
	ann := runClient(t, addr, t.TempDir(), "saboteur", "--create", "--seats", "2", "--name", "Ann")
	lobby := ann.until("the lobby", func(s play.Snapshot) bool { return s.Stage == "lobby" && strings.Contains(s.Screen, "--join ") })
	code := strings.Fields(lobby.Screen[strings.Index(lobby.Screen, "--join ")+len("--join "):])[0]
	bea := runClient(t, addr, t.TempDir(), "--join", code, "--name", "Bea")
	bea.until("the place taken", func(s play.Snapshot) bool { return strings.Contains(s.Status, "waiting for its owner") })
	ann.press("s")
	a := ann.until("Ann's table", func(s play.Snapshot) bool { return s.Stage == "playing" && s.Seat >= 0 })
	b := bea.until("Bea's table", func(s play.Snapshot) bool {
		return s.Stage == "playing" && s.Seat >= 0 && strings.Contains(s.Screen, "cardroom · Saboteur 2")
	})
	if a.Table != b.Table || a.Seat == b.Seat || !strings.Contains(b.Screen, "Ann") || !strings.Contains(b.Screen, "Bea (you)") {
		t.Fatalf("Ann at %s seat %d, Bea at %s seat %d; Bea's screen:\n%s", a.Table, a.Seat, b.Table, b.Seat, b.Screen)
	}
	ann.press("q")
	bea.press("q")
	if ann.exit() != 0 || bea.exit() != 0 {
		t.Fatal("a client did not leave cleanly")
	}
}
