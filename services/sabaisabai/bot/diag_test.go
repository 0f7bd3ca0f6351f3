package bot

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/sabaisabai/engine"
)

func TestDiag(t *testing.T) {
	if os.Getenv("SABAI_DIAG") == "" {
		t.Skip()
	}
	ps := decisions(t, 4)
	b := NewStrong(StrongOptions{})
	var tally [8][8]int
	for _, p := range ps {
		want, _ := Heuristic{}.Wants(p.view, p.legal)
		a, _ := b.Wants(p.view, p.legal)
		tally[want.Kind][a.Kind]++
	}
	for k := range tally {
		t.Logf("heuristic %d -> strong %v", k, tally[k])
	}
}

func TestDiagCall(t *testing.T) {
	if os.Getenv("SABAI_DIAG") == "" {
		t.Skip()
	}
	ps := decisions(t, 1)
	g := engine.Game{}
	n := 0
	for _, p := range ps {
		want, _ := Heuristic{}.Wants(p.view, p.legal)
		if want.Kind != engine.KindDraw || n > 6 {
			continue
		}
		n++
		roots, _ := (&Strong{}).roots(p.view, want, slices.Clone(p.legal))
		v := p.view.(*pb.View)
		me := seatOf(v)
		r := rand.New(rand.NewPCG(1, 1))
		for _, a := range roots {
			sum, moves, vp := 0.0, 0, 0
			for range 400 {
				w, _ := engine.Sample(v, r)
				s := g.Clone(w)
				_ = s.Step(me, a)
				d := 0
				for ; d < horizon && s.Round() == w.Round(); d++ {
					seat := s.ToAct()
					if seat < 0 {
						break
					}
					legal := g.Legal(s, seat, nil)
					_ = s.Step(seat, s.Policy(seat, legal))
				}
				moves += d
				sum += s.Value(w, me)
				vp += int(g.View(s, me).(*pb.View).GetRows()[me].GetVictoryPoints() - v.GetRows()[me].GetVictoryPoints())
			}
			t.Logf("turn %d est %.1f: %v value %.3f moves %.1f vp %.2f", v.GetTurn(), estimate(v, me), a.Kind, sum/400, float64(moves)/400, float64(vp)/400)
		}
	}
}
