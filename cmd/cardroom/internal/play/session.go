package play

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	tea "charm.land/bubbletea/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// session is the client's side of the gateway: it signs in, finds the table (the seat held, a match,
// a private table) and follows it on a Watch stream, reconnecting when the connection is lost.
// It tells the screen what happens with messages on msgs.
type session struct {
	c     gatewayv1.GatewayServiceClient
	opt   Options
	store store
	msgs  chan tea.Msg

	game string // the table's game, once found

	mu     sync.Mutex
	token  string
	player string
}

// Messages from the session to the screen.
type (
	statusMsg   string
	signedInMsg struct{ player string }
	// lobbyMsg: the player's own private table is open; it adds bots and starts it.
	lobbyMsg struct{ table, invite string }
	// tableMsg: the player holds a seat at table (resumed: from an earlier run).
	tableMsg struct {
		game, table string
		// resumed: a seat held before; joined: a place at a private table taken by its code.
		resumed, joined bool
	}
	watchMsg struct{ r *gatewayv1.WatchResponse }
	// lostMsg: the stream broke; the session reconnects.
	lostMsg  struct{ err error }
	fatalMsg struct{ err error }
)

func (s *session) send(ctx context.Context, m tea.Msg) {
	select {
	case s.msgs <- m:
	case <-ctx.Done():
	}
}

// auth is ctx with the session's token.
func (s *session) auth(ctx context.Context) context.Context {
	s.mu.Lock()
	t := s.token
	s.mu.Unlock()
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+t)
}

func (s *session) signIn(ctx context.Context) error {
	cred, made, err := s.store.credential()
	if err != nil {
		return fmt.Errorf("the credential in %s: %w", s.store.dir, err)
	}
	// A returning player keeps the name they had unless --name gives another; a new one needs one.
	name := s.opt.Name
	if name == "" && made {
		name = defaultName
	}
	r, err := s.c.SignIn(ctx, signInRequest(name, cred))
	if name == "" && status.Code(err) == codes.InvalidArgument {
		// A cardroom that has not seen this device yet (another address, a fresh store).
		r, err = s.c.SignIn(ctx, signInRequest(defaultName, cred))
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.token, s.player = r.GetSessionToken(), r.GetPlayerId()
	s.mu.Unlock()
	return nil
}

// run does the session's work until the table finishes or ctx ends.
func (s *session) run(ctx context.Context) {
	if err := s.signIn(ctx); err != nil {
		s.send(ctx, fatalMsg{err})
		return
	}
	s.send(ctx, signedInMsg{s.player})
	game, table, resumed, err := s.find(ctx)
	if err != nil {
		s.send(ctx, fatalMsg{err})
		return
	}
	s.game = game
	if err := s.store.saveSeat(seatRecord{Addr: s.opt.Addr, Game: game, Table: table}); err != nil {
		s.send(ctx, statusMsg(fmt.Sprintf("could not remember the seat: %v", err)))
	}
	s.send(ctx, tableMsg{game: game, table: table, resumed: resumed, joined: s.opt.Join != ""})
	s.follow(ctx, table)
}

// find is the table to play at: the seat held at a table still in play (unless a private table is
// asked for), else a new one.
func (s *session) find(ctx context.Context) (game, table string, resumed bool, err error) {
	if s.opt.Create || s.opt.Join != "" {
		return s.newTable(ctx, s.opt.Game)
	}
	rec, ok, err := s.store.seat(s.opt.Addr, s.opt.Game)
	if err != nil {
		return "", "", false, fmt.Errorf("the seat remembered in %s: %w", s.store.dir, err)
	}
	if ok {
		t, err := s.c.GetTable(s.auth(ctx), &gatewayv1.GetTableRequest{TableId: rec.Table})
		st := t.GetTable().GetState()
		switch {
		case err == nil && t.GetTable().YourSeat != nil && (st == gatewayv1.TableState_TABLE_STATE_PLAYING || st == gatewayv1.TableState_TABLE_STATE_OPEN):
			if st == gatewayv1.TableState_TABLE_STATE_OPEN && t.GetTable().GetOwnerPlayerId() == s.player {
				s.send(ctx, lobbyMsg{table: rec.Table, invite: t.GetTable().GetInviteCode()})
			}
			return rec.Game, rec.Table, true, nil
		case err == nil || status.Code(err) == codes.NotFound || status.Code(err) == codes.PermissionDenied:
			// Over, or no longer ours.
			_ = s.store.forgetSeat(rec.Addr, rec.Game, rec.Table)
			s.send(ctx, statusMsg(fmt.Sprintf("table %s is over or no longer yours", rec.Table)))
		default:
			return "", "", false, err
		}
	}
	if s.opt.Game == "" {
		return "", "", false, errors.New("no seat to return to: name a game to play (cardroom play <game>)")
	}
	return s.newTable(ctx, s.opt.Game)
}

// newTable opens, joins or is matched to a table of game ("" when joining: the table's).
func (s *session) newTable(ctx context.Context, game string) (string, string, bool, error) {
	if game != "" {
		games, err := s.c.ListGames(s.auth(ctx), &gatewayv1.ListGamesRequest{})
		if err != nil {
			return "", "", false, err
		}
		if !slices.ContainsFunc(games.GetGames(), func(g *gatewayv1.GameInfo) bool { return g.GetGame() == game }) {
			return "", "", false, fmt.Errorf("the cardroom at %s does not offer %s", s.opt.Addr, game)
		}
	}
	var table string
	var err error
	switch {
	case s.opt.Create:
		req := &gatewayv1.CreateTableRequest{Game: game, Seats: s.opt.Seats, RequestId: "play-" + randomHex(12)}
		var r *gatewayv1.CreateTableResponse
		err := once(ctx, func() (err error) { r, err = s.c.CreateTable(s.auth(ctx), req); return err })
		if err != nil {
			return "", "", false, err
		}
		table = r.GetTableId()
		s.send(ctx, lobbyMsg{table: table, invite: r.GetInviteCode()})
	case s.opt.Join != "":
		r, err := s.c.JoinTable(s.auth(ctx), &gatewayv1.JoinTableRequest{InviteCode: s.opt.Join})
		if err != nil {
			return "", "", false, err
		}
		table, game = r.GetTable().GetTableId(), r.GetTable().GetGame()
	default:
		table, err = s.queue(ctx, game)
	}
	return game, table, false, err
}

func (s *session) queue(ctx context.Context, game string) (string, error) {
	// Unless told, the game's usual table and the gateway's wait, as every client asks for them.
	seats, wait := s.opt.Seats, s.opt.Wait
	if seats == 0 || wait == 0 {
		gs, err := s.c.ListGames(ctx, &gatewayv1.ListGamesRequest{})
		if err != nil {
			return "", err
		}
		for _, g := range gs.GetGames() {
			if g.GetGame() == game && seats == 0 {
				seats = g.GetUsualSeats()
			}
		}
		if wait == 0 {
			wait = gs.GetDefaultMaxWait().AsDuration()
		}
	}
	req := &gatewayv1.EnqueueTicketRequest{Game: game, MinSeats: seats, MaxSeats: seats, BotsMayFill: true,
		BotLevel: s.opt.Bots, MaxWait: durationpb.New(wait), RequestId: "play-" + randomHex(12)}
	var r *gatewayv1.EnqueueTicketResponse
	err := once(ctx, func() (err error) { r, err = s.c.EnqueueTicket(s.auth(ctx), req); return err })
	if err != nil {
		return "", err
	}
	// A player who leaves while queued takes the ticket back, so no table is matched for them.
	defer func() {
		if ctx.Err() != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			_, _ = s.c.CancelTicket(s.auth(cctx), &gatewayv1.CancelTicketRequest{TicketId: r.GetTicketId()})
		}
	}()
	st, err := s.c.WatchTicket(s.auth(ctx), &gatewayv1.WatchTicketRequest{TicketId: r.GetTicketId()})
	if err != nil {
		return "", err
	}
	for {
		u, err := st.Recv()
		if err != nil {
			return "", err
		}
		switch u.GetState() {
		case gatewayv1.TicketState_TICKET_STATE_QUEUED:
			s.send(ctx, statusMsg(fmt.Sprintf("in the queue for %s: %d waiting, %s so far (bots fill the table after %s)",
				game, u.GetPlayersWaiting(), u.GetWaited().AsDuration().Round(time.Second), wait)))
		case gatewayv1.TicketState_TICKET_STATE_MATCHED:
			return u.GetTableId(), nil
		case gatewayv1.TicketState_TICKET_STATE_CANCELLED:
			return "", errors.New("the ticket was cancelled")
		}
	}
}

// once makes a call that creates something (its request carries a request id) and calls it again,
// with the same id, when the answer was lost on the way (UNAVAILABLE, or none in time), up to
// three times: the gateway applies a request id once, so a retry answers what the first call made.
func once(ctx context.Context, call func() error) error {
	wait := retryWait
	for attempt := 0; ; attempt++ {
		err := call()
		if c := status.Code(err); attempt >= 3 || c != codes.Unavailable && c != codes.DeadlineExceeded {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = min(2*wait, maxRetryWait)
	}
}

// Reconnecting: the first pause retryWait, doubling up to maxRetryWait.
var (
	retryWait    = 100 * time.Millisecond
	maxRetryWait = 5 * time.Second
)

// follow watches table from its first event (the screen rebuilds its log from them) until it
// finishes, reconnecting after the last event seen when the stream breaks.
func (s *session) follow(ctx context.Context, table string) {
	var after uint64
	wait := retryWait
	for {
		err := s.watch(ctx, table, &after, &wait)
		if err == nil || ctx.Err() != nil {
			return
		}
		switch status.Code(err) {
		case codes.Unauthenticated:
			if err := s.signIn(ctx); err != nil {
				s.send(ctx, fatalMsg{err})
				return
			}
		case codes.NotFound, codes.PermissionDenied, codes.InvalidArgument:
			s.send(ctx, fatalMsg{err})
			return
		}
		s.send(ctx, lostMsg{err})
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return
		}
		wait = min(2*wait, maxRetryWait)
	}
}

// watch follows one Watch stream; nil once the table finished.
func (s *session) watch(ctx context.Context, table string, after *uint64, wait *time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := s.c.Watch(s.auth(ctx), &gatewayv1.WatchRequest{TableId: table, AfterSequence: *after, IncludeLegalActions: true})
	if err != nil {
		return err
	}
	for {
		r, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return status.Error(codes.Unavailable, "the stream ended")
		}
		if err != nil {
			return err
		}
		*wait = retryWait
		if e := r.GetEvent(); e != nil {
			*after = max(*after, e.GetSequence())
		}
		s.send(ctx, watchMsg{r})
		if r.GetEvent().GetPayload().MessageIs(&eventsv1.TableFinished{}) {
			_ = s.store.forgetSeat(s.opt.Addr, s.game, table)
			return nil
		}
	}
}
