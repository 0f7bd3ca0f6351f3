package engine

import (
	"math/rand/v2"
	"strings"
	"testing"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/proto"
)

// TestLabelsRandomGames checks, over thousands of seeded games of every player count and random
// variant combinations (a quarter of them the base game), that every legal action of every state
// has a label of its own and every event a label.
func TestLabelsRandomGames(t *testing.T) {
	n := 3000
	if testing.Short() || raceEnabled {
		n = 600
	}
	cfgs := func(i int) engine.Config {
		cfg := randomConfig(i)
		if i%4 == 0 {
			cfg.Options = OptionsOf()
			cfg.Seats = 3 + i/4%4
		}
		return cfg
	}
	enginetest.CheckLabels(t, enginetest.Playout[*State, Action]{Game: Game{}, TimeoutChance: 0.05}, Game{}, n, cfgs)
}

func TestCardWords(t *testing.T) {
	for _, c := range []struct {
		card int8
		want string
	}{
		{c(Y, 1), "yellow 1 (Ducks)"},
		{c(G, 3), "green 3 (Frogs)"},
		{c(B, 4), "blue 4 (Frogs)"},
		{c(R, 11), "red 11 (Pigs)"},
		{c(G, 8), "green 8 (Birds)"},
		{c(Y, 12), "yellow 12 (Horses)"},
		{c(R, 10), "red 10 (Horses)"},
		{c(G, 10), "green 10 (Bears)"},
		{c(R, 13), "red 13 (bomb)"},
	} {
		if got := cardWords(c.card); got != c.want {
			t.Errorf("card %d: %q, want %q", c.card, got, c.want)
		}
		if got := string(appendCardPB(nil, cardPB(c.card))); got != c.want {
			t.Errorf("card message %d: %q, want %q", c.card, got, c.want)
		}
	}
}

// render shows a label as seat 1's player would read it, the others named.
func render(l string) string {
	names := []string{"Ann", "Bo", "Cy", "Di", "Ed", "Flo"}
	return engine.RenderLabel(l, func(seat int) (string, bool) {
		if seat == 1 {
			return "", true
		}
		return names[seat], false
	})
}

func TestActionLabels(t *testing.T) {
	g := Game{}
	tb := newTable(t, 4).rig(0, []int8{c(B, 1), c(B, 2), c(B, 3)},
		[]int8{c(G, 5), c(R, 13)}, []int8{c(G, 9), c(Y, 4)}, []int8{c(Y, 7), c(R, 9)}, []int8{c(G, 1), c(G, 2)})
	var got []string
	for _, a := range tb.legal(0) {
		got = append(got, g.DescribeAction(tb.s, 0, a))
	}
	if want := []string{"play green 5 (Birds)", "play red 13 (bomb)", "jump"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("seat 1 may: %q, want %q", got, want)
	}

	plant := newTable(t, 4, vPlantingMore)
	if l := g.DescribeAction(plant.s, 0, PlayTo(c(Y, 1), 2)); render(l) != "plant yellow 1 (Ducks) in front of seat 3 (Cy)" {
		t.Errorf("planting: %q rendered %q", l, render(l))
	}
	if l := g.DescribeAction(plant.s, 0, PlayTo(c(Y, 1), 1)); render(l) != "plant yellow 1 (Ducks) in front of seat 2 (you)" {
		t.Errorf("planting for the reader: %q", render(l))
	}

	j := Jump()
	j.Card, j.Bomb, j.Fugitive = c(Y, 1), c(R, 13), c(B, 4)
	if l := g.DescribeAction(tb.s, 0, j); l != "jump, playing yellow 1 (Ducks) from your play area, adding red 13 (bomb) to the round, taking the fugitive blue 4 (Frogs)" {
		t.Errorf("jump with every extra: %q", l)
	}

	phases := []struct {
		phase    Phase
		variants uint32
		a        Action
		want     string
	}{
		{PhaseSleeve, 0, Pick(c(G, 7)), "give green 7 (Bears) to the trump deck"},
		{PhasePick, 1 << vUnderArrest, Pick(c(G, 7)), "take green 7 (Bears) from the trump pile"},
		{PhasePick, 1 << vFourPiles, Pick(c(G, 7)), "take green 7 (Bears) from the revealed cards"},
		{PhaseHelp, 0, Pick(c(G, 7)), "take green 7 (Bears) from the discard pile"},
		{PhaseTakeBack, 0, Pick(c(G, 7)), "take green 7 (Bears) back into your hand for a jump marker"},
		{PhaseTakeBack, 0, Decline(), "take no card back"},
		{PhaseHiddenPick, 0, Pick(c(G, 7)), "take green 7 (Bears) from the closed pile"},
		{PhaseChooseTrump, 0, ChooseTrump(R), "choose red as the next trump"},
	}
	for _, p := range phases {
		s := &State{}
		s.N, s.Phase, s.Variants = 4, p.phase, p.variants
		if got := g.DescribeAction(s, 0, p.a); got != p.want {
			t.Errorf("phase %d: %q, want %q", p.phase, got, p.want)
		}
	}
}

func card(col, rank int8) *pb.Card { return cardPB(c(col, rank)) }

func ev(e *pb.Event) string { return render((Game{}).DescribeEvent(e)) }

func TestEventLabels(t *testing.T) {
	cases := []struct {
		e    *pb.Event
		want string
	}{
		{&pb.Event{Kind: &pb.Event_GameStarted{GameStarted: &pb.GameStarted{Seats: 4, Rounds: 12, HandSize: 10, JumpMarkers: 2, StartingSeat: 3}}},
			"the game starts: 4 players, 12 rounds, 10 cards and 2 jump markers each; seat 4 (Di) starts"},
		{&pb.Event{Kind: &pb.Event_GameStarted{GameStarted: &pb.GameStarted{Seats: 3, Rounds: 17, HandSize: 17, StartingSeat: 1,
			GameTrump: pb.Colour_COLOUR_RED, Removed: 1}}},
			"the game starts: 3 players, 17 rounds, 17 cards each; seat 2 (you) starts; red is trump for the whole game; 1 card removed unseen"},
		{&pb.Event{Kind: &pb.Event_HandDealt{HandDealt: &pb.HandDealt{Seat: 1, Cards: []*pb.Card{card(Y, 1), card(B, 13)}}}},
			"seat 2 (you) is dealt yellow 1 (Ducks), blue 13 (bomb)"},
		{&pb.Event{Kind: &pb.Event_RoundStarted{RoundStarted: &pb.RoundStarted{Round: 3, StartingSeat: 2, Trump: pb.Colour_COLOUR_YELLOW,
			TrumpCard: card(Y, 7), NextTrump: card(R, 2)}}},
			"round 3: seat 3 (Cy) starts; trump yellow 7 (Ducks), next red 2 (Pigs)"},
		{&pb.Event{Kind: &pb.Event_RoundStarted{RoundStarted: &pb.RoundStarted{Round: 8, StartingSeat: 0}}},
			"round 8: seat 1 (Ann) starts; no trump"},
		{&pb.Event{Kind: &pb.Event_Jumped{Jumped: &pb.Jumped{Seat: 2, MarkersLeft: 1}}},
			"seat 3 (Cy) jumps (1 jump marker left)"},
		{&pb.Event{Kind: &pb.Event_Jumped{Jumped: &pb.Jumped{Seat: 0, AreaCard: card(G, 3)}}},
			"seat 1 (Ann) jumps, playing green 3 (Frogs) from their play area (0 jump markers left)"},
		{&pb.Event{Kind: &pb.Event_CardPlayed{CardPlayed: &pb.CardPlayed{Seat: 3, Card: card(Y, 1), Owner: 3}}},
			"seat 4 (Di) plays yellow 1 (Ducks)"},
		{&pb.Event{Kind: &pb.Event_CardPlayed{CardPlayed: &pb.CardPlayed{Seat: 3, Card: card(Y, 1), Owner: 0}}},
			"seat 4 (Di) plants yellow 1 (Ducks) in front of seat 1 (Ann)"},
		{&pb.Event{Kind: &pb.Event_Passed{Passed: &pb.Passed{Seat: 1}}}, "seat 2 (you) passes, with nothing to play"},
		{&pb.Event{Kind: &pb.Event_RoundEnded{RoundEnded: &pb.RoundEnded{Round: 4, Winner: proto.Uint32(2), WinningCard: card(B, 13),
			Captured: []*pb.Card{card(B, 13), card(G, 1), card(G, 2), card(Y, 1), card(R, 5)}}}},
			"seat 3 (Cy) wins round 4 with blue 13 (bomb), taking 5 cards"},
		{&pb.Event{Kind: &pb.Event_RoundEnded{RoundEnded: &pb.RoundEnded{Round: 5, Discarded: []*pb.Card{card(R, 4)}}}},
			"nobody wins round 5; red 4 (Horses) goes to the discard pile"},
		{&pb.Event{Kind: &pb.Event_CardTaken{CardTaken: &pb.CardTaken{Seat: 0, Card: card(G, 12), Source: pb.TakeSource_TAKE_SOURCE_DISCARD}}},
			"seat 1 (Ann) takes green 12 (Frogs) from the discard pile"},
		{&pb.Event{Kind: &pb.Event_CardTaken{CardTaken: &pb.CardTaken{Seat: 0, Card: card(G, 12), Source: pb.TakeSource_TAKE_SOURCE_BLIND_PILE}}},
			"seat 1 (Ann) draws green 12 (Frogs) from the pile"},
		{&pb.Event{Kind: &pb.Event_TrumpChosen{TrumpChosen: &pb.TrumpChosen{Seat: proto.Uint32(1), Colour: pb.Colour_COLOUR_BLUE}}},
			"seat 2 (you) chooses blue as the next trump"},
		{&pb.Event{Kind: &pb.Event_TrumpChosen{TrumpChosen: &pb.TrumpChosen{Colour: pb.Colour_COLOUR_GREEN}}},
			"green is drawn as the next trump"},
		{&pb.Event{Kind: &pb.Event_SleeveChosen{SleeveChosen: &pb.SleeveChosen{Seat: 2}}}, "seat 3 (Cy) gives a card to the trump deck"},
		{&pb.Event{Kind: &pb.Event_GameOver{GameOver: &pb.GameOver{
			Scores: []*pb.SeatScore{{Seat: 0, Score: 14}, {Seat: 1, Score: -3}, {Seat: 2, Score: 14}},
			Outcome: &gamev1.Outcome{Results: []*gamev1.SeatResult{
				{Seat: 0, Score: 14, Rank: 1, Winner: true}, {Seat: 1, Score: -3, Rank: 3}, {Seat: 2, Score: 14, Rank: 1, Winner: true}}}}}},
			"game over: seat 1 (Ann) and seat 3 (Cy) win with 14 points; scores: seat 1 (Ann) 14, seat 2 (you) -3, seat 3 (Cy) 14"},
	}
	for _, c := range cases {
		if got := ev(c.e); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.e, got, c.want)
		}
	}
}

// TestLabelsOfAPlayedRound labels the events of a real round as they come from the engine.
func TestLabelsOfAPlayedRound(t *testing.T) {
	tb := newTable(t, 3).rig(0, []int8{c(B, 1), c(B, 2), c(B, 3)},
		[]int8{c(G, 5), c(R, 2)}, []int8{c(G, 9), c(Y, 4)}, []int8{c(Y, 7), c(R, 9)})
	var got []string
	for _, step := range []struct {
		seat int
		a    Action
	}{{0, Play(c(G, 5))}, {1, Jump()}, {2, Play(c(Y, 7))}} {
		for _, e := range tb.do(step.seat, step.a) {
			got = append(got, ev(e.Payload.(*pb.Event)))
		}
	}
	want := []string{
		"seat 1 (Ann) plays green 5 (Birds)",
		"seat 2 (you) jumps (3 jump markers left)",
		"seat 3 (Cy) plays yellow 7 (Ducks)",
		"seat 1 (Ann) wins round 1 with green 5 (Birds), taking 3 cards",
		"round 2: seat 1 (Ann) starts; trump blue 2 (Pigs), next blue 3 (Ducks)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("labels:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// BenchmarkDescribeEvent labels the events of a whole four-player game (ns/op is per event).
func BenchmarkDescribeEvent(b *testing.B) {
	p := enginetest.Playout[*State, Action]{Game: Game{}, Record: true}
	res, err := p.Run(engine.Config{Seats: 4, Seed: 9, Options: OptionsOf(), Start: start}, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		b.Fatal(err)
	}
	evs := res.Setup
	for _, st := range res.Steps {
		evs = append(evs, st.Events...)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = Game{}.DescribeEvent(evs[i%len(evs)].Payload)
		i++
	}
}

// TestEveryEventKindHasALabel labels each kind of Event, even empty, so a kind added to the proto
// without words fails here.
func TestEveryEventKindHasALabel(t *testing.T) {
	enginetest.CheckEveryKindLabelled(t, Game{}.DescribeEvent, &pb.Event{}, &pb.Action{})
}
