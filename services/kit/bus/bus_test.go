package bus_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/testenv"
	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// servers runs fn against an in-process NATS and against the machine's NATS.
func servers(t *testing.T, fn func(t *testing.T, b *bus.Bus)) {
	t.Run("embedded", func(t *testing.T) {
		ns, err := natsembed.Start(0, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ns.Shutdown)
		fn(t, connect(t, ns.URL()))
	})
	t.Run("external", func(t *testing.T) {
		fn(t, connect(t, testenv.ExternalNATS(t)))
	})
}

func connect(t *testing.T, url string) *bus.Bus {
	b, err := bus.Connect(t.Context(), url, "bus-test", bus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func uniqueTable() string {
	x := make([]byte, 6)
	_, _ = rand.Read(x)
	return "test-" + hex.EncodeToString(x)
}

func receive(t *testing.T, ch <-chan bus.Delivery, n int) []bus.Delivery {
	t.Helper()
	var out []bus.Delivery
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
	servers(t, func(t *testing.T, b *bus.Bus) {
		table := uniqueTable()
		var msgs []bus.Message
		for i := range 10 {
			subject := bus.PublicSubject(table)
			if i%3 == 0 {
				subject = bus.SeatSubject(table, i%2)
			}
			msgs = append(msgs, bus.Message{Subject: subject, ID: fmt.Sprint(table, ":", i+1), Data: []byte{byte(i)}})
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
		ch := make(chan bus.Delivery, 100)
		stop, err := b.Subscribe(t.Context(), []string{bus.TableSubjects(table)}, 0, func(d bus.Delivery) { ch <- d })
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
		ch2 := make(chan bus.Delivery, 100)
		stop2, err := b.Subscribe(t.Context(), []string{bus.TableSubjects(table)}, got[5].StreamSeq, func(d bus.Delivery) { ch2 <- d })
		if err != nil {
			t.Fatal(err)
		}
		defer stop2()
		tail := receive(t, ch2, 5)
		if tail[0].Data[0] != 5 || tail[4].Data[0] != 9 {
			t.Fatalf("resumed at %v .. %v", tail[0].Data, tail[4].Data)
		}
		// Only one seat's subject.
		ch3 := make(chan bus.Delivery, 100)
		stop3, err := b.Subscribe(context.Background(), []string{bus.SeatSubject(table, 1)}, 0, func(d bus.Delivery) { ch3 <- d })
		if err != nil {
			t.Fatal(err)
		}
		defer stop3()
		if seat := receive(t, ch3, 2); seat[0].Data[0] != 3 || seat[1].Data[0] != 9 {
			t.Fatalf("seat 1 received %v, %v", seat[0].Data, seat[1].Data)
		}
		if last, err := b.LastSequence(t.Context()); err != nil || last < got[9].StreamSeq {
			t.Fatalf("last sequence %d (%v)", last, err)
		}
	})
}

func TestLiveTableOf(t *testing.T) {
	for subject, want := range map[string]string{
		bus.LiveSubject("t-1"):     "t-1",
		bus.PublicSubject("t-2"):   "",
		bus.SeatSubject("t-2", 3):  "",
		bus.FinishedSubject("x"):   "",
		"cardroom.live.":           "",
		"cardroom.live.t-3.public": "",
		"other.live.t-4":           "",
	} {
		got, ok := bus.LiveTableOf(subject)
		if got != want || ok != (want != "") {
			t.Errorf("LiveTableOf(%q) = %q, %v; want %q", subject, got, ok, want)
		}
	}
}

// Live updates reach subscribers but are not kept by the stream.
func TestLiveNotKept(t *testing.T) {
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	b := connect(t, ns.URL())
	before, err := b.LastSequence(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan *nats.Msg, 1)
	sub, err := b.Conn().ChanSubscribe(bus.AllLiveSubjects, msgs)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := b.PublishLive(bus.LiveSubject("t-9"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if m := <-msgs; m.Subject != bus.LiveSubject("t-9") || string(m.Data) != "x" {
		t.Fatalf("received %s %q", m.Subject, m.Data)
	}
	if err := b.Publish(t.Context(), []bus.Message{{Subject: bus.PublicSubject("t-9"), Data: []byte("y")}}); err != nil {
		t.Fatal(err)
	}
	if after, err := b.LastSequence(t.Context()); err != nil || after != before+1 {
		t.Fatalf("the stream went from %d to %d (%v); want one message more", before, after, err)
	}
}
