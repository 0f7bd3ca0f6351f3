// Package play is `cardroom play <game>`: the terminal client for people. It signs in with a
// device credential kept in the user's config directory (the same player run after run), returns to
// the seat it holds at a table still in play or else queues for a match (or opens a private table,
// or joins one by its code), and shows the table on one screen redrawn in place: the game's table,
// the seats by name with "you" marked and whose turn it is with the time left, what happened in
// words, and the player's moves in words, chosen by number or with the arrow keys (in two steps
// where a game has many: Sponsio's card then what to do with it, Saboteur's card then where).
//
// The moves come on the table's Watch stream (include_legal_actions): after the events of each
// version at which the player's seat may act, the stream lists the seat's legal actions at that
// version. The client keeps the newest list, drops one the table has moved past (an event of a
// later version came), and plays the chosen move with the list's version as the expected version:
// a move the table has moved past is refused as stale, and the stream brings the new list.
package play

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"cardroom.dev/client"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	tea "charm.land/bubbletea/v2"
	"google.golang.org/grpc/status"
)

const usage = `usage: cardroom play <game> [flags]     play sabaisabai, saboteur, sapotagem or sponsio
       cardroom play --join CODE [flags]  take a place at a private table
       cardroom play --resume [flags]     return to the seat you hold
  --addr host:port   the cardroom to play on (default 127.0.0.1:7070)
  --name NAME        your display name (default: the one you had, or "player" the first time)
  --seats N          seats at the table (queue: the number wanted; default: the game's usual table)
  --create           open a private table (its invite code is shown; b adds a bot, s starts)
  --join CODE        take a place at a private table
  (neither: queue for a match; bots fill the table after --wait)
  --wait D           longest wait in the queue (default: the gateway's, 30s unless set there)
  --bots LEVEL       the level of the bots you add or that fill your table: easy, normal (the
                     default) or strong
  --resume           return to the seat you hold (running the same game again does too)
  --config DIR       where your credential and seat are kept (default: <user config dir>/cardroom)
While playing: ↑↓ or a number chooses a move, enter plays it, esc goes back a step or hides the
list, m or ? shows it again, v refreshes the table, q leaves (your seat is kept: run again to return).
`

// Options are what one run of the client does.
type Options struct {
	Addr   string
	Game   string // "": the game of the seat held (Resume)
	Name   string
	Seats  uint32
	Create bool
	Join   string
	Wait   time.Duration
	// Bots is the level of the bots added with b (--create) or filling the queued table.
	Bots   gamev1.BotLevel
	Resume bool
	// Dir keeps the credential and the seat held.
	Dir string
	// Input and Output are the terminal.
	Input  io.Reader
	Output io.Writer
	// Program options added to the terminal's (tests: a window size, no signal handler).
	Program []tea.ProgramOption
	// Observe, when set, is told what the screen shows after every change.
	Observe func(Snapshot)
}

// Main runs `cardroom play` with its command-line arguments and returns the exit code.
func Main(ctx context.Context, args []string, in io.Reader, out io.Writer) int {
	o, err := ParseArgs(args, out)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	o.Input, o.Output = in, out
	return Run(ctx, o)
}

// ParseArgs reads the command line; the game must be one this client presents (checked before any
// call to the cardroom). Errors are written to out.
func ParseArgs(args []string, out io.Writer) (Options, error) {
	o := Options{}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		o.Game, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("cardroom play", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:7070", "")
	fs.StringVar(&o.Name, "name", "", "")
	seats := fs.Uint("seats", 0, "")
	fs.BoolVar(&o.Create, "create", false, "")
	fs.StringVar(&o.Join, "join", "", "")
	fs.DurationVar(&o.Wait, "wait", 0, "")
	fs.BoolVar(&o.Resume, "resume", false, "")
	bots := fs.String("bots", "normal", "")
	fs.StringVar(&o.Dir, "config", "", "")
	perr := fs.Parse(args)
	if perr == nil && o.Game == "" && fs.NArg() > 0 {
		// The game may also follow the flags: cardroom play --name Ann sapotagem.
		o.Game = fs.Arg(0)
		perr = fs.Parse(fs.Args()[1:])
	}
	if perr != nil {
		if !errors.Is(perr, flag.ErrHelp) {
			fmt.Fprintf(out, "cardroom play: %v\n", perr)
		}
		fmt.Fprint(out, usage)
		return o, perr
	}
	o.Seats = uint32(*seats)
	level, lerr := ParseLevel(*bots)
	o.Bots = level
	var err error
	switch {
	case lerr != nil:
		err = lerr
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected %q", fs.Arg(0))
	case o.Game == "" && !o.Resume && o.Join == "":
		err = errors.New("name a game")
	case o.Game != "" && games[o.Game] == nil:
		err = fmt.Errorf("unknown game %q: this client plays %s", o.Game, gameNames())
	case o.Create && o.Join != "":
		err = errors.New("--create and --join exclude each other")
	}
	if err != nil {
		fmt.Fprintf(out, "cardroom play: %v\n%s", err, usage)
	}
	return o, err
}

// ParseLevel reads a bot level by name: easy, normal or strong.
func ParseLevel(name string) (gamev1.BotLevel, error) {
	l, ok := gamev1.BotLevel_value["BOT_LEVEL_"+strings.ToUpper(name)]
	if !ok || l == 0 {
		return 0, fmt.Errorf("unknown bot level %q: easy, normal or strong", name)
	}
	return gamev1.BotLevel(l), nil
}

// levelName is a bot level in words: "easy", "normal", "strong".
func levelName(l gamev1.BotLevel) string {
	if l == gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED {
		return "normal"
	}
	return strings.ToLower(strings.TrimPrefix(l.String(), "BOT_LEVEL_"))
}

// Run plays until the table finishes or the player leaves, and returns the exit code.
func Run(ctx context.Context, o Options) int {
	if o.Dir == "" {
		d, err := defaultDir()
		if err != nil {
			fmt.Fprintf(o.Output, "cardroom play: no config directory (%v): give one with --config\n", err)
			return 1
		}
		o.Dir = d
	}
	c, err := client.Dial(o.Addr)
	if err != nil {
		fmt.Fprintf(o.Output, "cannot reach %s: %v\n", o.Addr, err)
		return 1
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &session{c: c, opt: o, store: store{dir: o.Dir}, msgs: make(chan tea.Msg, 64)}
	var wg sync.WaitGroup
	wg.Go(func() { s.run(ctx) })
	defer wg.Wait()
	defer cancel()

	m := newModel(ctx, s)
	m.observe = o.Observe
	opts := append([]tea.ProgramOption{tea.WithInput(o.Input), tea.WithOutput(o.Output), tea.WithContext(ctx)}, o.Program...)
	final, err := tea.NewProgram(m, opts...).Run()
	if fm, ok := final.(*model); ok {
		m = fm
	}
	switch {
	case m.err != nil:
		fmt.Fprintf(o.Output, "cardroom play: %s\n", describe(m.err))
		return 1
	case err != nil && !errors.Is(err, tea.ErrProgramKilled):
		fmt.Fprintf(o.Output, "cardroom play: %v\n", err)
		return 1
	case m.stage == stageFinished:
		fmt.Fprintf(o.Output, "game over at table %s\n%s", m.table, m.results())
	case m.table != "":
		fmt.Fprintf(o.Output, "you left table %s; your seat is kept: run `cardroom play %s --resume` to return\n", m.table, m.gameName)
	}
	return 0
}

func describe(err error) string {
	if st, ok := status.FromError(err); ok {
		return fmt.Sprintf("%s (%s)", st.Message(), st.Code())
	}
	return err.Error()
}
