package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Games lists the games the cardroom offers (ListGames).
func (c *Client) Games(ctx context.Context) (*gatewayv1.ListGamesResponse, error) {
	var r *gatewayv1.ListGamesResponse
	err := c.retry(ctx, "ListGames", func(ctx context.Context) (err error) {
		r, err = c.plain.ListGames(ctx, &gatewayv1.ListGamesRequest{})
		return err
	})
	return r, err
}

// Ticket is what Queue asks matchmaking for.
type Ticket struct {
	Game string
	// Seats is the number of seats wanted (0: the game's usual table); MaxSeats, when more, makes
	// Seats to MaxSeats acceptable.
	Seats, MaxSeats uint32
	// Options is the game's options message (nil: the defaults).
	Options    proto.Message
	TimeLimits *gamev1.TimeLimits
	// BotsMayFill lets bots take the seats nobody took after MaxWait (0: the gateway's default).
	BotsMayFill bool
	MaxWait     time.Duration
	BotLevel    gamev1.BotLevel
	// Progress, when set, is told each QUEUED update.
	Progress func(*gatewayv1.WatchTicketResponse)
}

// Queue asks for a game with strangers and waits for the match: the table, with the caller's seat.
// The ticket is made once (its request id makes retries safe), its progress is followed on a
// stream opened again when it drops, and it is withdrawn when ctx ends before the match.
func (c *Client) Queue(ctx context.Context, t Ticket) (*Table, error) {
	seats, wait := t.Seats, t.MaxWait
	if seats == 0 {
		gs, err := c.Games(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs.GetGames() {
			if g.GetGame() == t.Game {
				seats = g.GetUsualSeats()
			}
		}
	}
	req := &gatewayv1.EnqueueTicketRequest{Game: t.Game, MinSeats: seats, MaxSeats: max(seats, t.MaxSeats),
		TimeLimits: t.TimeLimits, BotsMayFill: t.BotsMayFill, BotLevel: t.BotLevel, RequestId: newID("q-")}
	if wait > 0 {
		req.MaxWait = durationpb.New(wait)
	}
	if t.Options != nil {
		a, err := anypb.New(t.Options)
		if err != nil {
			return nil, fmt.Errorf("options: %w", err)
		}
		req.Options = a
	}
	var r *gatewayv1.EnqueueTicketResponse
	if err := c.retry(ctx, "EnqueueTicket", func(ctx context.Context) (err error) {
		r, err = c.api.EnqueueTicket(ctx, req)
		return err
	}); err != nil {
		return nil, err
	}
	ticket := r.GetTicketId()
	matched, err := c.followTicket(ctx, ticket, t.Progress)
	if err != nil {
		if ctx.Err() != nil {
			// Taken back, so that no table is matched for a player who left.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			_, _ = c.api.CancelTicket(cctx, &gatewayv1.CancelTicketRequest{TicketId: ticket})
		}
		return nil, err
	}
	tb := c.Table(matched.GetTableId())
	tb.game = t.Game
	if matched.Seat != nil {
		tb.setSeat(int(matched.GetSeat()))
	}
	return tb, nil
}

// ErrTicketCancelled is Queue's error when the ticket was cancelled (by a party member, or because
// its table could not be dealt).
var ErrTicketCancelled = errors.New("the ticket was cancelled")

// followTicket follows the ticket's stream to its match, opening it again when it drops.
func (c *Client) followTicket(ctx context.Context, ticket string, progress func(*gatewayv1.WatchTicketResponse)) (*gatewayv1.WatchTicketResponse, error) {
	p := c.opt.retry.start()
	for {
		m, err := c.watchTicket(ctx, ticket, progress, p)
		if m != nil || err == nil {
			return m, err
		}
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case status.Code(err) == codes.Unauthenticated:
			if rerr := c.renewForStream(ctx); rerr != nil {
				return nil, err
			}
		case !Retryable(err):
			return nil, err
		}
		if werr := p.wait(ctx); werr != nil {
			return nil, werr
		}
	}
}

func (c *Client) watchTicket(ctx context.Context, ticket string, progress func(*gatewayv1.WatchTicketResponse), p *pauses) (*gatewayv1.WatchTicketResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.api.WatchTicket(ctx, &gatewayv1.WatchTicketRequest{TicketId: ticket}, waitForReady)
	if err != nil {
		return nil, err
	}
	for {
		u, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return nil, status.Error(codes.Unavailable, "the ticket's stream ended before its match")
		}
		if err != nil {
			return nil, err
		}
		p.reset()
		switch u.GetState() {
		case gatewayv1.TicketState_TICKET_STATE_MATCHED:
			return u, nil
		case gatewayv1.TicketState_TICKET_STATE_CANCELLED:
			return nil, ErrTicketCancelled
		default:
			if progress != nil {
				progress(u)
			}
		}
	}
}

// NewTable is what CreateTable opens.
type NewTable struct {
	Game string
	// Seats is the table's capacity (0: the game's maximum).
	Seats         uint32
	Options       proto.Message // nil: the game's defaults
	TimeLimits    *gamev1.TimeLimits
	TakeoverLevel gamev1.BotLevel
	Public        bool
}

// CreateTable opens a private table (public with NewTable.Public); the caller takes its first place
// and Table.InviteCode is the code others join with. Created once: retries carry the same request id.
func (c *Client) CreateTable(ctx context.Context, n NewTable) (*Table, error) {
	req := &gatewayv1.CreateTableRequest{Game: n.Game, Seats: n.Seats, TimeLimits: n.TimeLimits,
		TakeoverLevel: n.TakeoverLevel, Public: n.Public, RequestId: newID("c-")}
	if n.Options != nil {
		a, err := anypb.New(n.Options)
		if err != nil {
			return nil, fmt.Errorf("options: %w", err)
		}
		req.Options = a
	}
	var r *gatewayv1.CreateTableResponse
	if err := c.retry(ctx, "CreateTable", func(ctx context.Context) (err error) {
		r, err = c.api.CreateTable(ctx, req)
		return err
	}); err != nil {
		return nil, err
	}
	t := c.Table(r.GetTableId())
	t.setInfo(r.GetTable())
	return t, nil
}

// JoinTable takes a place at a private table by its invite code (retried safely: a player already
// there is answered the table as it is).
func (c *Client) JoinTable(ctx context.Context, inviteCode string) (*Table, error) {
	return c.join(ctx, &gatewayv1.JoinTableRequest{InviteCode: inviteCode})
}

// JoinPublicTable takes a place at an open public table by its id (ListTables).
func (c *Client) JoinPublicTable(ctx context.Context, tableID string) (*Table, error) {
	return c.join(ctx, &gatewayv1.JoinTableRequest{TableId: tableID})
}

func (c *Client) join(ctx context.Context, req *gatewayv1.JoinTableRequest) (*Table, error) {
	var r *gatewayv1.JoinTableResponse
	if err := c.retry(ctx, "JoinTable", func(ctx context.Context) (err error) {
		r, err = c.api.JoinTable(ctx, req)
		return err
	}); err != nil {
		return nil, err
	}
	t := c.Table(r.GetTable().GetTableId())
	t.setInfo(r.GetTable())
	return t, nil
}
