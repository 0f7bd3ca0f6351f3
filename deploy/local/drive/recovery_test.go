package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestParseFaults(t *testing.T) {
	in := "# comment\n1700000010.5 1700000010.75 - killed x\n1700000000.000001 1700000000.000001 1700000001.25 restarted redis\n"
	fs, err := parseFaults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[0].name != "restarted redis" || fs[1].name != "killed x" {
		t.Fatalf("got %+v: want both, in time order", fs)
	}
	if got := fs[0].kill.UnixNano(); got != 1700000000000001000 {
		t.Errorf("kill %d: want microseconds kept", got)
	}
	if d := fs[0].up.Sub(fs[0].kill); d != 1249999*time.Microsecond {
		t.Errorf("up after %s", d)
	}
	if !fs[1].up.IsZero() || fs[1].down.Sub(fs[1].kill) != 250*time.Millisecond {
		t.Errorf("got %+v", fs[1])
	}
	for _, bad := range []string{"1 2 3\n", "x 1 - n\n", "- 1 - n\n"} {
		if _, err := parseFaults(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

// run writes the records of a run: times in milliseconds after the epoch.
type records struct{ buf bytes.Buffer }

func (r *records) add(ms int64, rec record) {
	rec.T = ms * 1e6
	if rec.Sent != 0 {
		rec.Sent *= 1e6
	}
	rec2 := newRecorder(&r.buf)
	rec2.add(rec)
	_ = rec2.flush()
}

func ms(v int64) time.Time { return time.Unix(0, v*1e6) }

func TestRecovery(t *testing.T) {
	var r records
	// Table 0 acts every 100 ms; the fault at 1000 ms (gone at 1010) stops it until its Act sent at
	// 2500 is answered at 2520, its event arriving at 2530.
	r.add(1, record{Table: 0, Kind: kindBegin, Game: "g"})
	v := uint64(0)
	for at := int64(100); at < 1000; at += 100 {
		v++
		r.add(at+10, record{Table: 0, Kind: kindCall, Call: "Act", Code: "OK", Sent: at, Version: v})
		r.add(at+15, record{Table: 0, Kind: kindEvent, Seq: v, Version: v})
	}
	// An Act sent before the target was gone, answered after: it does not count.
	r.add(1020, record{Table: 0, Kind: kindCall, Call: "Act", Code: "OK", Sent: 1005, Version: 10})
	r.add(1030, record{Table: 0, Kind: kindEvent, Seq: 10, Version: 10})
	r.add(1500, record{Table: 0, Kind: kindRetry, Call: "Act", Code: "Unavailable"})
	r.add(1600, record{Table: 0, Kind: kindRetry, Call: "Act", Code: "ResourceExhausted"})
	r.add(1700, record{Table: 0, Kind: kindBroken, Code: "Unavailable"})
	r.add(1800, record{Table: 0, Kind: kindResumed, Seq: 10})
	r.add(2520, record{Table: 0, Kind: kindCall, Call: "Act", Code: "OK", Sent: 2500, Version: 11})
	r.add(2530, record{Table: 0, Kind: kindEvent, Seq: 11, Version: 11})
	r.add(2600, record{Table: 0, Kind: kindFinished, ID: "t-0"})
	r.add(2610, record{Table: 0, Kind: kindEnd, ID: "t-0"})
	// Table 1 finishes at 1200 without acting after the fault: served again then.
	r.add(500, record{Table: 1, Kind: kindBegin, Game: "h"})
	r.add(1200, record{Table: 1, Kind: kindFinished, ID: "t-1"})
	// Table 2 had finished before the fault; table 3 began after it; table 4 failed before it.
	r.add(10, record{Table: 2, Kind: kindBegin})
	r.add(900, record{Table: 2, Kind: kindFinished})
	r.add(1100, record{Table: 3, Kind: kindBegin})
	r.add(45, record{Table: 4, Kind: kindBegin})
	r.add(950, record{Table: 4, Kind: kindEnd, Err: "boom"})
	// Table 5 never gets an action through after the fault and fails in its window.
	r.add(50, record{Table: 5, Kind: kindBegin})
	r.add(4000, record{Table: 5, Kind: kindEnd, Err: "act: internal"})

	tables, err := readRecords(&r.buf)
	if err != nil {
		t.Fatal(err)
	}
	f := fault{name: "f", kill: ms(1000), down: ms(1010)}
	for _, c := range []struct {
		table  int
		want   time.Duration
		inPlay bool
	}{
		{0, 1530 * time.Millisecond, true},
		{1, 200 * time.Millisecond, true},
		{2, 0, false},
		{3, 0, false},
		{4, 0, false},
		{5, never, true},
	} {
		got, ok := tables[c.table].recovery(f)
		if ok != c.inPlay || got != c.want {
			t.Errorf("table %d: %s, in play %v; want %s, %v", c.table, got, ok, c.want, c.inPlay)
		}
	}

	// The control, before tables 4 and 5 began: table 0's next action, table 2's end.
	control := fault{name: "control", kill: ms(40), down: ms(40)}
	reps := analyze([]fault{control, f}, tables)
	c, g := reps[0], reps[1]
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if c.Tables != 2 || !near(c.Worst, 0.86) || !near(c.Median, (0.075+0.86)/2) || c.Retried != 0 || c.Failed != 1 {
		t.Errorf("control: %+v", c)
	}
	if g.Tables != 3 || !near(g.Median, 1.53) || g.Worst != -1 || g.Failed != 1 || g.Retried != 1 || g.Throttled != 1 ||
		g.Broken != 1 || g.Resumed != 1 || !near(g.SWorst, 1.53) || !strings.HasPrefix(g.Slowest, "#5 ") {
		t.Errorf("fault: %+v", g)
	}
	var out bytes.Buffer
	bad := printReports(&out, reps[1:], 5*time.Second)
	if len(bad) != 2 || !strings.Contains(bad[0], "1 tables failed") || !strings.Contains(bad[1], "never") {
		t.Errorf("breaches %q\n%s", bad, out.String())
	}
	// Table 4 failed in the control's window (after it, though not in play at it).
	if bad := printReports(&out, reps[:1], time.Second); len(bad) != 1 {
		t.Errorf("control, limit 1s: breaches %q", bad)
	}
	if bad := printReports(&out, reps[:1], 500*time.Millisecond); len(bad) != 2 {
		t.Errorf("control, limit 0.5s: breaches %q", bad)
	}
}

func TestHealedFaultMeasuredFromItsEnd(t *testing.T) {
	fs, err := parseFaults(strings.NewReader("1000.0 1000.0 1010.0 @heal cut gateway-1 from NATS for 10 s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || !fs[0].heal || fs[0].name != "cut gateway-1 from NATS for 10 s" {
		t.Fatalf("got %+v", fs)
	}
	if _, err := parseFaults(strings.NewReader("1000.0 1000.0 - @heal cut\n")); err == nil {
		t.Error("@heal without an end: want an error")
	}
	ms := func(v int64) time.Time { return time.UnixMilli(v) }
	f := fault{name: "cut", kill: ms(1000), down: ms(1000), up: ms(11000), heal: true}
	// Acted during the cut, answered after the heal; its event 0.4 s after the heal.
	tl := &tableLog{begin: ms(0), acts: []act{{sent: ms(5000), answered: ms(11200), version: 7}},
		events: []stamped{{ms(11400), 7}}}
	if d, ok := tl.recovery(f); !ok || d != 400*time.Millisecond {
		t.Errorf("recovery %s, %v: want 0.4 s after the heal", d, ok)
	}
	// Served again during the cut (not touched by it): 0.
	tl = &tableLog{begin: ms(0), acts: []act{{sent: ms(2000), answered: ms(2100), version: 3}},
		events: []stamped{{ms(2200), 3}}}
	if d, ok := tl.recovery(f); !ok || d != 0 {
		t.Errorf("recovery %s, %v: want 0", d, ok)
	}
}

// TestCutMeasuredFromItsStart: a cut's report gives, besides the recoveries from the heal, those
// from its start (how long its tables waited) and how many tables waited through it; and every
// fault counts the Acts in flight at its injection.
func TestCutMeasuredFromItsStart(t *testing.T) {
	var r records
	// Table 0: an Act sent at 900 is answered at 11,200 (held by the cut from 1,000 to 11,000), its
	// event at 11,400: it waited through the cut.
	r.add(1, record{Table: 0, Kind: kindBegin, Game: "g"})
	r.add(11200, record{Table: 0, Kind: kindCall, Call: "Act", Code: "OK", Sent: 900, Version: 1})
	r.add(11300, record{Table: 0, Kind: kindCall, Call: "Act", Code: "OK", Sent: 11250, Version: 2})
	r.add(11400, record{Table: 0, Kind: kindEvent, Seq: 2, Version: 2})
	// Table 1, not touched by the cut: served again 0.3 s into it. Its Act refused at 1,100 was in
	// flight at the cut's start as well.
	r.add(2, record{Table: 1, Kind: kindBegin, Game: "h"})
	r.add(1100, record{Table: 1, Kind: kindCall, Call: "Act", Code: "Aborted", Sent: 950})
	r.add(1250, record{Table: 1, Kind: kindCall, Call: "Act", Code: "OK", Sent: 1200, Version: 5})
	r.add(1300, record{Table: 1, Kind: kindEvent, Seq: 5, Version: 5})
	tables, err := readRecords(&r.buf)
	if err != nil {
		t.Fatal(err)
	}
	cut := fault{name: "cut", kill: ms(1000), down: ms(1000), up: ms(11000), heal: true}
	reps := analyze([]fault{cut}, tables)
	g := reps[0]
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if g.Tables != 2 || !near(g.Worst, 0.4) || !near(g.StartWorst, 10.4) || !near(g.StartMedian, (0.3+10.4)/2) ||
		g.Waited != 1 || g.InFlight != 2 {
		t.Errorf("cut: %+v; want worst 0.4 s from the heal, 10.4 s from the start, 1 table waiting through it, 2 Acts in flight", g)
	}
	var out bytes.Buffer
	if bad := printReports(&out, reps, 5*time.Second); len(bad) != 0 {
		t.Errorf("breaches %q: the limit applies from the heal", bad)
	}
	if !strings.Contains(out.String(), "10.40 s") {
		t.Errorf("report without the wait from the cut's start:\n%s", out.String())
	}
	// A fault that does not last: no figures from its start.
	reps = analyze([]fault{{name: "kill", kill: ms(1000), down: ms(1000)}}, tables)
	if reps[0].StartWorst != 0 || reps[0].Waited != 0 || reps[0].InFlight != 2 {
		t.Errorf("kill: %+v", reps[0])
	}
}
