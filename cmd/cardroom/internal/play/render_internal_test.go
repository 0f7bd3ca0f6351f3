package play

import (
	"strings"
	"testing"
	"time"

	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	sabaisabai "cardroom.dev/services/sabaisabai/engine"
	sapotagem "cardroom.dev/services/sapotagem/engine"
	sponsio "cardroom.dev/services/sponsio/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// viewOf deals a table of g and returns what viewer sees of it.
func viewOf[S, A any](t *testing.T, g engine.Game[S, A], seats int, opts proto.Message, viewer int) proto.Message {
	t.Helper()
	s, _, err := g.Setup(engine.Config{Seats: seats, Seed: 7, Options: opts, Start: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	return g.View(s, viewer)
}

func contains(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("the table lacks %q:\n%s", w, out)
		}
	}
}

func TestRenderSabai(t *testing.T) {
	v := viewOf(t, sabaisabai.Game{}, 4, &sabaisabaiv1.Options{}, 0).(*sabaisabaiv1.View)
	// Four together on the discard pile open the nose window; seat 0 has thrown its first card.
	v.DiscardTop, v.DiscardSize = []uint32{7, 7, 7, 7}, 5
	v.NoseWindow, v.NoseDeadline = true, timestamppb.New(time.Unix(60, 0))
	v.Rows[0].Slots[0] = &sabaisabaiv1.Slot{Empty: true}
	out := renderSabai(v)
	contains(t, out, "sabai-sabai — seat 1", "FOUR TOGETHER", "seat  1 (0 VP, 4 cards): __ ", "discard 5 [ 7  7  7  7]")
	if sabaiCard(0) != "??" || sabaiCard(sabaisabai.Joker) != "Jk" || sabaiCard(sabaisabai.AssJoker) != "AJ" || sabaiCard(9) != " 9" {
		t.Fatal("card names")
	}
	t.Log("\n" + out)
}

func TestRenderSapotagem(t *testing.T) {
	opts := sapotagem.OptionsOf(14) // fugitive frogs
	own := renderSapotagem(viewOf(t, sapotagem.Game{}, 4, opts, 1).(*sapotagemv1.View))
	contains(t, own, "fugitive_frogs", "seat 1", "Your hand:", "Fugitives:", "Seat 3:")
	spec := renderSapotagem(viewOf(t, sapotagem.Game{}, 4, opts, engine.Spectator).(*sapotagemv1.View))
	if strings.Contains(spec, "Your hand") {
		t.Fatalf("a spectator has no hand:\n%s", spec)
	}
	contains(t, renderSapotagem(viewOf(t, sapotagem.Game{}, 4, &sapotagemv1.Options{}, 0).(*sapotagemv1.View)), "Sapotagem (base game)")
}

func TestRenderSponsio(t *testing.T) {
	ownView := viewOf(t, sponsio.Game{}, 4, &sponsiov1.Options{}, 1).(*sponsiov1.View)
	own := renderSponsio(ownView)
	spec := renderSponsio(viewOf(t, sponsio.Game{}, 4, &sponsiov1.Options{}, engine.Spectator).(*sponsiov1.View))
	card := sponsioCardText(ownView.GetSeats()[1].GetHand()[0])
	contains(t, own, "*seat 2", "hand: "+card, "free coupons: V VI VII")
	if strings.Contains(spec, "hand: "+card) || !strings.Contains(spec, "hand: 8 cards") {
		t.Fatalf("spectator view:\n%s", spec)
	}
	if got := sponsioCardText(&sponsiov1.Card{Colour: sponsiov1.Colour_COLOUR_GREEN, Value: 9}); got != "G9" {
		t.Fatalf("the green 9 reads %q", got)
	}
}
