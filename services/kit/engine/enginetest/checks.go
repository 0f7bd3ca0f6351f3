package enginetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// CheckDeterminism plays n seeded games from the configs cfgs(i) returns, replays each from its
// recorded log and requires the same events and the same final state encoding.
func CheckDeterminism[S, A any](t testing.TB, p Playout[S, A], n int, cfgs func(i int) engine.Config) {
	t.Helper()
	p.Record = true
	for i := range n {
		cfg := cfgs(i)
		res, err := p.Run(cfg, rand.New(rand.NewPCG(cfg.Seed, uint64(i))))
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		s2, evs, err := Replay(p.Game, cfg, res.Steps)
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		for j, st := range res.Steps {
			if !SameEvents(st.Events, evs[j]) {
				t.Fatalf("game %d step %d: replay produced different events", i, j)
			}
		}
		a, err1 := p.Game.EncodeState(res.State)
		b, err2 := p.Game.EncodeState(s2)
		if err1 != nil || err2 != nil {
			t.Fatalf("game %d: encode: %v %v", i, err1, err2)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("game %d: replayed state differs", i)
		}
	}
}

// CheckStateRoundTrip requires that a state survives EncodeState/DecodeState unchanged.
func CheckStateRoundTrip[S, A any](g engine.Game[S, A], s S) error {
	b, err := g.EncodeState(s)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	s2, err := g.DecodeState(b)
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	b2, err := g.EncodeState(s2)
	if err != nil {
		return fmt.Errorf("re-encode: %w", err)
	}
	if !bytes.Equal(b, b2) {
		return fmt.Errorf("state changed through encode/decode")
	}
	return nil
}

// CheckUnchangedOnError applies a (possibly illegal) move to a clone and, when it is refused,
// requires that the state is exactly as before and that the error is a *engine.Violation.
func CheckUnchangedOnError[S, A any](g engine.Game[S, A], s S, m engine.Move[A]) error {
	before, err := g.EncodeState(s)
	if err != nil {
		return err
	}
	c := g.Clone(s)
	_, err = g.Apply(c, m)
	if err == nil {
		return nil
	}
	if _, ok := err.(*engine.Violation); !ok {
		return fmt.Errorf("refusal is %T (%v), not a *engine.Violation", err, err)
	}
	after, err2 := g.EncodeState(c)
	if err2 != nil {
		return err2
	}
	if !bytes.Equal(before, after) {
		return fmt.Errorf("refused move (%v) changed the state", err)
	}
	return nil
}

// Payloads returns the payloads of the events for one audience.
func Payloads(evs []engine.Event, to int) []proto.Message {
	var out []proto.Message
	for _, e := range evs {
		if e.To == to {
			out = append(out, e.Payload)
		}
	}
	return out
}
