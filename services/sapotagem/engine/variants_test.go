package engine

import (
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
)

// playRound plays the given action for each seat in turn order until the round ends.
func (tb *table) playRound(acts map[int8]Action) {
	tb.t.Helper()
	round := tb.s.Round
	for tb.s.Phase == PhasePlay && tb.s.Round == round {
		seat := tb.s.Turn
		a, ok := acts[seat]
		if !ok {
			tb.t.Fatalf("no action for seat %d", seat)
		}
		tb.do(int(seat), a)
	}
}

// playFirst plays the first legal action of the seat(s) to act until cond holds.
func (tb *table) playFirst(cond func(s *State) bool) {
	tb.t.Helper()
	for i := 0; !cond(tb.s); i++ {
		if i > 1000 || tb.s.Phase == PhaseOver {
			tb.t.Fatal("condition never met")
		}
		for seat := 0; seat < int(tb.s.N); seat++ {
			if l := tb.legal(seat); len(l) > 0 {
				tb.do(seat, l[0])
				break
			}
		}
	}
}

func over(s *State) { s.Phase = PhaseOver }

func TestVariant1UnderArrest(t *testing.T) {
	tb := newTable(t, 4, vUnderArrest)
	colour := tb.s.GameColour
	if popcount(tb.s.OpenPile) != 12 || colour < 0 {
		t.Fatalf("open pile %d cards, colour %d", popcount(tb.s.OpenPile), colour)
	}
	open := tb.s.OpenPile
	var hands [4][]int8
	for i, r := range []int8{12, 2, 3, 4} {
		hands[i] = []int8{c(colour, r)}
	}
	tb.s.OpenPile = open &^ colourMask[colour]
	tb.rig(0, nil, hands[0], hands[1], hands[2], hands[3])
	if tb.s.TrumpColour != colour || tb.s.TrumpCard != -1 {
		t.Fatalf("trump %d card %d", tb.s.TrumpColour, tb.s.TrumpCard)
	}
	tb.playRound(map[int8]Action{0: Play(hands[0][0]), 1: Play(hands[1][0]), 2: Play(hands[2][0]), 3: Play(hands[3][0])})
	if tb.s.Phase != PhasePick || tb.s.Turn != 0 {
		t.Fatalf("phase %d turn %d: the winner picks from the open pile", tb.s.Phase, tb.s.Turn)
	}
	pick := int8(trailing(tb.s.OpenPile))
	tb.refuse(0, Pick(c(colour, 12)), CodeCardNotOffered)
	tb.do(0, Pick(pick))
	if tb.s.Areas[0]&bit(pick) == 0 || tb.s.OpenPile&bit(pick) != 0 || popcount(tb.s.Areas[0]) != 5 {
		t.Fatalf("the picked card is not in the winner's area")
	}
}

func TestVariant2FrogsOnDuty(t *testing.T) {
	tb := newTable(t, 4, vFrogsOnDuty)
	s := tb.s
	if popcount(s.Hands[0]) != 13 || s.Markers[0] != 0 || s.Rounds != 13 || s.TrumpColour != s.GameColour {
		t.Fatalf("hand %d markers %d rounds %d", popcount(s.Hands[0]), s.Markers[0], s.Rounds)
	}
	tb.refuse(int(s.Turn), Jump(), CodeJumpsNotAllowed)
	tb.playFirst(func(s *State) bool { return s.Round == 2 })
	if got := popcount(s.Areas[s.Starter]); got != 4 {
		t.Fatalf("the winner took %d cards, want only the 4 played", got)
	}
	tb6 := newTable(t, 6, vFrogsOnDuty)
	if popcount(tb6.s.Hands[5]) != 8 || popcount(tb6.s.Removed) != 4 {
		t.Fatalf("6 players: ruling V2 deals 8 each and removes 4")
	}
}

func TestVariant3AceUpTheSleeve(t *testing.T) {
	tb := newTable(t, 4, vAceUpTheSleeve)
	s := tb.s
	if s.Phase != PhaseSleeve || s.Rounds != 12 {
		t.Fatalf("phase %d rounds %d", s.Phase, s.Rounds)
	}
	for seat := 0; seat < 4; seat++ {
		card := int8(trailing(s.Hands[seat]))
		tb.do(seat, Pick(card))
		if seat < 3 {
			tb.refuse(seat, Pick(int8(trailing(s.Hands[seat]))), CodeAlreadyChosen)
		}
	}
	if s.Phase != PhasePlay || popcount(s.Hands[0]) != 12 {
		t.Fatalf("phase %d hand %d", s.Phase, popcount(s.Hands[0]))
	}
	deck := setOf(s.SleeveDeck[:4])
	if s.TrumpColour != colourOf(s.SleeveDeck[0]) {
		t.Fatalf("trump colour %d, want the first deck card's", s.TrumpColour)
	}
	tb.playFirst(func(s *State) bool { return s.Round == 2 })
	if s.Areas[s.Starter]&deck != 0 || popcount(s.Areas[s.Starter]) != 4 {
		t.Fatal("trump-deck cards must never be captured")
	}
	tb.playFirst(func(s *State) bool { return s.Round == 6 })
	if s.SleevePos != 2 || setOf(s.SleeveDeck[:4]) != deck {
		t.Fatalf("the deck is reshuffled after all four were used (pos %d)", s.SleevePos)
	}
}

func TestVariant4CostlyAbsence(t *testing.T) {
	tb := newTable(t, 4, vCostlyAbsence)
	s := tb.s
	if popcount(s.Hands[0]) != 13 || s.Markers[0] != 4 || s.Rounds != 0 {
		t.Fatalf("hand %d markers %d rounds %d", popcount(s.Hands[0]), s.Markers[0], s.Rounds)
	}
	if !hasAction(tb.legal(int(s.Turn)), Jump()) {
		t.Fatal("jumps are optional")
	}
	over(s)
	s.Areas = [6]uint64{}
	s.JumpsUsed = [6]int8{2, 4, 0, 1}
	out, _ := Game{}.Outcome(s)
	if out.Results[0].Score != -3 || out.Results[1].Score != -10 || !out.Results[2].Winner {
		t.Fatalf("penalties: %v", out)
	}
}

func TestVariant5DoubleAgent(t *testing.T) {
	s := newTable(t, 3, vDoubleAgent).s
	over(s)
	s.Areas = [6]uint64{bit(c(G, 3)) | bit(c(G, 6)), bit(c(R, 2)), bit(c(Y, 2))}
	out, _ := Game{}.Outcome(s)
	if out.Results[0].Winner || !out.Results[1].Winner || !out.Results[2].Winner {
		t.Fatalf("fewest points should win: %v", out)
	}
}

func TestVariant6AgencyTogether(t *testing.T) {
	tb := newTable(t, 4, vAgencyTogether).rig(0, []int8{c(B, 1), c(B, 2)},
		[]int8{c(G, 2)}, []int8{c(G, 3)}, []int8{c(G, 12)}, []int8{c(G, 4)})
	tb.playRound(map[int8]Action{0: Play(c(G, 2)), 1: Play(c(G, 3)), 2: Play(c(G, 12)), 3: Play(c(G, 4))})
	s := tb.s
	if s.Starter != 2 || popcount(s.Areas[0]) != 5 || s.Areas[2] != 0 {
		t.Fatalf("seat 2's capture goes to the team area of seats 0 and 2")
	}
	v := Game{}.View(s, 1).(*pb.View)
	if len(v.Seats[0].Area) != 5 || v.Seats[2].Team != 0 {
		t.Fatal("view: the team area is shown on seat 0")
	}
	over(s)
	out, _ := Game{}.Outcome(s)
	if out.Results[0].Score != out.Results[2].Score || out.Results[0].Rank != out.Results[2].Rank {
		t.Fatalf("partners share the score: %v", out)
	}
}

func TestVariant7AgencyClever(t *testing.T) {
	s := newTable(t, 4, vAgencyClever).s
	over(s)
	s.Areas = [6]uint64{bit(c(R, 2)), bit(c(G, 3)) | bit(c(G, 6)), bit(c(Y, 1)) | bit(c(B, 3)) | bit(c(B, 6)), 0}
	// seat 2: 3 ducks = 6; seat 1: 2 frogs = 3; team 0 (seats 0, 2) counts 6, team 1 (1, 3) counts 3.
	out, _ := Game{}.Outcome(s)
	if out.Results[0].Score != 6 || out.Results[3].Score != 3 || !out.Results[0].Winner || !out.Results[2].Winner || out.Results[1].Winner {
		t.Fatalf("clever teams: %v", out)
	}
}

func TestVariant8AgencyDouble(t *testing.T) {
	s := newTable(t, 6, vAgencyDouble).s
	over(s)
	s.Areas = [6]uint64{bit(c(G, 3)) | bit(c(G, 6)), bit(c(R, 2)), bit(c(Y, 1)) | bit(c(B, 3)) | bit(c(B, 6))}
	out, _ := Game{}.Outcome(s)
	if !out.Results[1].Winner || !out.Results[4].Winner || out.Results[0].Winner {
		t.Fatalf("the team with the fewest points wins: %v", out)
	}
}

func firstOf(m uint64, k int) uint64 {
	var out uint64
	eachCard(m, func(x int8) {
		if popcount(out) < k {
			out |= bit(x)
		}
	})
	return out
}

func TestVariants9And10ScoringTables(t *testing.T) {
	four, six := firstOf(factionMask[0], 4), firstOf(factionMask[0], 6)
	base := newTable(t, 4).s
	inno := newTable(t, 4, vInnocentOrGuilty).s
	soap := newTable(t, 4, vSoapedFrog).s
	for _, tc := range []struct {
		s    *State
		m    uint64
		want int
	}{{base, four, -1}, {inno, four, 10}, {soap, four, -3}, {base, six, -6}, {inno, six, 21}, {soap, six, 10},
		{inno, factionMask[0], 36}, {soap, factionMask[0], 10}} {
		if got := tc.s.areaPoints(tc.m); got != tc.want {
			t.Errorf("%s, %d cards: %d, want %d", describeVariants(tc.s.Variants), popcount(tc.m), got, tc.want)
		}
	}
}

func TestVariant11FrogBack(t *testing.T) {
	tb := newTable(t, 4, vFrogBack).rig(0, []int8{c(B, 1), c(B, 2)},
		[]int8{c(G, 12), c(Y, 5)}, []int8{c(G, 3)}, []int8{c(G, 2)}, []int8{c(G, 4)})
	tb.playRound(map[int8]Action{0: Play(c(G, 12)), 1: Play(c(G, 3)), 2: Play(c(G, 2)), 3: Play(c(G, 4))})
	s := tb.s
	if s.Phase != PhaseTakeBack || s.Turn != 0 || !hasAction(tb.legal(0), Decline()) {
		t.Fatalf("phase %d: the winner may take a card back", s.Phase)
	}
	markers := s.Markers[0]
	tb.refuse(0, Pick(c(Y, 5)), CodeCardNotOffered)
	tb.do(0, Pick(c(G, 3)))
	if s.Hands[0]&bit(c(G, 3)) == 0 || s.Markers[0] != markers-1 || s.Areas[0]&bit(c(G, 3)) != 0 {
		t.Fatal("the card goes back into hand for one marker")
	}
	if s.Phase != PhasePlay || s.Round != 2 {
		t.Fatal("the next round starts")
	}
}

func TestVariant12SpyInitiative(t *testing.T) {
	tb := newTable(t, 4, vSpyInitiative)
	s := tb.s
	tb.refuse(int(s.Starter), Jump(), CodeStarterMustPlay)
	if hasAction(tb.legal(int(s.Starter)), Jump()) {
		t.Fatal("the starting player may not jump")
	}
	tb.do(int(s.Starter), tb.legal(int(s.Starter))[0])
	if !hasAction(tb.legal(int(s.Turn)), Jump()) {
		t.Fatal("the others may jump")
	}
}

func TestVariants13And19Information(t *testing.T) {
	open := newTable(t, 4, vOpenInformation).s
	v := Game{}.View(open, 0).(*pb.View)
	if len(v.OpenPile) != 11 || v.PileSize != 0 || v.OpenPile[0].String() != cardPB(open.Pile[1]).String() {
		t.Fatalf("open information: %d face-up cards, %d face down", len(v.OpenPile), v.PileSize)
	}
	closed := newTable(t, 4, vClosedInformation)
	v = Game{}.View(closed.s, 0).(*pb.View)
	if v.NextTrump != nil || v.PileSize != 11 {
		t.Fatal("closed information shows no next trump")
	}
	for _, e := range closed.evs {
		if rs, ok := e.Payload.(*pb.Event).GetKind().(*pb.Event_RoundStarted); ok && rs.RoundStarted.NextTrump != nil {
			t.Fatal("closed information: RoundStarted reveals the next trump")
		}
	}
	base := newTable(t, 4)
	if v := (Game{}).View(base.s, -1).(*pb.View); v.NextTrump == nil || v.PileSize != 10 {
		t.Fatal("base game shows the next trump")
	}
}

func TestVariant14FugitiveFrogs(t *testing.T) {
	tb := newTable(t, 4, vFugitiveFrogs)
	s := tb.s
	if popcount(s.Fugitives) != 5 || s.PileLen != 7 {
		t.Fatalf("fugitives %d pile %d", popcount(s.Fugitives), s.PileLen)
	}
	seat := int(s.Turn)
	tb.refuse(seat, Jump(), CodeFugitiveRequired)
	f := int8(trailing(s.Fugitives))
	j := Jump()
	j.Fugitive = f
	tb.do(seat, j)
	if s.Areas[seat]&bit(f) == 0 || s.Fugitives&bit(f) != 0 {
		t.Fatal("the jumper takes the fugitive")
	}
	s.PilePos, s.Round = s.PileLen, 7
	s.NPlayed, s.Acted = 0, 0
	var evs []engine.Event
	s.startRound(&evs)
	if s.TrumpColour != -1 || s.TrumpCard != -1 {
		t.Fatal("the last five rounds have no trump")
	}
}

func TestVariant15NegotiatingFrogs(t *testing.T) {
	tb := newTable(t, 4, vNegotiatingFrogs).rig(0, []int8{c(B, 1), c(B, 2)},
		[]int8{c(G, 5)}, []int8{c(Y, 3)}, []int8{c(G, 2)}, []int8{c(G, 4)})
	s := tb.s
	s.Areas[1] = bit(c(G, 12)) | bit(c(R, 7))
	tb.do(0, Play(c(G, 5)))
	tb.refuse(1, Jump(), CodeAreaCardRequired)
	j := Jump()
	j.Card = c(R, 7)
	tb.refuse(1, j, CodeMustFollowColour)
	j.Card = c(G, 12)
	tb.do(1, j)
	tb.do(2, Play(c(G, 2)))
	tb.do(3, Play(c(G, 4)))
	if s.Starter != 1 || s.Areas[1]&bit(c(G, 12)) == 0 {
		t.Fatal("the play-area card competes and wins")
	}
}

func TestVariant16WildBomb(t *testing.T) {
	two := firstOf(factionMask[0], 2) | bit(c(G, 13))
	if got := newTable(t, 4, vWildBomb).s.areaPoints(two); got != 6 {
		t.Fatalf("2 frogs + wild bomb = %d, want 6 (3 frogs)", got)
	}
	if got := newTable(t, 4, vWildBomb, vDoubleAgent).s.areaPoints(two); got != 4 {
		t.Fatalf("fewest-points goal: %d, want 4 (the bomb alone in a row)", got)
	}
	if got := newTable(t, 4).s.areaPoints(two); got != 3+Data.BombEach {
		t.Fatalf("without the variant: %d", got)
	}
}

func TestVariant17RemoteBomb(t *testing.T) {
	tb := newTable(t, 4, vRemoteBomb).rig(0, []int8{c(B, 1), c(B, 2)},
		[]int8{c(G, 5)}, []int8{c(B, 13), c(Y, 3)}, []int8{c(G, 2)}, []int8{c(G, 4)})
	s := tb.s
	tb.do(0, Play(c(G, 5)))
	j := Jump()
	j.Bomb = c(Y, 3)
	tb.refuse(1, j, CodeNotABomb)
	j.Bomb = c(B, 13)
	tb.do(1, j)
	tb.do(2, Play(c(G, 2)))
	tb.do(3, Play(c(G, 4)))
	if s.Starter != 0 || s.Areas[0]&bit(c(B, 13)) == 0 {
		t.Fatal("the remote bomb (trump colour!) cannot win; the winner takes it")
	}
}

func TestVariant18Planting(t *testing.T) {
	tb := newTable(t, 3, vPlanting).rig(0, nil, []int8{c(G, 12)}, []int8{c(G, 1)}, []int8{c(G, 2)})
	s := tb.s
	s.TrumpColour = Y
	tb.refuse(0, PlayTo(c(G, 12), 2), CodeBadTarget)
	tb.do(0, Play(c(G, 12)))
	tb.do(1, Play(c(G, 1)))
	tb.do(2, Play(c(G, 2)))
	if s.Starter != 1 || popcount(s.Areas[1]) != 3 {
		t.Fatalf("the card lies in front of seat 1, so seat 1 wins (got %d)", s.Starter)
	}
}

func TestVariant20AnonymousHelp(t *testing.T) {
	tb := newTable(t, 4, vAnonymousHelp).rig(0, []int8{c(B, 1), c(B, 2)},
		[]int8{c(G, 9)}, []int8{c(G, 4)}, []int8{c(G, 2)}, []int8{c(G, 5)})
	s := tb.s
	s.Discard = bit(c(R, 10))
	s.Areas[0] = bit(c(G, 3)) | bit(c(G, 6)) | bit(c(B, 4)) // three frogs; G9 is the fourth
	tb.playRound(map[int8]Action{0: Play(c(G, 9)), 1: Play(c(G, 4)), 2: Play(c(G, 2)), 3: Play(c(G, 5))})
	if s.Discard&bit(c(B, 1)) == 0 || s.Areas[0]&bit(c(B, 1)) != 0 {
		t.Fatal("the trump goes to the discard pile")
	}
	if s.Phase != PhaseHelp || s.Turn != 0 {
		t.Fatalf("phase %d: the fourth frog makes seat 0 take a discard", s.Phase)
	}
	tb.do(0, Pick(c(R, 10)))
	if s.Areas[0]&bit(c(R, 10)) == 0 || s.Phase != PhasePlay {
		t.Fatal("the discard card joins the area and play goes on")
	}
}

func TestVariant21FourPiles(t *testing.T) {
	tb := newTable(t, 3, vFourPiles)
	s := tb.s
	trump := s.TrumpCard
	if popcount(s.Revealed) != 3 || trump != s.Pile[0] || s.Rounds != 16 {
		t.Fatalf("revealed %d", popcount(s.Revealed))
	}
	tb.playFirst(func(s *State) bool { return s.Phase == PhasePick })
	w := s.Turn
	pick := int8(trailing(s.Revealed))
	tb.do(int(w), Pick(pick))
	if s.Areas[w]&bit(pick) == 0 || s.TrumpCard != trump {
		t.Fatal("the winner takes a revealed card; the trump stays for four rounds")
	}
	tb.playFirst(func(s *State) bool { return s.Round == 5 })
	var inArea bool
	for i := range s.Areas {
		inArea = inArea || s.Areas[i]&bit(trump) != 0
	}
	if !inArea && s.Discard&bit(trump) == 0 {
		t.Fatal("the fourth round's winner takes the trump")
	}
	if s.TrumpCard != s.Pile[4] || popcount(s.Revealed) != 3 {
		t.Fatal("the next pile is revealed")
	}
}

func TestVariant22BlindPile(t *testing.T) {
	tb := newTable(t, 3, vBlindPile)
	s := tb.s
	if s.GroupLen != 3 || s.TrumpCard != s.Pile[0] {
		t.Fatalf("group %d", s.GroupLen)
	}
	var taken bool
	for !taken {
		for seat := 0; seat < 3; seat++ {
			if l := tb.legal(seat); len(l) > 0 {
				for _, e := range tb.do(seat, l[0]) {
					if ct, ok := e.Payload.(*pb.Event).GetKind().(*pb.Event_CardTaken); ok && ct.CardTaken.Source == pb.TakeSource_TAKE_SOURCE_BLIND_PILE {
						taken = true
					}
				}
				break
			}
		}
	}
	if s.GroupLen != 2 || s.Round != 2 {
		t.Fatalf("after a round the pile lost one card: %d left", s.GroupLen)
	}
}

func TestVariant23WeakFrog(t *testing.T) {
	tb := newTable(t, 4, vWeakFrog).rig(0, nil, []int8{c(Y, 5), c(G, 1)}, []int8{c(R, 5)}, []int8{c(B, 3)}, []int8{c(Y, 2)})
	s := tb.s
	s.TrumpColour = G
	tb.playRound(map[int8]Action{0: Play(c(Y, 5)), 1: Play(c(R, 5)), 2: Play(c(B, 3)), 3: Play(c(Y, 2))})
	if s.Phase != PhaseChooseTrump || s.Turn != 2 {
		t.Fatalf("phase %d turn %d: blue 3 (neither trump nor lead) is the weakest card", s.Phase, s.Turn)
	}
	tb.do(2, ChooseTrump(R))
	if s.TrumpColour != R || s.Round != 2 {
		t.Fatal("the chosen colour is the next round's trump")
	}
}

func TestVariant24HidingTheGame(t *testing.T) {
	tb := newTable(t, 4, vHidingTheGame).rig(0, nil, []int8{c(Y, 5), c(G, 1)}, []int8{c(R, 5)}, []int8{c(B, 3)}, []int8{c(Y, 2)})
	s := tb.s
	s.TrumpColour = G
	hidden := s.Hidden
	tb.playRound(map[int8]Action{0: Play(c(Y, 5)), 1: Play(c(R, 5)), 2: Play(c(B, 3)), 3: Play(c(Y, 2))})
	tb.do(2, ChooseTrump(B))
	if s.Phase != PhaseHiddenPick || s.Turn != 2 {
		t.Fatalf("phase %d: the chooser picks from the closed pile", s.Phase)
	}
	if v := (Game{}).View(s, 2).(*pb.View); len(v.Hidden) != popcount(hidden) {
		t.Fatal("the chooser sees the closed pile")
	}
	if v := (Game{}).View(s, 1).(*pb.View); len(v.Hidden) != 0 {
		t.Fatal("others do not see the closed pile")
	}
	card := int8(trailing(hidden))
	tb.do(2, Pick(card))
	if s.Areas[2]&bit(card) == 0 || s.TrumpColour != B {
		t.Fatal("the card joins the chooser's area")
	}
}

func TestVariant25PlantingMore(t *testing.T) {
	tb := newTable(t, 4, vPlantingMore).rig(0, nil, []int8{c(G, 12)}, []int8{c(G, 1)}, []int8{c(G, 2)}, []int8{c(G, 3)})
	s := tb.s
	s.TrumpColour = Y
	tb.refuse(0, PlayTo(c(G, 12), 0), CodeBadTarget)
	tb.refuse(0, Play(c(G, 12)), CodeBadTarget)
	tb.do(0, PlayTo(c(G, 12), 2))
	if s.Turn != 2 {
		t.Fatal("the receiver plants next")
	}
	tb.refuse(2, PlayTo(c(G, 2), 0), CodeBadTarget) // the starting player receives last
	tb.do(2, PlayTo(c(G, 2), 3))
	tb.do(3, PlayTo(c(G, 3), 1))
	if l := tb.legal(1); len(l) != 1 || l[0].Target != 0 {
		t.Fatalf("the last planter must plant for the starting player: %v", l)
	}
	tb.do(1, PlayTo(c(G, 1), 0))
	if s.Starter != 2 {
		t.Fatalf("green 12 lies in front of seat 2: winner %d", s.Starter)
	}
}
