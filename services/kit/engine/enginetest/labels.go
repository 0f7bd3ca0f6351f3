package enginetest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// CheckLabels plays n seeded games from the configs cfgs(i) returns and requires, at every state
// reached, that each seat's legal actions have non-empty labels that differ from one another, and
// that every event of the deal and of every step has a non-empty label.
func CheckLabels[S, A any](t testing.TB, p Playout[S, A], d engine.Describer[S, A], n int, cfgs func(i int) engine.Config) {
	t.Helper()
	var buf []A
	checkState := func(s S, seats int) error {
		for seat := range seats {
			buf = p.Game.Legal(s, seat, buf[:0])
			seen := make(map[string]int, len(buf))
			for i, a := range buf {
				l := d.DescribeAction(s, seat, a)
				if l == "" {
					return fmt.Errorf("seat %d: legal action %v has no label", seat, a)
				}
				if j, dup := seen[l]; dup {
					return fmt.Errorf("seat %d: legal actions %v and %v share the label %q", seat, buf[j], a, l)
				}
				seen[l] = i
			}
		}
		return nil
	}
	checkEvents := func(evs []engine.Event) error {
		for _, e := range evs {
			if d.DescribeEvent(e.Payload) == "" {
				return fmt.Errorf("event %T (to %d) has no label", e.Payload, e.To)
			}
		}
		return nil
	}
	for i := range n {
		cfg := cfgs(i)
		q := p
		q.Record = false
		q.OnStep = func(s S, st Step[A]) error {
			if err := checkEvents(st.Events); err != nil {
				return err
			}
			return checkState(s, cfg.Seats)
		}
		s, setup, err := p.Game.Setup(cfg)
		if err != nil {
			t.Fatalf("game %d: setup: %v", i, err)
		}
		if err := checkEvents(setup); err != nil {
			t.Fatalf("game %d: deal: %v", i, err)
		}
		if err := checkState(s, cfg.Seats); err != nil {
			t.Fatalf("game %d: after the deal: %v", i, err)
		}
		if _, err := q.Run(cfg, rand.New(rand.NewPCG(cfg.Seed, uint64(i)))); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
	}
}

// CheckEveryKindLabelled labels an empty message of every field of the oneof kind in event (the
// game's Event message, e.g. &pb.Event{}), so that a kind added to the proto without words fails;
// and requires no label for the empty event and for notEvent (a message that is no event).
func CheckEveryKindLabelled(t testing.TB, describe func(proto.Message) string, event, notEvent proto.Message) {
	t.Helper()
	fields := event.ProtoReflect().Descriptor().Oneofs().ByName("kind").Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		e := event.ProtoReflect().New()
		e.Set(f, protoreflect.ValueOfMessage(e.NewField(f).Message()))
		if describe(e.Interface()) == "" {
			t.Errorf("event %s has no label", f.Name())
		}
	}
	if l := describe(event.ProtoReflect().New().Interface()); l != "" {
		t.Errorf("an empty event is labelled %q", l)
	}
	if l := describe(notEvent); l != "" {
		t.Errorf("%T, no event, is labelled %q", notEvent, l)
	}
}

// WrapEvent returns a new message of event's type (the game's Event) with m in the field of its
// oneof kind that has m's type.
func WrapEvent[E proto.Message](t testing.TB, event E, m proto.Message) E {
	t.Helper()
	e := event.ProtoReflect().New()
	fields := e.Descriptor().Oneofs().ByName("kind").Fields()
	for i := range fields.Len() {
		if f := fields.Get(i); f.Message() != nil && f.Message().FullName() == m.ProtoReflect().Descriptor().FullName() {
			e.Set(f, protoreflect.ValueOfMessage(m.ProtoReflect()))
			return e.Interface().(E)
		}
	}
	t.Fatalf("%T is no kind of %T", m, event)
	return event
}
