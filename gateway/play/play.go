// Package play is `cardroom play <game>`: a terminal client for people. It signs in, queues for a
// match (or creates a private table, or joins one by its code), shows the view and the events as
// they come, lists the legal moves and plays the one typed.
//
// The moves come on the table's Watch stream (include_legal_actions): after the events of each
// version at which the player's seat may act, the stream lists the seat's legal actions at that
// version, and the client numbers them. It keeps the newest list, drops one the table has moved
// past (an event of a later version came), and plays the typed move with the list's version as the
// expected version: a move the table has moved past is refused as stale, and the stream brings the
// new list. The client never calls ListLegalActions. A number typed while no list is known (not
// the player's turn, or the list is still on its way) plays nothing: the client says it is
// waiting for the player's turn, and the moves are shown when the stream lists them. Lines are
// read all the time, so "v" and "q" work while others play; moves are not typed ahead.
package play

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

const usage = `usage: cardroom play <game> [flags]
  --addr host:port   the cardroom to play on (default 127.0.0.1:7070)
  --name NAME        your display name (default "player")
  --seats N          seats at the table (queue: the number wanted; default: any)
  --create           open a private table and print its invite code
  --join CODE        take a place at a private table
  (neither: queue for a match; bots fill the table after --wait)
  --wait D           longest wait in the queue (default 20s)
While playing: when your moves are listed, type the number of one; "v" for the view, "q" to
quit. At your own private table: "bots N" adds computer players, "start" deals.
`

// Play runs the terminal client and returns the process exit code.
func Play(ctx context.Context, args []string, in io.Reader, out io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(out, usage)
		if len(args) > 0 && isHelp(args[0]) {
			return 0
		}
		return 2
	}
	game := args[0]
	fs := flag.NewFlagSet("cardroom play", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {} // printed below, once
	addr := fs.String("addr", "127.0.0.1:7070", "")
	name := fs.String("name", "player", "")
	seats := fs.Uint("seats", 0, "")
	create := fs.Bool("create", false, "")
	join := fs.String("join", "", "")
	wait := fs.Duration("wait", 20*time.Second, "")
	if err := fs.Parse(args[1:]); err != nil {
		fmt.Fprint(out, usage)
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	cc, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintf(out, "cannot reach %s: %v\n", *addr, err)
		return 1
	}
	defer cc.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &player{c: gatewayv1.NewGatewayServiceClient(cc), out: out, lines: readLines(ctx, in), game: game}
	if err := p.run(ctx, *name, uint32(*seats), *create, *join, *wait); err != nil {
		if errors.Is(err, errQuit) {
			return 0
		}
		fmt.Fprintf(out, "error: %s\n", describe(err))
		return 1
	}
	return 0
}

var errQuit = errors.New("quit")

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h"
}

func describe(err error) string {
	if st, ok := status.FromError(err); ok {
		return fmt.Sprintf("%s (%s)", st.Message(), st.Code())
	}
	return err.Error()
}

type player struct {
	c     gatewayv1.GatewayServiceClient
	out   io.Writer
	lines <-chan string
	game  string
	token string
}

// readLines delivers the lines of in, trimmed, until it ends or ctx does.
func readLines(ctx context.Context, in io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case ch <- strings.TrimSpace(sc.Text()):
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

func (p *player) ctx(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+p.token)
}

func (p *player) line(ctx context.Context) (string, error) {
	select {
	case l, ok := <-p.lines:
		if !ok {
			return "", errQuit
		}
		if l == "q" {
			return "", errQuit
		}
		return l, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (p *player) run(ctx context.Context, name string, seats uint32, create bool, join string, wait time.Duration) error {
	s, err := p.c.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: name})
	if err != nil {
		return err
	}
	p.token = s.GetSessionToken()
	fmt.Fprintf(p.out, "signed in as %s (%s)\n", name, s.GetPlayerId())
	var table string
	switch {
	case create:
		table, err = p.host(ctx, seats)
	case join != "":
		table, err = p.join(ctx, join)
	default:
		table, err = p.queue(ctx, seats, wait)
	}
	if err != nil {
		return err
	}
	return p.play(ctx, table)
}

func (p *player) host(ctx context.Context, seats uint32) (string, error) {
	r, err := p.c.CreateTable(p.ctx(ctx), &gatewayv1.CreateTableRequest{Game: p.game, Seats: seats})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(p.out, "table %s open; invite code %s. Type \"bots N\" or \"start\".\n", r.GetTableId(), r.GetInviteCode())
	for {
		l, err := p.line(ctx)
		if err != nil {
			return "", err
		}
		switch f := strings.Fields(l); {
		case len(f) == 2 && f[0] == "bots":
			n, _ := strconv.Atoi(f[1])
			t, err := p.addBots(ctx, r.GetTableId(), uint32(n))
			if err != nil {
				fmt.Fprintf(p.out, "%s\n", describe(err))
				continue
			}
			fmt.Fprintf(p.out, "%d of %d places taken\n", len(t.GetTable().GetPlayers()), t.GetTable().GetCapacity())
		case len(f) == 1 && f[0] == "start":
			if _, err := p.c.StartTable(p.ctx(ctx), &gatewayv1.StartTableRequest{TableId: r.GetTableId()}); err != nil {
				fmt.Fprintf(p.out, "%s\n", describe(err))
				continue
			}
			return r.GetTableId(), nil
		default:
			fmt.Fprintln(p.out, `type "bots N" or "start"`)
		}
	}
}

// addBots adds n bots to table. An UNAVAILABLE answer (a gateway going away) is retried, a few
// times, with the same request id: an attempt that added the bots before its answer was lost is
// answered with the table, not applied twice.
func (p *player) addBots(ctx context.Context, table string, n uint32) (*gatewayv1.AddBotsResponse, error) {
	req := &gatewayv1.AddBotsRequest{TableId: table, Count: n, RequestId: requestID()}
	wait := retryWait
	for attempt := 1; ; attempt++ {
		r, err := p.c.AddBots(p.ctx(ctx), req)
		if status.Code(err) != codes.Unavailable || attempt == maxAttempts {
			return r, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		wait *= 2
	}
}

// Retries of a call answered UNAVAILABLE: up to maxAttempts attempts, the first pause retryWait,
// doubling.
const maxAttempts = 5

var retryWait = 100 * time.Millisecond

func requestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// join takes a place; the Watch stream then waits for the owner to start.
func (p *player) join(ctx context.Context, code string) (string, error) {
	r, err := p.c.JoinTable(p.ctx(ctx), &gatewayv1.JoinTableRequest{InviteCode: code})
	if err != nil {
		return "", err
	}
	id := r.GetTable().GetTableId()
	fmt.Fprintf(p.out, "joined table %s; waiting for its owner to start\n", id)
	return id, nil
}

func (p *player) queue(ctx context.Context, seats uint32, wait time.Duration) (string, error) {
	r, err := p.c.EnqueueTicket(p.ctx(ctx), &gatewayv1.EnqueueTicketRequest{Game: p.game, MinSeats: seats, MaxSeats: seats,
		BotsMayFill: true, MaxWait: durationpb.New(wait)})
	if err != nil {
		return "", err
	}
	s, err := p.c.WatchTicket(p.ctx(ctx), &gatewayv1.WatchTicketRequest{TicketId: r.GetTicketId()})
	if err != nil {
		return "", err
	}
	for {
		u, err := s.Recv()
		if err != nil {
			return "", err
		}
		switch u.GetState() {
		case gatewayv1.TicketState_TICKET_STATE_QUEUED:
			fmt.Fprintf(p.out, "in the queue: %d waiting, %s so far\n", u.GetPlayersWaiting(), u.GetWaited().AsDuration())
		case gatewayv1.TicketState_TICKET_STATE_MATCHED:
			fmt.Fprintf(p.out, "matched: table %s, seat %d\n", u.GetTableId(), u.GetSeat())
			return u.GetTableId(), nil
		case gatewayv1.TicketState_TICKET_STATE_CANCELLED:
			return "", errors.New("the ticket was cancelled")
		}
	}
}

// moves is what the client knows of its seat's legal moves: the newest list its stream brought,
// and the newest table version it has seen (from an event, a list or the answer to its own move).
// A list older than that version is dropped: the table has moved past it, and the stream brings
// the next one if the seat still may act.
type moves struct {
	seen uint64
	list *gatewayv1.LegalActions // nil: none to play
}

// saw notes that the table reached version v.
func (m *moves) saw(v uint64) {
	m.seen = max(m.seen, v)
	if m.list != nil && m.list.GetVersion() < m.seen {
		m.list = nil
	}
}

// offer keeps l unless the table has moved past it or a newer list is held; true when it is a
// list of moves not shown yet. An empty list (the seat no longer may act) forgets the one held.
func (m *moves) offer(l *gatewayv1.LegalActions) bool {
	if l.GetVersion() < m.seen || (m.list != nil && l.GetVersion() < m.list.GetVersion()) {
		return false
	}
	m.seen = l.GetVersion()
	if len(l.GetActions()) == 0 {
		m.list = nil
		return false
	}
	fresh := m.list == nil || !proto.Equal(m.list, l)
	m.list = l
	return fresh
}

// follow reads the Watch stream into msgs until it ends (closing msgs; its error, if any, is in
// errc first) or ctx does.
func follow(ctx context.Context, stream gatewayv1.GatewayService_WatchClient, msgs chan<- *gatewayv1.WatchResponse, errc chan<- error) {
	defer close(msgs)
	for {
		r, err := stream.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) && ctx.Err() == nil {
				errc <- err
			}
			return
		}
		select {
		case msgs <- r:
		case <-ctx.Done():
			return
		}
	}
}

// play follows the table to its end. One loop handles both the stream and what is typed, so the
// moves it knows are never read and changed at once.
func (p *player) play(ctx context.Context, table string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := p.c.Watch(p.ctx(ctx), &gatewayv1.WatchRequest{TableId: table, IncludeLegalActions: true})
	if err != nil {
		return err
	}
	msgs := make(chan *gatewayv1.WatchResponse, 256)
	errc := make(chan error, 1)
	go follow(ctx, stream, msgs, errc)
	var m moves
	dealt := false
	for {
		select {
		case r, ok := <-msgs:
			if !ok {
				select {
				case err := <-errc:
					return err
				default:
					return nil
				}
			}
			if l := r.GetLegalActions(); l != nil {
				if m.offer(l) {
					p.showMoves(l)
				}
				continue
			}
			e := r.GetEvent()
			m.saw(e.GetVersion())
			if p.show(e) {
				return nil
			}
			// The first event (the deal) comes once the table has started.
			if !dealt {
				dealt = true
				if err := p.showView(ctx, table); err != nil {
					return err
				}
			}
		case l, ok := <-p.lines:
			if !ok || l == "q" {
				return errQuit
			}
			p.typed(ctx, table, l, &m)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (p *player) showMoves(l *gatewayv1.LegalActions) {
	fmt.Fprintln(p.out, "your move:")
	for i, a := range l.GetActions() {
		fmt.Fprintf(p.out, "  %d) %s\n", i+1, render(a))
	}
}

// typed handles one line typed during play: "v" shows the view, a number plays that move of the
// list shown (at its version: if the table moved on first, the move is refused as stale and the
// stream lists again). A number typed while no list is known waits for the stream's next one.
func (p *player) typed(ctx context.Context, table, l string, m *moves) {
	if l == "v" {
		if err := p.showView(ctx, table); err != nil {
			fmt.Fprintf(p.out, "%s\n", describe(err))
		}
		return
	}
	if m.list == nil {
		fmt.Fprintln(p.out, "waiting for your turn (v: the view, q: quit)")
		return
	}
	actions := m.list.GetActions()
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 || n > len(actions) {
		fmt.Fprintf(p.out, "type 1 to %d, v or q\n", len(actions))
		return
	}
	v := m.list.GetVersion()
	r, err := p.c.Act(p.ctx(ctx), &gatewayv1.ActRequest{TableId: table, Action: actions[n-1],
		ActionId: fmt.Sprintf("play-%d-%d", v, time.Now().UnixNano()), ExpectedVersion: &v})
	if err != nil {
		// The list stays until the stream shows the table past it: after a stale refusal its
		// events and the new list are on their way; after another refusal it is still the list.
		fmt.Fprintf(p.out, "refused: %s\n", describe(err))
		return
	}
	// Played: the stream lists the next moves if the seat acts again.
	m.list = nil
	m.saw(r.GetVersion())
}

func (p *player) showView(ctx context.Context, table string) error {
	v, err := p.c.GetView(p.ctx(ctx), &gatewayv1.GetViewRequest{TableId: table})
	if err != nil {
		return err
	}
	fmt.Fprintf(p.out, "── view (version %d) ──\n%s\n", v.GetVersion(), renderLong(v.GetView()))
	return nil
}

// show prints an event; true when it ends the table.
func (p *player) show(e *eventsv1.Event) bool {
	who := "all"
	if s, ok := e.GetVisibility().GetAudience().(*eventsv1.Visibility_Seat); ok {
		who = fmt.Sprintf("you (seat %d)", s.Seat)
	}
	if e.GetPayload().MessageIs(&eventsv1.TableFinished{}) {
		f := &eventsv1.TableFinished{}
		_ = e.GetPayload().UnmarshalTo(f)
		fmt.Fprintf(p.out, "\x1b[1mgame over\x1b[0m: %s\n", f.GetOutcome().GetSummary())
		for _, r := range f.GetOutcome().GetResults() {
			mark := ""
			if r.GetWinner() {
				mark = " ★"
			}
			fmt.Fprintf(p.out, "  seat %d: score %d, rank %d%s\n", r.GetSeat(), r.GetScore(), r.GetRank(), mark)
		}
		return true
	}
	fmt.Fprintf(p.out, "\x1b[36m#%d\x1b[0m [%s] %s\n", e.GetSequence(), who, render(e.GetPayload()))
	return false
}

// colours paints the colour names games use in their enums (COLOUR_RED …) in their colour.
var colours = regexp.MustCompile(`\bCOLOUR_(RED|GREEN|YELLOW|BLUE|BLACK|WHITE|PURPLE|ORANGE)\b`)

var ansi = map[string]string{"RED": "31", "GREEN": "32", "YELLOW": "33", "BLUE": "34", "BLACK": "90", "WHITE": "97", "PURPLE": "35", "ORANGE": "38;5;208"}

func paint(s string) string {
	return colours.ReplaceAllStringFunc(s, func(m string) string {
		name := strings.TrimPrefix(m, "COLOUR_")
		return "\x1b[" + ansi[name] + "m" + strings.ToLower(name) + "\x1b[0m"
	})
}

// render is a message on one line: its text form when its type is linked in, else its type name.
func render(a *anypb.Any) string {
	m, err := a.UnmarshalNew()
	if err != nil {
		return string(a.MessageName())
	}
	s := prototext.MarshalOptions{}.Format(m)
	if s == "" {
		return string(m.ProtoReflect().Descriptor().Name())
	}
	return string(m.ProtoReflect().Descriptor().Name()) + " " + paint(s)
}

// renderLong is a view on several lines: the game's own drawing when it is known (viewRenderers),
// else the message's text form.
func renderLong(a *anypb.Any) string {
	m, err := a.UnmarshalNew()
	if err != nil {
		return string(a.MessageName())
	}
	if draw, ok := viewRenderers[m.ProtoReflect().Descriptor().FullName()]; ok {
		return paint(draw(m))
	}
	return paint(prototext.MarshalOptions{Multiline: true, Indent: "  "}.Format(m))
}
