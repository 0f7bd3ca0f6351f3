package play

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cardroom.dev/client"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	saboteurv1 "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"github.com/charmbracelet/x/ansi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func anys(t *testing.T, ms ...proto.Message) []*anypb.Any {
	t.Helper()
	out := make([]*anypb.Any, len(ms))
	for i, m := range ms {
		a, err := anypb.New(m)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = a
	}
	return out
}

// TestMovesKeepTheNewestList: the client keeps the newest list, drops one the table has moved past
// (before or after it came), and forgets its list when the seat no longer may act.
func TestMovesKeepTheNewestList(t *testing.T) {
	list := func(ss ...string) []*anypb.Any {
		var ms []proto.Message
		for _, s := range ss {
			ms = append(ms, wrapperspb.String(s))
		}
		return anys(t, ms...)
	}
	var m moves
	if !m.offer(0, list("reveal", "pass"), nil) {
		t.Fatal("the first list is not kept")
	}
	if m.offer(0, list("reveal", "pass"), nil) {
		t.Fatal("the same list counts as new")
	}
	m.saw(0)
	if m.actions == nil {
		t.Fatal("an event of the list's own version dropped it")
	}
	m.saw(2)
	if m.actions != nil {
		t.Fatal("an event of a later version left the list in place")
	}
	if m.offer(1, list("reveal"), nil) || m.actions != nil {
		t.Fatal("a list older than the table's version was kept")
	}
	if !m.offer(3, list("pass"), []string{"pass your turn"}) || m.version != 3 || m.labels[0] != "pass your turn" {
		t.Fatalf("a newer list was not kept with its words: %v %v", m.version, m.labels)
	}
	if !m.offer(3, nil, nil) || m.actions != nil {
		t.Fatal("the empty list (the seat no longer may act) left the list in place")
	}
	if !m.offer(4, list("reveal"), nil) || !strings.Contains(m.labels[0], "reveal") {
		t.Fatalf("a list without words is not worded by the client: %q", m.labels)
	}
	if m.offer(3, list("pass"), nil) || m.version != 4 {
		t.Fatal("an older list replaced a newer one")
	}
}

func sponsioCardOf(c sponsiov1.Colour, v uint32) *sponsiov1.Card {
	return &sponsiov1.Card{Colour: c, Value: v}
}

// TestSponsioInSteps: a betting turn's moves are grouped by the card opened; a card with one move is
// that move; the second step lists the card's moves; a new list keeps the step while it has moves.
func TestSponsioInSteps(t *testing.T) {
	g := games["sponsio"]
	green3, red9 := sponsioCardOf(sponsiov1.Colour_COLOUR_GREEN, 3), sponsioCardOf(sponsiov1.Colour_COLOUR_RED, 9)
	open := func(c *sponsiov1.Card, coupon uint32) proto.Message {
		return &sponsiov1.Action{Kind: &sponsiov1.Action_OpenCard{OpenCard: &sponsiov1.OpenCard{Card: c,
			Then: &sponsiov1.OpenCard_PlaceBet{PlaceBet: &sponsiov1.PlaceBet{Coupon: coupon}}}}}
	}
	pass := &sponsiov1.Action{Kind: &sponsiov1.Action_Pass{Pass: &sponsiov1.Pass{}}}
	var m moves
	m.offer(5, anys(t, pass, open(green3, 5), open(green3, 6), open(green3, 7), open(red9, 5)),
		[]string{"pass", "open green 3, bet on coupon V", "open green 3, bet on coupon VI", "open green 3, bet on coupon VII", "open red 9, bet on coupon V"})
	var mn menu
	es := mn.entries(g, &m)
	words := func(es []entry) []string {
		var w []string
		for _, e := range es {
			w = append(w, e.words)
		}
		return w
	}
	if got := strings.Join(words(es), " | "); got != "pass | open green 3 … | open red 9, bet on coupon V" {
		t.Fatalf("first step: %s", got)
	}
	mn.group = es[1].group
	es = mn.entries(g, &m)
	if len(es) != 3 || es[2].words != "bet on coupon VII" || es[2].index != 3 {
		t.Fatalf("second step: %v", es)
	}
	mn.cursor = 2
	// The next list (the table moved on) still has the card: the step stays, the cursor on its words.
	m.offer(6, anys(t, pass, open(green3, 7), open(green3, 8)), []string{"pass", "open green 3, bet on coupon VII", "open green 3, bet on coupon VIII"})
	mn.follow(g, &m, "bet on coupon VII")
	if mn.group == "" || mn.cursor != 0 {
		t.Fatalf("after a new list: group %q cursor %d", mn.group, mn.cursor)
	}
	m.offer(7, anys(t, pass), []string{"pass"})
	mn.follow(g, &m, "")
	if mn.group != "" {
		t.Fatal("the step outlived its card")
	}
}

// TestSaboteurBoard: the board is drawn with its coordinates, and the cells the moves on offer reach
// are marked, empty ones with "o", cards with "<" ">".
func TestSaboteurBoard(t *testing.T) {
	c := func(x, y int32) *saboteurv1.Cell { return &saboteurv1.Cell{X: x, Y: y} }
	v := &saboteurv1.View{Round: 1, Viewer: 0, Phase: saboteurv1.Phase_PHASE_TURN, Role: saboteurv1.Role_ROLE_SABOTEUR,
		Hand: []saboteurv1.Card{saboteurv1.Card_CARD_STRAIGHT_EW, saboteurv1.Card_CARD_ROCKFALL},
		Board: []*saboteurv1.BoardCard{
			{Cell: c(0, 0), Card: saboteurv1.Card_CARD_START},
			{Cell: c(1, 0), Card: saboteurv1.Card_CARD_STRAIGHT_EW},
			{Cell: c(8, -2), FaceDown: true}, {Cell: c(8, 0), FaceDown: true}, {Cell: c(8, 2), FaceDown: true},
		},
		SeatInfo: []*saboteurv1.Seat{{HandCount: 6}, {HandCount: 6}}}
	place := func(x, y int32) proto.Message {
		return &saboteurv1.Action{Kind: &saboteurv1.Action_Place{Place: &saboteurv1.PlacePath{Card: saboteurv1.Card_CARD_STRAIGHT_EW, Cell: c(x, y)}}}
	}
	rockfall := &saboteurv1.Action{Kind: &saboteurv1.Action_Play{Play: &saboteurv1.PlayAction{Card: saboteurv1.Card_CARD_ROCKFALL, Cell: c(1, 0)}}}
	seats := &seating{names: []string{"Ann", "Bea"}, bots: []bool{false, true}, you: 0}
	out := games["saboteur"].render(v, seats, []proto.Message{place(2, 0), place(-1, 0), rockfall}, nil)
	lines := strings.Split(out, "\n")
	// Columns -1 to 8 along the top; rows -2 to 2 down the left.
	if !strings.Contains(lines[2], " -1  0  1  2") || !strings.Contains(lines[2], "  8  x") {
		t.Fatalf("no x coordinates:\n%s", out)
	}
	var row0 string
	for _, l := range lines {
		if strings.HasPrefix(l, "  0 ") {
			row0 = l
		}
	}
	// (-1,0) and (2,0) are marked empty cells; (1,0), the rockfall's target, a marked card.
	if want := "  0  o -S-<+> o "; !strings.HasPrefix(row0, want) {
		t.Fatalf("row 0 is %q, want it to start %q:\n%s", row0, want, out)
	}
	for _, want := range []string{" -2 ", "  2 ", "Ann (you)", "Bea", "you are a saboteur; your hand: straight E-W, rockfall"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the board lacks %q:\n%s", want, out)
		}
	}
	// On the screen, the marks follow the step: a chosen card marks only its own cells.
	var m moves
	m.offer(9, anys(t, place(2, 0), place(-1, 0), rockfall), nil)
	mdl := &model{stage: stagePlaying, game: games["saboteur"], gameName: "saboteur", view: v, seats: seats, moves: m}
	mdl.menu.group = "play rockfall"
	screen := ansi.Strip(mdl.screen())
	if strings.Contains(screen, " o ") || !strings.Contains(screen, "{+}") {
		t.Fatalf("with rockfall chosen (and under the cursor), the screen marks:\n%s", screen)
	}
	// The cursor's cell is marked apart from the others.
	mdl.menu = menu{group: "place straight E-W", cursor: 1}
	screen = ansi.Strip(mdl.screen())
	if !strings.Contains(screen, "  0  @ -S--+- o ") {
		t.Fatalf("with the second path move under the cursor, the screen shows:\n%s", screen)
	}
}

// TestStoreKeepsTheCredential: the credential is made once, kept with mode 0600 in the store's
// directory, and read back; the seat held is kept per cardroom and game, and forgotten once its
// table is over.
func TestStoreKeepsTheCredential(t *testing.T) {
	s := store{dir: filepath.Join(t.TempDir(), "cardroom")}
	if _, err := s.credentials().Load(t.Context()); !errors.Is(err, client.ErrNoCredential) {
		t.Fatalf("a credential before any: %v", err)
	}
	c1 := client.NewCredential()
	if err := s.credentials().Save(t.Context(), c1); err != nil {
		t.Fatal(err)
	}
	c2, err := s.credentials().Load(t.Context())
	if err != nil || c2 != c1 || len(c1.Secret) < 32 {
		t.Fatalf("read back %v (%v), want %v", c2, err, c1)
	}
	fi, err := os.Stat(filepath.Join(s.dir, credentialFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credential file: %v %v", fi.Mode(), err)
	}
	if _, ok, err := s.seat("a:1", "sponsio"); ok || err != nil {
		t.Fatalf("a seat before any: %v %v", ok, err)
	}
	if err := s.saveSeat(seatRecord{Addr: "a:1", Game: "sponsio", Table: "t-1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.saveSeat(seatRecord{Addr: "a:1", Game: "saboteur", Table: "t-2"}); err != nil {
		t.Fatal(err)
	}
	if r, ok, _ := s.seat("a:1", "sponsio"); !ok || r.Table != "t-1" {
		t.Fatalf("sponsio's seat: %v %v", r, ok)
	}
	if r, ok, _ := s.seat("a:1", ""); !ok || r.Table != "t-2" {
		t.Fatalf("the last seat: %v %v", r, ok)
	}
	if r, ok, _ := s.seat("b:1", ""); ok {
		t.Fatalf("another cardroom's seat: %v", r)
	}
	_ = s.forgetSeat("a:1", "saboteur", "t-9")
	if _, ok, _ := s.seat("a:1", "saboteur"); !ok {
		t.Fatal("forgetting another table forgot the seat")
	}
	_ = s.forgetSeat("a:1", "saboteur", "t-2")
	if _, ok, _ := s.seat("a:1", "saboteur"); ok {
		t.Fatal("the seat outlived its table")
	}
}

func TestStepWords(t *testing.T) {
	for _, c := range [][3]string{
		{"open green 3, bet on coupon VII", "open green 3", "bet on coupon VII"},
		{"Place curve NW at (1, 2)", "place curve nw", "at (1, 2)"},
		{"open green 33", "open green 3", "open green 33"},
		{"open green 3", "open green 3", "open green 3"},
		{"pass", "open green 3", "pass"},
	} {
		if got := stepWords(c[0], c[1]); got != c[2] {
			t.Errorf("stepWords(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// TestNamesInWords: seat numbers in a game's drawing and in labels read with the names.
func TestNamesInWords(t *testing.T) {
	s := &seating{names: []string{"Ann", "Bea", ""}, bots: make([]bool, 3), you: 0}
	// Seats are counted from 1 in words: "seat 2" is the API's seat 1.
	if got := s.nameSeats("turn 3: seat 2, draw\nseat  1 (2 VP): 13 ??\nseat 3 holds a card\nSeat 2: 3 cards\nseat 8\nseat 0"); got != "turn 3: seat 2 (Bea), draw\nseat  1 (you) (2 VP): 13 ??\nseat 3 holds a card\nSeat 2 (Bea): 3 cards\nseat 8\nseat 0" {
		t.Fatalf("%q", got)
	}
	if got := s.label("{seat:1} passes; {seat:0} plays"); got != "seat 2 (Bea) passes; seat 1 (you) plays" {
		t.Fatalf("%q", got)
	}
	// An engine's own text counts from 0, as the API does.
	if got := countedFromOne("seat 0 wins with 31 coins; seats [0 2] share the win"); got != "seat 1 wins with 31 coins; seats 1 and 3 share the win" {
		t.Fatalf("%q", got)
	}
}

// TestListBeforeTheAnswer: the stream may bring the next list before the answer to the move played
// from the last one; the answer then leaves the new list in place (a real-time game's seat acts twice
// in a row this way).
func TestListBeforeTheAnswer(t *testing.T) {
	m := &model{stage: stagePlaying, game: games["sabaisabai"]}
	m.moves.offer(5, anys(t, wrapperspb.String("draw")), []string{"draw a card"})
	m.acting = true
	m.watched(client.Update{Choices: &client.Choices{Version: 6,
		Actions: anys(t, wrapperspb.String("keep")), Labels: []string{"keep the card"}}})
	m.update(actedMsg{r: &gatewayv1.ActResponse{Version: 6}})
	if m.acting || m.moves.actions == nil || m.moves.labels[0] != "keep the card" {
		t.Fatalf("after the answer: acting %v, moves %q", m.acting, m.moves.labels)
	}
	m.update(actedMsg{r: &gatewayv1.ActResponse{Version: 7}})
	if m.moves.actions != nil {
		t.Fatal("the answer of a later version left the list in place")
	}
}

// TestTurnTimer: the seat the table waits for is marked, with the seconds left when the table has a
// time limit.
func TestTurnTimer(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	turn := uint32(1)
	m := &model{stage: stagePlaying, game: games["sponsio"], now: func() time.Time { return now },
		view: &sponsiov1.View{ToAct: &turn},
		seats: &seating{names: []string{"Ann", "Bea", "Cid"}, bots: []bool{false, true, true}, you: 0,
			levels: []gamev1.BotLevel{0, gamev1.BotLevel_BOT_LEVEL_STRONG, gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED}},
		deadline: now.Add(12*time.Second + 400*time.Millisecond)}
	if got := ansi.Strip(m.seatsLine()); got != "seats: 1 Ann (you) · ▶ 2 Bea (bot, strong) 12s · 3 Cid (bot, normal)" {
		t.Fatalf("%q", got)
	}
	m.deadline = time.Time{}
	if got := ansi.Strip(m.seatsLine()); got != "seats: 1 Ann (you) · ▶ 2 Bea (bot, strong) · 3 Cid (bot, normal)" {
		t.Fatalf("without a limit: %q", got)
	}
}

// TestParseArgsBots: --bots names the level of the bots the client adds or lets fill its table
// (normal by default); another word is refused before anything is sent.
func TestParseArgsBots(t *testing.T) {
	for arg, want := range map[string]gamev1.BotLevel{
		"": gamev1.BotLevel_BOT_LEVEL_NORMAL, "easy": gamev1.BotLevel_BOT_LEVEL_EASY,
		"normal": gamev1.BotLevel_BOT_LEVEL_NORMAL, "Strong": gamev1.BotLevel_BOT_LEVEL_STRONG,
	} {
		args := []string{"sapotagem"}
		if arg != "" {
			args = append(args, "--bots", arg)
		}
		o, err := ParseArgs(args, io.Discard)
		if err != nil || o.Bots != want {
			t.Errorf("%q: level %v, %v; want %v", args, o.Bots, err, want)
		}
	}
	for _, bad := range []string{"hard", "unspecified", "3", ""} {
		if _, err := ParseArgs([]string{"sapotagem", "--bots", bad}, io.Discard); err == nil {
			t.Errorf("--bots %q accepted", bad)
		}
	}
}

// The game may stand before or after the flags; anything after both is refused.
func TestParseArgsGameAnywhere(t *testing.T) {
	for _, args := range [][]string{
		{"sapotagem", "--name", "Ann", "--seats", "3"},
		{"--name", "Ann", "--seats", "3", "sapotagem"},
		{"--name", "Ann", "sapotagem", "--seats", "3"},
	} {
		o, err := ParseArgs(args, io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if o.Game != "sapotagem" || o.Name != "Ann" || o.Seats != 3 {
			t.Fatalf("%q: game %q, name %q, seats %d", args, o.Game, o.Name, o.Seats)
		}
	}
	if _, err := ParseArgs([]string{"--name", "Ann", "sapotagem", "sponsio"}, io.Discard); err == nil {
		t.Fatal("two games accepted")
	}
}
