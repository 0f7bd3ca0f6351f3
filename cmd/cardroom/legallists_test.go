package main

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// benchStates plays random games of e with seats seats and keeps a copy of every state passed.
func benchStates(tb testing.TB, e engine.Engine, seats, n int) []engine.State {
	r := rand.New(rand.NewPCG(1, 2))
	var out []engine.State
	start := time.Unix(1_700_000_000, 0)
	for g := 0; len(out) < n; g++ {
		st, _, err := e.Setup(engine.Config{Seats: seats, Seed: uint64(g), Options: e.Info().Options.ProtoReflect().New().Interface(), Start: start})
		if err != nil {
			tb.Fatal(err)
		}
		now := start
		for step := 0; step < 2000 && len(out) < n; step++ {
			if _, over := st.Outcome(); over {
				break
			}
			b, err := st.Encode()
			if err != nil {
				tb.Fatal(err)
			}
			cp, err := e.DecodeState(b)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, cp)
			var movers []int
			for s := range seats {
				if len(st.Legal(s)) > 0 {
					movers = append(movers, s)
				}
			}
			now = now.Add(time.Second)
			if len(movers) == 0 {
				if dl, ok := st.Deadline(); ok {
					if _, err := st.Timeout(dl); err != nil {
						tb.Fatal(err)
					}
					now = dl
					continue
				}
				break
			}
			s := movers[r.IntN(len(movers))]
			l := st.Legal(s)
			if _, err := st.Apply(s, l[r.IntN(len(l))], now); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return out
}

// TestLegalEncoded: every game's encoded lists (shared by the engine between tables) are what
// encoding its listed messages gives, with the same labels, at every state of random games.
func TestLegalEncoded(t *testing.T) {
	for _, e := range engines() {
		seats := min(max(4, e.Info().MinSeats), e.Info().MaxSeats)
		for _, st := range benchStates(t, e, seats, 300) {
			for s := range seats {
				acts, labels := st.LegalLabelled(s)
				enc, encLabels, err := st.LegalEncoded(s)
				if err != nil {
					t.Fatal(err)
				}
				if len(enc) != len(acts) || !slices.Equal(labels, encLabels) {
					t.Fatalf("%s seat %d: %d encoded actions labelled %q, want %d labelled %q", e.Info().Name, s, len(enc), encLabels, len(acts), labels)
				}
				for i, a := range acts {
					want, err := proto.Marshal(a)
					if err != nil {
						t.Fatal(err)
					}
					if url := "type.googleapis.com/" + string(a.ProtoReflect().Descriptor().FullName()); enc[i].TypeURL != url || !bytes.Equal(enc[i].Value, want) {
						t.Fatalf("%s seat %d action %d (%s): encoded %s %x, want %s %x", e.Info().Name, s, i, labels[i], enc[i].TypeURL, enc[i].Value, url, want)
					}
				}
			}
		}
	}
}

// BenchmarkLegalLists measures what a live update's legal actions cost per commit: every seat's
// list at a state of a random game, labelled and encoded — as the rules service did before the
// engines kept the encodings (labelled: a message per action, sized and encoded) and as it does
// now (encoded).
func BenchmarkLegalLists(b *testing.B) {
	for _, e := range engines() {
		seats := min(max(4, e.Info().MinSeats), e.Info().MaxSeats)
		states := benchStates(b, e, seats, 500)
		b.Run(e.Info().Name+"/labelled", func(b *testing.B) {
			b.ReportAllocs()
			i, n := 0, 0
			var buf []byte
			for b.Loop() {
				st := states[i%len(states)]
				i++
				buf = buf[:0]
				for s := range seats {
					acts, labels := st.LegalLabelled(s)
					n += len(acts)
					for j, a := range acts {
						proto.Size(a)
						buf, _ = proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(buf, a)
						buf = append(buf, labels[j]...)
					}
				}
			}
			b.ReportMetric(float64(n)/float64(b.N), "actions/op")
		})
		b.Run(e.Info().Name+"/encoded", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			var buf []byte
			for b.Loop() {
				st := states[i%len(states)]
				i++
				buf = buf[:0]
				for s := range seats {
					acts, labels, err := st.LegalEncoded(s)
					if err != nil {
						b.Fatal(err)
					}
					for j, a := range acts {
						buf = append(buf, a.Value...)
						buf = append(buf, labels[j]...)
					}
				}
			}
		})
	}
}
