package enginetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// CheckAppender plays n seeded games from the configs cfgs(i) returns and requires, at every state
// reached, for every legal action of every seat, that the game's ActionAppender appends what its
// Game methods give: AppendAction the bytes proto.Marshal (deterministic) writes for EncodeAction's
// message, which is of Info().Action's type, and AppendLabel DescribeAction's label; both after
// bytes already in the buffer, which they must leave alone. It returns the number of actions
// checked.
func CheckAppender[S, A any](t testing.TB, p Playout[S, A], app engine.ActionAppender[S, A], n int, cfgs func(i int) engine.Config) int {
	t.Helper()
	g := p.Game
	actionType := g.Info().Action.ProtoReflect().Descriptor().FullName()
	prefix := []byte("\xffkept")
	var (
		legal   []A
		buf     []byte
		checked int
	)
	checkState := func(s S, seats int) error {
		for seat := range seats {
			legal = g.Legal(s, seat, legal[:0])
			for _, a := range legal {
				m := g.EncodeAction(a)
				if name := m.ProtoReflect().Descriptor().FullName(); name != actionType {
					return fmt.Errorf("seat %d: action %v encodes as a %s, not the game's %s", seat, a, name, actionType)
				}
				want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
				if err != nil {
					return fmt.Errorf("seat %d: action %v: %w", seat, a, err)
				}
				buf = app.AppendAction(append(buf[:0], prefix...), a)
				if !bytes.HasPrefix(buf, prefix) || !bytes.Equal(buf[len(prefix):], want) {
					return fmt.Errorf("seat %d: action %v appended as %x, want %x after %x", seat, a, buf, want, prefix)
				}
				label := g.DescribeAction(s, seat, a)
				buf = app.AppendLabel(append(buf[:0], prefix...), s, seat, a)
				if !bytes.HasPrefix(buf, prefix) || string(buf[len(prefix):]) != label {
					return fmt.Errorf("seat %d: action %v labelled %q, want %q after %q", seat, a, buf, label, prefix)
				}
				checked++
			}
		}
		return nil
	}
	for i := range n {
		cfg := cfgs(i)
		q := p
		q.Record = false
		q.OnStep = func(s S, _ Step[A]) error { return checkState(s, cfg.Seats) }
		s, _, err := g.Setup(cfg)
		if err != nil {
			t.Fatalf("game %d: setup: %v", i, err)
		}
		if err := checkState(s, cfg.Seats); err != nil {
			t.Fatalf("game %d: after the deal: %v", i, err)
		}
		if _, err := q.Run(cfg, rand.New(rand.NewPCG(cfg.Seed, uint64(i)))); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
	}
	return checked
}
