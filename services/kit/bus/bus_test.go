package bus_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/testenv"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// servers runs fn against an in-process NATS (default prefix) and against the machine's NATS,
// under a prefix of the test's own that it removes afterwards.
func servers(t *testing.T, fn func(t *testing.T, url string, b *bus.Bus)) {
	t.Run("embedded", func(t *testing.T) {
		ns, err := natsembed.Start(0, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ns.Shutdown)
		fn(t, ns.URL(), connect(t, ns.URL(), ""))
	})
	t.Run("external", func(t *testing.T) {
		url := testenv.ExternalNATS(t)
		fn(t, url, connect(t, url, testPrefix()))
	})
}

// connect connects under prefix; a bus with a prefix of its own has its stream deleted at the end.
func connect(t *testing.T, url, prefix string) *bus.Bus {
	b, err := bus.Connect(t.Context(), url, "bus-test", bus.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if prefix != "" {
		t.Cleanup(func() {
			if err := b.DeleteStream(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	return b
}

func testPrefix() string {
	x := make([]byte, 6)
	_, _ = rand.Read(x)
	return "test-" + hex.EncodeToString(x)
}

func uniqueTable() string {
	x := make([]byte, 6)
	_, _ = rand.Read(x)
	return "test-" + hex.EncodeToString(x)
}

func receive(t *testing.T, ch <-chan testenv.Delivery, n int) []testenv.Delivery {
	t.Helper()
	var out []testenv.Delivery
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case d := <-ch:
			out = append(out, d)
		case <-timeout:
			t.Fatalf("received %d messages, want %d", len(out), n)
		}
	}
	return out
}

func TestPublishSubscribeResume(t *testing.T) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	servers(t, func(t *testing.T, url string, b *bus.Bus) {
		table := uniqueTable()
		sj := b.Subjects()
		var msgs []bus.Message
		for i := range 10 {
			msgs = append(msgs, bus.Message{Subject: sj.Public(table), ID: fmt.Sprint(table, ":", i+1), Data: []byte{byte(i)}})
		}
		sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5}, TraceFlags: trace.FlagsSampled})
		ctx := trace.ContextWithSpanContext(t.Context(), sc)
		if err := b.Publish(ctx, msgs); err != nil {
			t.Fatal(err)
		}
		// Published again (a retry after an unconfirmed publish): de-duplicated by id.
		if err := b.Publish(ctx, msgs); err != nil {
			t.Fatal(err)
		}
		ch := make(chan testenv.Delivery, 100)
		stop, err := testenv.Subscribe(t.Context(), url, b.Stream(), []string{sj.Public(table)}, 0, func(d testenv.Delivery) { ch <- d })
		if err != nil {
			t.Fatal(err)
		}
		got := receive(t, ch, 10)
		stop()
		for i, d := range got {
			if d.Data[0] != byte(i) || d.Subject != msgs[i].Subject {
				t.Fatalf("message %d: %v on %s", i, d.Data, d.Subject)
			}
			if trace.SpanContextFromContext(d.Context).TraceID() != sc.TraceID() {
				t.Fatalf("message %d lost its trace context", i)
			}
		}
		select {
		case d := <-ch:
			t.Fatalf("a duplicate was delivered: %v", d.Data)
		default:
		}
		// Resume from the sixth message's stream sequence: exactly the tail.
		ch2 := make(chan testenv.Delivery, 100)
		stop2, err := testenv.Subscribe(t.Context(), url, b.Stream(), []string{sj.Public(table)}, got[5].StreamSeq, func(d testenv.Delivery) { ch2 <- d })
		if err != nil {
			t.Fatal(err)
		}
		defer stop2()
		tail := receive(t, ch2, 5)
		if tail[0].Data[0] != 5 || tail[4].Data[0] != 9 {
			t.Fatalf("resumed at %v .. %v", tail[0].Data, tail[4].Data)
		}
		// Only another table's subject: nothing of this one.
		ch3 := make(chan testenv.Delivery, 100)
		other := uniqueTable()
		stop3, err := testenv.Subscribe(context.Background(), url, b.Stream(), []string{sj.Public(other)}, 0, func(d testenv.Delivery) { ch3 <- d })
		if err != nil {
			t.Fatal(err)
		}
		defer stop3()
		if err := b.Publish(ctx, []bus.Message{{Subject: sj.Public(other), ID: other + ":1", Data: []byte{42}}}); err != nil {
			t.Fatal(err)
		}
		if d := receive(t, ch3, 1); d[0].Data[0] != 42 {
			t.Fatalf("the other table's subscription received %v", d[0].Data)
		}
		if last, err := b.LastSequence(t.Context()); err != nil || last < got[9].StreamSeq {
			t.Fatalf("last sequence %d (%v)", last, err)
		}
	})
}

func TestLiveTableOf(t *testing.T) {
	var sj bus.Subjects
	for subject, want := range map[string]string{
		sj.Live("t-1"):             "t-1",
		sj.Public("t-2"):           "",
		sj.Ticket("t-2"):           "",
		"cardroom.live.":           "",
		"cardroom.live.t-3.public": "",
		"other.live.t-4":           "",
	} {
		got, ok := sj.LiveTableOf(subject)
		if got != want || ok != (want != "") {
			t.Errorf("LiveTableOf(%q) = %q, %v; want %q", subject, got, ok, want)
		}
	}
}

// Live updates reach the feeds watching their table, with the publisher's trace context, but are
// not kept by the stream.
func TestLiveNotKept(t *testing.T) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	b := connect(t, ns.URL(), "")
	sj := b.Subjects()
	before, err := b.LastSequence(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan bus.Update, 1)
	feed := b.NewFeed(1)
	go feed.Run(t.Context(), func(u bus.Update) { msgs <- u })
	w, err := feed.Watch("t-9")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9, 8, 7}, SpanID: trace.SpanID{6}, TraceFlags: trace.FlagsSampled})
	if err := b.PublishLive(trace.ContextWithSpanContext(t.Context(), sc), sj.Live("t-9"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if m := <-msgs; m.Table != "t-9" || string(m.Data) != "x" || trace.SpanContextFromContext(m.Context).TraceID() != sc.TraceID() {
		t.Fatalf("received %s %q in trace %v", m.Table, m.Data, trace.SpanContextFromContext(m.Context).TraceID())
	}
	if err := b.Publish(t.Context(), []bus.Message{{Subject: sj.Public("t-9"), Data: []byte("y")}}); err != nil {
		t.Fatal(err)
	}
	if after, err := b.LastSequence(t.Context()); err != nil || after != before+1 {
		t.Fatalf("the stream went from %d to %d (%v); want one message more", before, after, err)
	}
}

// TestSubjects: the default prefix keeps the historical names; every subject, the stream and the
// gateway notifications derive from the prefix; prefixes that would collide are refused.
func TestSubjects(t *testing.T) {
	var def bus.Subjects
	if got, _ := bus.NewSubjects("cardroom"); got != def {
		t.Errorf("NewSubjects(cardroom) = %+v, want the zero value", got)
	}
	for got, want := range map[string]string{
		def.Stream():         "CARDROOM",
		def.Public("t"):      "cardroom.table.t.public",
		def.AllPublic():      "cardroom.table.*.public",
		def.Live("t"):        "cardroom.live.t",
		def.Ticket("k"):      "cardroomgw.ticket.k",
		def.TableNotice("t"): "cardroomgw.table.t",
	} {
		if got != want {
			t.Errorf("default subject %q, want %q", got, want)
		}
	}
	sj, err := bus.NewSubjects("blue-2")
	if err != nil {
		t.Fatal(err)
	}
	for got, want := range map[string]string{
		sj.Stream():         "BLUE-2",
		sj.Public("t"):      "blue-2.table.t.public",
		sj.AllPublic():      "blue-2.table.*.public",
		sj.Live("t"):        "blue-2.live.t",
		sj.Ticket("k"):      "blue-2gw.ticket.k",
		sj.TableNotice("t"): "blue-2gw.table.t",
	} {
		if got != want {
			t.Errorf("subject %q, want %q", got, want)
		}
	}
	if table, ok := sj.LiveTableOf("blue-2.live.t-1"); !ok || table != "t-1" {
		t.Errorf("LiveTableOf: %q %v", table, ok)
	}
	if _, ok := sj.LiveTableOf(def.Live("t-1")); ok {
		t.Error("a live update of another prefix was taken for one of blue-2")
	}
	for _, bad := range []string{"Blue", "a.b", "a*", "a>", "a b", "-a", "cardroomgw", "xgw", "", strings.Repeat("a", 65)} {
		if _, err := bus.NewSubjects(bad); err == nil && bad != "" {
			t.Errorf("prefix %q accepted", bad)
		}
	}
}

// TestPrefixesIsolated: two buses with different prefixes on one NATS server have their own
// streams and see none of each other's events or live updates.
func TestPrefixesIsolated(t *testing.T) {
	servers2 := map[string]func(t *testing.T) string{
		"embedded": func(t *testing.T) string {
			ns, err := natsembed.Start(0, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(ns.Shutdown)
			return ns.URL()
		},
		"external": func(t *testing.T) string { return testenv.ExternalNATS(t) },
	}
	for name, server := range servers2 {
		t.Run(name, func(t *testing.T) {
			url := server(t)
			a, b := connect(t, url, testPrefix()), connect(t, url, testPrefix())
			if a.Stream() == b.Stream() {
				t.Fatalf("both buses use stream %s", a.Stream())
			}
			table := uniqueTable()
			lives := map[*bus.Bus]chan bus.Update{}
			for _, x := range []*bus.Bus{a, b} {
				ch := make(chan bus.Update, 10)
				feed := x.NewFeed(10)
				go feed.Run(t.Context(), func(u bus.Update) { ch <- u })
				w, err := feed.Watch(table)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(w.Stop)
				lives[x] = ch
			}
			for i, x := range []*bus.Bus{a, b} {
				sj := x.Subjects()
				if err := x.Publish(t.Context(), []bus.Message{
					{Subject: sj.Public(table), ID: table + ":1", Data: []byte{byte(i)}},
					{Subject: sj.Public(table), ID: table + ":2", Data: []byte{byte(i)}},
				}); err != nil {
					t.Fatal(err)
				}
				if err := x.PublishLive(t.Context(), sj.Live(table), []byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
			}
			// Both servers' ends have routed every publication once both connections made a round trip
			// (an empty publication waits for one).
			for _, x := range []*bus.Bus{a, b} {
				if err := x.Publish(t.Context(), nil); err != nil {
					t.Fatal(err)
				}
			}
			for i, x := range []*bus.Bus{a, b} {
				if last, err := x.LastSequence(t.Context()); err != nil || last != 2 {
					t.Fatalf("bus %d: stream %s holds %d messages (%v), want its own 2", i, x.Stream(), last, err)
				}
				ch := make(chan testenv.Delivery, 10)
				stop, err := testenv.Subscribe(t.Context(), url, x.Stream(), []string{x.Subjects().Prefix() + ".>"}, 0, func(d testenv.Delivery) { ch <- d })
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range receive(t, ch, 2) {
					if d.Data[0] != byte(i) {
						t.Errorf("bus %d received bus %d's event on %s", i, d.Data[0], d.Subject)
					}
				}
				stop()
				select {
				case m := <-lives[x]:
					if m.Data[0] != byte(i) {
						t.Errorf("bus %d received bus %d's live update of %s", i, m.Data[0], m.Table)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("bus %d: no live update", i)
				}
			}
			// A round trip of each receiver: whatever the server routed to it has arrived before the
			// answer.
			for i, x := range []*bus.Bus{a, b} {
				if err := x.Publish(t.Context(), nil); err != nil {
					t.Fatal(err)
				}
				select {
				case m := <-lives[x]:
					t.Errorf("bus %d received another live update: %s %v", i, m.Table, m.Data)
				default:
				}
			}
		})
	}
}

// TestDurableStateFollowsTheServer: a durable consumer keeps its state on disk, where a restarted
// server finds it, unless the bus says its server keeps nothing after the process (Transient).
func TestDurableStateFollowsTheServer(t *testing.T) {
	for _, transient := range []bool{false, true} {
		t.Run(fmt.Sprintf("transient=%v", transient), func(t *testing.T) {
			ns, err := natsembed.Start(0, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(ns.Shutdown)
			b, err := bus.Connect(t.Context(), ns.URL(), "bus-test", bus.Options{Transient: transient})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(b.Close)
			c, err := b.PublicDurable(t.Context(), bus.DurableOptions{Name: "state-test", MaxAckPending: 10})
			if err != nil {
				t.Fatal(err)
			}
			info, err := c.Info(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Config.MemoryStorage; got != transient {
				t.Errorf("consumer state in memory: %v, want %v", got, transient)
			}
		})
	}
}

// TestSlowEpisodes: a feed whose buffer overflows drops updates, counted by its table's watch, and
// the bus reports that one of its subscriptions began dropping.
func TestSlowEpisodes(t *testing.T) {
	servers(t, func(t *testing.T, url string, b *bus.Bus) {
		before, ok := b.SlowEpisodes()
		if !ok {
			t.Fatal("a bus made by Connect cannot tell of drops")
		}
		feed := b.NewFeed(1) // never read: the second update has no room
		table := uniqueTable()
		w, err := feed.Watch(table)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		for range 20 {
			if err := b.PublishLive(t.Context(), b.Subjects().Live(table), []byte("u")); err != nil {
				t.Fatal(err)
			}
		}
		// The connection has received every update once a round trip after them returns.
		wait, err := b.PublishAsync(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := w.Dropped(); d != 19 {
			t.Fatalf("%d updates dropped, want 19", d)
		}
		// NATS reports the drops through the connection's error callback, on its own goroutine.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			if n, _ := b.SlowEpisodes(); n > before {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no slow-consumer episode reported 5 s after the drops")
			}
		}
	})
}

// TestWatchStalledServer: a Watch the server does not confirm while the connection still seems up
// fails with ErrUnavailable (the gateway answers UNAVAILABLE, which clients retry), not an error
// of its own.
func TestWatchStalledServer(t *testing.T) {
	t.Cleanup(bus.SetWatchTimeout(300 * time.Millisecond))
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	p := testenv.NewProxy(t, strings.TrimPrefix(ns.URL(), "nats://"))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	b, err := bus.Connect(ctx, "nats://"+p.Addr(), "stall", bus.Options{Prefix: "stall", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	feed := b.NewFeed(8)
	w, err := feed.Watch("t-1")
	if err != nil {
		t.Fatalf("watch before the stall: %v", err)
	}
	w.Stop()
	p.Stall(true)
	if _, err := feed.Watch("t-2"); !errors.Is(err, bus.ErrUnavailable) {
		t.Fatalf("watch through a stalled link: %v, want ErrUnavailable", err)
	}
}

// TestReaders: ConsumePublic delivers every table's public events after its position, in order,
// with consumer sequences without a gap and the publishers' trace context; ReadPublic hands over
// the whole stream as it stood and returns.
func TestReaders(t *testing.T) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	servers(t, func(t *testing.T, _ string, b *bus.Bus) {
		sj := b.Subjects()
		before, err := b.LastSequence(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		table := uniqueTable()
		var msgs []bus.Message
		for i := range 5 {
			msgs = append(msgs, bus.Message{Subject: sj.Public(table), ID: fmt.Sprint(table, ":", i+1), Data: []byte{byte(i)}})
		}
		sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{7}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled})
		if err := b.Publish(trace.ContextWithSpanContext(t.Context(), sc), msgs); err != nil {
			t.Fatal(err)
		}
		ch := make(chan bus.Received, 10)
		c, err := b.ConsumePublic(t.Context(), bus.DurableOptions{Name: "readers-" + table, After: before + 2, MaxAckPending: 10, Pull: 4},
			func(m bus.Received) { ch <- m })
		if err != nil {
			t.Fatal(err)
		}
		defer c.Stop()
		for i := range 3 {
			select {
			case m := <-ch:
				if m.StreamSeq != before+3+uint64(i) || m.ConsumerSeq != uint64(i+1) || m.Data[0] != byte(i+2) || m.Subject != sj.Public(table) {
					t.Fatalf("delivery %d: stream %d consumer %d data %v on %s", i, m.StreamSeq, m.ConsumerSeq, m.Data, m.Subject)
				}
				if !m.Traced() || trace.SpanContextFromContext(m.Context(t.Context())).TraceID() != sc.TraceID() {
					t.Fatalf("delivery %d lost its trace context", i)
				}
				if err := m.Ack(); err != nil {
					t.Fatal(err)
				}
			case err := <-c.Lost():
				t.Fatal(err)
			case <-time.After(10 * time.Second):
				t.Fatalf("%d deliveries, want 3", i)
			}
		}
		var replayed []uint64
		err = b.ReadPublic(t.Context(), bus.ReadFrom{}, 2, func(m bus.Received) error {
			replayed = append(replayed, m.StreamSeq)
			return nil
		})
		if err != nil || len(replayed) != int(before)+5 || replayed[len(replayed)-1] != before+5 {
			t.Fatalf("replayed %d messages up to %v (%v), want %d", len(replayed), replayed[max(len(replayed)-1, 0):], err, before+5)
		}
		stop := errors.New("stop")
		n := 0
		if err := b.ReadPublic(t.Context(), bus.ReadFrom{}, 0, func(bus.Received) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
			t.Fatalf("a reader's error: %v after %d messages", err, n)
		}
	})
}

// TestReadFrom: ReadPublic starts at a stream sequence or at a time, and SequenceRange tells the
// stream's first and last sequences.
func TestReadFrom(t *testing.T) {
	servers(t, func(t *testing.T, _ string, b *bus.Bus) {
		ctx := t.Context()
		first0, last0, err := b.SequenceRange(ctx)
		if err != nil {
			t.Fatal(err)
		}
		table := uniqueTable()
		msgs := make([]bus.Message, 10)
		for i := range msgs {
			msgs[i] = bus.Message{Subject: b.Subjects().Public(table), Data: []byte{byte(i)}}
		}
		if err := b.Publish(ctx, msgs[:5]); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if err := b.Publish(ctx, msgs[5:]); err != nil {
			t.Fatal(err)
		}
		first, last, err := b.SequenceRange(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if last != last0+10 || (first0 != 0 && first != first0) || (first0 == 0 && first != 1) {
			t.Fatalf("range %d..%d, before %d..%d", first, last, first0, last0)
		}
		firstData := func(from uint64, since time.Time) (byte, uint64) {
			t.Helper()
			var d byte
			var seq uint64
			first := errors.New("first message read")
			err := b.ReadPublic(ctx, bus.ReadFrom{Seq: from, Since: since}, 0, func(m bus.Received) error {
				d, seq = m.Data[0], m.StreamSeq
				return first
			})
			if !errors.Is(err, first) {
				t.Fatalf("read from %d or %v: %v", from, since, err)
			}
			return d, seq
		}
		if d, seq := firstData(last0+4, time.Time{}); d != 3 || seq != last0+4 {
			t.Errorf("from sequence %d: message %d at %d", last0+4, d, seq)
		}
		if d, seq := firstData(0, t0); d != 5 || seq != last0+6 {
			t.Errorf("since the second publication: message %d at %d", d, seq)
		}
	})
}
