package play

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	sabaisabai "cardroom.dev/services/sabaisabai/engine"
	saboteur "cardroom.dev/services/saboteur/engine"
	sapotagem "cardroom.dev/services/sapotagem/engine"
	sponsio "cardroom.dev/services/sponsio/engine"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// game is how the client presents one game: its table, whose turn it is, and how its moves are
// chosen in steps. The client knows the games it presents; any other is shown in its text form.
type game interface {
	// render draws the table as the player sees it. marked are the moves on offer at this step (the
	// whole list, or the moves of the group chosen first), and focus the one under the cursor (or
	// nil), for games that mark them on the table.
	render(view proto.Message, seats *seating, marked []proto.Message, focus proto.Message) string
	// toAct is the seat the table waits for, when the view says.
	toAct(view proto.Message) (seat int, ok bool)
	// group is the first step of a move: moves with the same key are chosen together, first by words
	// (the group's), then among themselves. "" keeps the move on its own.
	group(action proto.Message) (key, words string)
	// describeEvent puts an event in words, seats as engine.SeatRef ("": no words for it), for a
	// cardroom that sends no label with it.
	describeEvent(payload proto.Message) string
}

// games are the games this client presents, by name.
var games = map[string]game{
	"sabaisabai": sabaiGame{},
	"saboteur":   saboteurGame{},
	"sapotagem":  sapotagemGame{},
	"sponsio":    sponsioGame{},
}

// displayNames are the games' names as people write them (the ids are for commands).
var displayNames = map[string]string{"sabaisabai": "sabai-sabai", "saboteur": "Saboteur 2", "sapotagem": "Sapotagem", "sponsio": "Sponsio"}

// displayName is game's name as people write it; an unknown id as it is.
func displayName(game string) string {
	if n, ok := displayNames[game]; ok {
		return n
	}
	return game
}

// gameNames lists the games, for messages.
func gameNames() string { return "sabaisabai, saboteur, sapotagem, sponsio" }

type sabaiGame struct{}

func (sabaiGame) render(v proto.Message, _ *seating, _ []proto.Message, _ proto.Message) string {
	sv, _ := v.(*sabaisabaiv1.View)
	return renderSabai(sv)
}

func (sabaiGame) toAct(v proto.Message) (int, bool) {
	sv, _ := v.(*sabaisabaiv1.View)
	return int(sv.GetTurnSeat()), sv.GetPhase() != sabaisabaiv1.Phase_PHASE_GAME_OVER
}

// group puts the throws together: they are offered at any moment, and there are many.
func (sabaiGame) group(a proto.Message) (string, string) {
	if act, _ := a.(*sabaisabaiv1.Action); act.GetThrow() != nil {
		return "throw", "throw cards on the discard pile …"
	}
	return "", ""
}

func (sabaiGame) describeEvent(p proto.Message) string { return sabaisabai.Game{}.DescribeEvent(p) }

type sapotagemGame struct{}

func (sapotagemGame) describeEvent(p proto.Message) string { return sapotagem.Game{}.DescribeEvent(p) }

func (sapotagemGame) render(v proto.Message, _ *seating, _ []proto.Message, _ proto.Message) string {
	sv, _ := v.(*sapotagemv1.View)
	return renderSapotagem(sv)
}

func (sapotagemGame) toAct(v proto.Message) (int, bool) {
	sv, _ := v.(*sapotagemv1.View)
	if sv.Turn == nil {
		return 0, false
	}
	return int(sv.GetTurn()), true
}

func (sapotagemGame) group(proto.Message) (string, string) { return "", "" }

type sponsioGame struct{}

func (sponsioGame) describeEvent(p proto.Message) string { return sponsio.Game{}.DescribeEvent(p) }

func (saboteurGame) describeEvent(p proto.Message) string { return saboteur.Game{}.DescribeEvent(p) }

func (sponsioGame) render(v proto.Message, _ *seating, _ []proto.Message, _ proto.Message) string {
	sv, _ := v.(*sponsiov1.View)
	return renderSponsio(sv)
}

func (sponsioGame) toAct(v proto.Message) (int, bool) {
	sv, _ := v.(*sponsiov1.View)
	if sv.ToAct == nil {
		return 0, false
	}
	return int(sv.GetToAct()), true
}

// group chooses a betting turn in two steps: first the card to open, then what to do with the turn
// (which coupon to bet on, which token to take, which talon card to change it for).
func (sponsioGame) group(a proto.Message) (string, string) {
	act, _ := a.(*sponsiov1.Action)
	if o := act.GetOpenCard(); o != nil {
		w := sponsioCard(o.GetCard())
		return "open " + w, "open " + w + " …"
	}
	if act.GetChangeBet() != nil {
		return "change", "change a bet …"
	}
	return "", ""
}

func sponsioCard(c *sponsiov1.Card) string {
	return fmt.Sprintf("%s %d", strings.ToLower(strings.TrimPrefix(c.GetColour().String(), "COLOUR_")), c.GetValue())
}

// seating is who sits where, as the player should read it.
type seating struct {
	names []string // display names by seat
	bots  []bool
	// levels are the bots' levels by seat (nil or unspecified: normal).
	levels []gamev1.BotLevel
	you    int // -1: watching
}

// botLabel is how a bot's seat is marked: "bot, strong".
func (s *seating) botLabel(seat int) string {
	l := gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED
	if seat < len(s.levels) {
		l = s.levels[seat]
	}
	return "bot, " + levelName(l)
}

// name is "Name" or "Name (you)"; a seat with no name known is "seat N".
func (s *seating) name(seat int) string {
	if s == nil || seat < 0 || seat >= len(s.names) || s.names[seat] == "" {
		if s != nil && seat == s.you {
			return fmt.Sprintf("seat %d (you)", seat+1)
		}
		return fmt.Sprintf("seat %d", seat+1)
	}
	if seat == s.you {
		return s.names[seat] + " (you)"
	}
	return s.names[seat]
}

// label is a label with its seat references in words: "seat 2 (Bea)", "seat 0 (you)".
func (s *seating) label(l string) string {
	return engine.RenderLabel(l, func(seat int) (string, bool) {
		if s == nil || seat < 0 || seat >= len(s.names) {
			return "", false
		}
		return s.names[seat], seat == s.you
	})
}

var seatWords = regexp.MustCompile(`(?i)\bseat +(\d+)\b`)

var (
	apiSeat  = regexp.MustCompile(`\bseat (\d+)\b`)
	apiSeats = regexp.MustCompile(`\bseats \[([\d ]+)\]`)
)

// countedFromOne rewrites the seat numbers of an engine's own text (an outcome's summary: "seat 0
// wins", "seats [0 2] share the win"), which counts seats from 0 as the API does, as people count
// them: "seat 1 wins", "seats 1 and 3 share the win".
func countedFromOne(text string) string {
	text = apiSeats.ReplaceAllStringFunc(text, func(w string) string {
		var out []string
		for _, f := range strings.Fields(apiSeats.FindStringSubmatch(w)[1]) {
			n, _ := strconv.Atoi(f)
			out = append(out, strconv.Itoa(n+1))
		}
		return "seats " + engine.AndList(out)
	})
	return apiSeat.ReplaceAllStringFunc(text, func(w string) string {
		n, _ := strconv.Atoi(apiSeat.FindStringSubmatch(w)[1])
		return "seat " + strconv.Itoa(n+1)
	})
}

// nameSeats puts the names beside the seat numbers in a game's drawing of its table, where seats
// are counted from 1 as people count them: "seat 2" (the API's seat 1) reads "seat 2 (Bea)", the
// player's own "seat 1 (you)".
func (s *seating) nameSeats(text string) string {
	if s == nil {
		return text
	}
	return seatWords.ReplaceAllStringFunc(text, func(w string) string {
		seat, err := strconv.Atoi(strings.TrimSpace(w[len("seat"):]))
		seat-- // counted from 1 in words
		if err != nil || seat < 0 || seat >= len(s.names) {
			return w
		}
		name := s.names[seat]
		if seat == s.you {
			name = "you"
		}
		if name == "" {
			return w
		}
		return w + " (" + name + ")"
	})
}

// colours paints the colour names games use in their enums (COLOUR_RED …) as words.
var colours = regexp.MustCompile(`\bCOLOUR_(RED|GREEN|YELLOW|BLUE|BLACK|WHITE|PURPLE|ORANGE)\b`)

// textOf is a message on one line in its text form (a move or an event the game gives no words
// for), its type name first.
func textOf(a *anypb.Any) string {
	m, err := a.UnmarshalNew()
	if err != nil {
		return string(a.MessageName())
	}
	s := prototext.MarshalOptions{}.Format(m)
	s = colours.ReplaceAllStringFunc(s, func(c string) string { return strings.ToLower(strings.TrimPrefix(c, "COLOUR_")) })
	if s == "" {
		return string(m.ProtoReflect().Descriptor().Name())
	}
	return strings.Join(strings.Fields(s), " ")
}

// longTextOf is a view on several lines in its text form.
func longTextOf(m proto.Message) string {
	return prototext.MarshalOptions{Multiline: true, Indent: "  "}.Format(m)
}
