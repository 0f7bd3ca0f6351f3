package export

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestRun exports from a real stream (an embedded NATS server): runs continue one another, a new
// export starts at a time or a sequence, a start given to an existing export is refused, and
// messages gone from the stream stop a run unless SkipLost.
func TestRun(t *testing.T) {
	ctx := t.Context()
	quiet := slog.New(slog.DiscardHandler)
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	b, err := bus.Connect(ctx, ns.URL(), "export-test", bus.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	msgs := stream(t, 6, 30)
	publish := func(ms []Message) {
		t.Helper()
		out := make([]bus.Message, len(ms))
		for i, m := range ms {
			out[i] = bus.Message{Subject: m.Subject, Data: m.Data}
		}
		if err := b.Publish(ctx, out); err != nil {
			t.Fatal(err)
		}
	}
	run := func(opt Options) (Summary, error) {
		t.Helper()
		opt.Logger = quiet
		return Run(ctx, b, opt)
	}
	want := func(s Summary, err error, from, messages, lost uint64) {
		t.Helper()
		if err != nil || s.From != from || s.Messages != messages || s.Lost != lost || (messages > 0 && s.Next != from+messages) {
			t.Fatalf("run: %+v, %v; want from %d, %d messages, %d lost", s, err, from, messages, lost)
		}
	}
	all, lost, since, seq := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	n := uint64(len(msgs))

	publish(msgs[:100])
	s, err := run(Options{Dir: all, Batch: 30})
	want(s, err, 1, 100, 0)
	s, err = run(Options{Dir: lost})
	want(s, err, 1, 100, 0)
	t0 := time.Now()
	publish(msgs[100:])

	s, err = run(Options{Dir: all, Batch: 30})
	want(s, err, 101, n-100, 0)
	s, err = run(Options{Dir: all})
	want(s, err, n+1, 0, 0)
	checkOnce(t, all, msgs, 6)
	if _, err := run(Options{Dir: all, From: 5}); !errors.Is(err, ErrResume) {
		t.Errorf("a start for an existing export: %v", err)
	}

	s, err = run(Options{Dir: since, Since: t0})
	want(s, err, 101, n-100, 0)
	s, err = run(Options{Dir: seq, From: 150})
	want(s, err, 150, n-149, 0)

	// Messages 1..149 gone from the stream: the export at 101 has lost 101..149.
	nc, err := nats.Connect(ns.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, b.Stream())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Purge(ctx, jetstream.WithPurgeSequence(150)); err != nil {
		t.Fatal(err)
	}
	if _, err := run(Options{Dir: lost}); !errors.Is(err, ErrLost) {
		t.Fatalf("messages lost: %v", err)
	}
	s, err = run(Options{Dir: lost, SkipLost: true})
	want(s, err, 150, n-149, 49)
	if st := mustOpen(t, lost).State(); st.Next != n+1 || st.Messages != 100+n-149 {
		t.Errorf("state %+v", st)
	}
}

func mustOpen(t *testing.T, dir string) *Writer {
	t.Helper()
	w, _, err := Open(dir, "CARDROOM")
	if err != nil {
		t.Fatal(err)
	}
	return w
}
