package rules

import (
	"bytes"
	"slices"
	"testing"
	"time"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// appendingHighcard is high card appending its actions (engine.ActionAppender). With badPass, a
// pass's label ends in a byte that is not UTF-8, in DescribeAction as in AppendLabel.
type appendingHighcard struct {
	highcard.Game
	badPass bool
}

func (g appendingHighcard) DescribeAction(s *highcard.State, seat int, a string) string {
	l := g.Game.DescribeAction(s, seat, a)
	if g.badPass && a == "pass" {
		l += "\xff"
	}
	return l
}

func (g appendingHighcard) AppendAction(b []byte, a string) []byte {
	b, _ = proto.MarshalOptions{Deterministic: true}.MarshalAppend(b, g.EncodeAction(a))
	return b
}

func (g appendingHighcard) AppendLabel(b []byte, s *highcard.State, seat int, a string) []byte {
	return append(b, g.DescribeAction(s, seat, a)...)
}

// listedGenerically hides a state's engine.LegalAppender.
type listedGenerically struct{ engine.State }

// TestAppendedUpdate: a game that appends its actions gets the update and the legal-action
// answers the generic path gives, at every state of a game, labels that are not UTF-8 repaired.
func TestAppendedUpdate(t *testing.T) {
	url := typeURL(&wrapperspb.StringValue{})
	evs := []encodedEvent{{raw: []byte{0x0a, 1, 'x'}}}
	for _, badPass := range []bool{false, true} {
		e := engine.Erase[*highcard.State, string](appendingHighcard{Game: highcard.New(), badPass: badPass}, nil)
		const seats = 3
		st, _, err := e.Setup(engine.Config{Seats: seats, Seed: 5, Options: wrapperspb.UInt32(2), Start: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := st.(engine.LegalAppender); !ok {
			t.Fatal("the state of a game that appends is no LegalAppender")
		}
		states := 0
		for version := uint64(1); ; version++ {
			got, err := appendTableUpdate([]byte("kept"), "t1", version, evs, st, seats, url)
			if err != nil {
				t.Fatal(err)
			}
			want, err := appendTableUpdate([]byte("kept"), "t1", version, evs, listedGenerically{st}, seats, url)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("version %d: update %x, the generic way %x", version, got, want)
			}
			var u rulesv1.TableUpdate
			if err := proto.Unmarshal(got[len("kept"):], &u); err != nil {
				t.Fatalf("version %d: %v", version, err)
			}
			mover := -1
			for seat := range seats {
				acts, labels, err := legalAnys(st, seat, url)
				if err != nil {
					t.Fatal(err)
				}
				wantActs, wantLabels, err := legalAnys(listedGenerically{st}, seat, url)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(labels, wantLabels) || len(acts) != len(wantActs) {
					t.Fatalf("version %d seat %d: %d actions labelled %q, the generic way %d labelled %q", version, seat, len(acts), labels, len(wantActs), wantLabels)
				}
				for i := range acts {
					if !proto.Equal(acts[i], wantActs[i]) {
						t.Fatalf("version %d seat %d action %d: %v, the generic way %v", version, seat, i, acts[i], wantActs[i])
					}
				}
				if len(acts) > 0 {
					mover = seat
				}
			}
			states++
			if mover < 0 {
				break
			}
			legal := st.Legal(mover)
			if _, err := st.Apply(mover, legal[int(version)%len(legal)], time.Unix(int64(version), 0)); err != nil {
				t.Fatal(err)
			}
		}
		if states < 4 {
			t.Fatalf("only %d states", states)
		}
	}
}
