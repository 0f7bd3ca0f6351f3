package enginetest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"cardroom.dev/services/kit/engine"
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
