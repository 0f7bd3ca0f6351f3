package play

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"cardroom.dev/client"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	tea "charm.land/bubbletea/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// session is the client's side of the gateway, over the client library (cardroom.dev/client): it
// signs in, finds the table (the seat held, a match, a private table) and follows it on the
// table's Watch, which resumes by itself when the connection is lost. It tells the screen what
// happens with messages on msgs.
type session struct {
	c     *client.Client
	opt   Options
	store store
	msgs  chan tea.Msg

	game string // the table's game, once found

	mu     sync.Mutex
	t      *client.Table // once found
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
	watchMsg struct{ u client.Update }
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

// table is the table found (nil before).
func (s *session) table() *client.Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t
}

func (s *session) setTable(t *client.Table) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t = t
}

// signIn signs in with the device credential kept in the store's directory: the same player run
// after run. A returning player keeps the name they had unless --name gives another.
func (s *session) signIn(ctx context.Context) error {
	r, err := s.c.SignInDevice(ctx, s.store.credentials(), s.opt.Name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.player = r.PlayerID
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
	game, t, resumed, err := s.find(ctx)
	if err != nil {
		s.send(ctx, fatalMsg{err})
		return
	}
	s.game = game
	if err := s.store.saveSeat(seatRecord{Addr: s.opt.Addr, Game: game, Table: t.ID()}); err != nil {
		s.send(ctx, statusMsg(fmt.Sprintf("could not remember the seat: %v", err)))
	}
	s.send(ctx, tableMsg{game: game, table: t.ID(), resumed: resumed, joined: s.opt.Join != ""})
	s.follow(ctx, t)
}

// find is the table to play at: the seat held at a table still in play (unless a private table is
// asked for), else a new one.
func (s *session) find(ctx context.Context) (game string, t *client.Table, resumed bool, err error) {
	if s.opt.Create || s.opt.Join != "" {
		return s.newTable(ctx, s.opt.Game)
	}
	rec, ok, err := s.store.seat(s.opt.Addr, s.opt.Game)
	if err != nil {
		return "", nil, false, fmt.Errorf("the seat remembered in %s: %w", s.store.dir, err)
	}
	if ok {
		t := s.c.Table(rec.Table)
		info, err := t.Info(ctx)
		st := info.GetState()
		switch {
		case err == nil && info.YourSeat != nil && (st == gatewayv1.TableState_TABLE_STATE_PLAYING || st == gatewayv1.TableState_TABLE_STATE_OPEN):
			s.setTable(t)
			if st == gatewayv1.TableState_TABLE_STATE_OPEN && info.GetOwnerPlayerId() == s.player {
				s.send(ctx, lobbyMsg{table: rec.Table, invite: info.GetInviteCode()})
			}
			return rec.Game, t, true, nil
		case err == nil || status.Code(err) == codes.NotFound || status.Code(err) == codes.PermissionDenied:
			// Over, or no longer ours.
			_ = s.store.forgetSeat(rec.Addr, rec.Game, rec.Table)
			s.send(ctx, statusMsg(fmt.Sprintf("table %s is over or no longer yours", rec.Table)))
		default:
			return "", nil, false, err
		}
	}
	if s.opt.Game == "" {
		return "", nil, false, errors.New("no seat to return to: name a game to play (cardroom play <game>)")
	}
	return s.newTable(ctx, s.opt.Game)
}

// newTable opens, joins or is matched to a table of game ("" when joining: the table's).
func (s *session) newTable(ctx context.Context, game string) (string, *client.Table, bool, error) {
	var games *gatewayv1.ListGamesResponse
	if game != "" {
		var err error
		if games, err = s.c.Games(ctx); err != nil {
			return "", nil, false, err
		}
		if !slices.ContainsFunc(games.GetGames(), func(g *gatewayv1.GameInfo) bool { return g.GetGame() == game }) {
			return "", nil, false, fmt.Errorf("the cardroom at %s does not offer %s", s.opt.Addr, game)
		}
	}
	var t *client.Table
	var err error
	switch {
	case s.opt.Create:
		if t, err = s.c.CreateTable(ctx, client.NewTable{Game: game, Seats: s.opt.Seats}); err != nil {
			return "", nil, false, err
		}
		s.setTable(t)
		s.send(ctx, lobbyMsg{table: t.ID(), invite: t.InviteCode()})
	case s.opt.Join != "":
		if t, err = s.c.JoinTable(ctx, s.opt.Join); err != nil {
			return "", nil, false, err
		}
		game = t.Game()
	default:
		t, err = s.queue(ctx, game, games)
	}
	s.setTable(t)
	return game, t, false, err
}

func (s *session) queue(ctx context.Context, game string, games *gatewayv1.ListGamesResponse) (*client.Table, error) {
	// Unless told, the game's usual table and the gateway's wait, as every client asks for them.
	seats, wait := s.opt.Seats, s.opt.Wait
	for _, g := range games.GetGames() {
		if g.GetGame() == game && seats == 0 {
			seats = g.GetUsualSeats()
		}
	}
	if wait == 0 {
		wait = games.GetDefaultMaxWait().AsDuration()
	}
	// The ticket is withdrawn if the player leaves while queued, so no table is matched for them.
	return s.c.Queue(ctx, client.Ticket{Game: game, Seats: seats, BotsMayFill: true, BotLevel: s.opt.Bots, MaxWait: wait,
		Progress: func(u *gatewayv1.WatchTicketResponse) {
			if u.GetState() == gatewayv1.TicketState_TICKET_STATE_QUEUED {
				s.send(ctx, statusMsg(fmt.Sprintf("in the queue for %s: %d waiting, %s so far (bots fill the table after %s)",
					game, u.GetPlayersWaiting(), u.GetWaited().AsDuration().Round(time.Second), wait)))
			}
		}})
}

// follow watches the table from its first event (the screen rebuilds its log from them) until it
// finishes; the library's Watch resumes after the last event seen when the stream breaks, and
// says so (lostMsg).
func (s *session) follow(ctx context.Context, t *client.Table) {
	lost := client.OnDrop(func(err error) { s.send(ctx, lostMsg{err}) })
	for u, err := range t.Watch(ctx, lost) {
		if err != nil {
			if ctx.Err() == nil {
				s.send(ctx, fatalMsg{err})
			}
			return
		}
		s.send(ctx, watchMsg{u})
		if u.Finished != nil {
			_ = s.store.forgetSeat(s.opt.Addr, s.game, t.ID())
		}
	}
}
