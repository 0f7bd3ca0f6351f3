package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"time"

	"cardroom.dev/gateway/lobby"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// maxTicketWait bounds the longest wait a ticket may ask for.
const maxTicketWait = 10 * time.Minute

// ticketRetention is how long a matched or cancelled ticket can still be watched.
const ticketRetention = time.Hour

func (s *Server) EnqueueTicket(ctx context.Context, req *gatewayv1.EnqueueTicketRequest) (*gatewayv1.EnqueueTicketResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := s.enqueue(ctx, sess, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) enqueue(ctx context.Context, sess Session, req *gatewayv1.EnqueueTicketRequest) (*gatewayv1.EnqueueTicketResponse, error) {
	d, err := s.describe(ctx, req.GetGame())
	if err != nil {
		return nil, err
	}
	lo, hi := int(req.GetMinSeats()), int(req.GetMaxSeats())
	if lo == 0 {
		lo = int(d.GetMinSeats())
	}
	if hi == 0 {
		hi = int(d.GetMaxSeats())
	}
	if lo > hi || lo < int(d.GetMinSeats()) || hi > int(d.GetMaxSeats()) {
		return nil, refusal.Invalid("min_seats", refusal.InvalidField, "%s is played by %d to %d players", d.GetGame(), d.GetMinSeats(), d.GetMaxSeats())
	}
	party := max(int(req.GetPartySize()), 1)
	if party > hi {
		return nil, refusal.Invalid("party_size", refusal.InvalidField, "a party of %d does not fit at %d seats", party, hi)
	}
	opts, err := checkOptions(d, req.GetOptions())
	if err != nil {
		return nil, err
	}
	wait := req.GetMaxWait().AsDuration()
	if wait == 0 {
		wait = s.opt.TicketMaxWait
	}
	if wait < 0 || wait > maxTicketWait {
		return nil, refusal.Invalid("max_wait", refusal.InvalidField, "max_wait must be between 0 and %s", maxTicketWait)
	}
	perAction := req.GetTimeLimits().GetPerAction().AsDuration()
	if perAction < 0 {
		return nil, refusal.Invalid("time_limits.per_action", refusal.InvalidField, "the time per action cannot be negative")
	}
	if err := refusal.CheckBotLevel("bot_level", req.GetBotLevel()); err != nil {
		return nil, err
	}
	if len(req.GetRequestId()) > maxRequestID {
		return nil, refusal.Invalid("request_id", refusal.InvalidField, "request_id must be at most %d bytes", maxRequestID)
	}
	h := sha256.New()
	h.Write([]byte(req.GetGame() + "\x00" + perAction.String() + "\x00"))
	h.Write(opts)
	now := s.now()
	t := lobby.Ticket{
		ID: newID("k-"), Pool: hex.EncodeToString(h.Sum(nil)[:12]), Game: req.GetGame(),
		Players: []lobby.Player{{ID: sess.Player, Name: sess.Name}}, PartySize: party, MinSeats: lo, MaxSeats: hi,
		BotsMayFill: req.GetBotsMayFill(), MaxWait: wait, Options: opts, PerAction: perAction,
		BotLevel: int(levelOf(req.GetBotLevel())), CreatedAt: now,
		State: lobby.TicketForming,
	}
	if party == 1 {
		t.State, t.QueuedAt = lobby.TicketQueued, now
	}
	if rid := req.GetRequestId(); rid != "" {
		once := lobby.Once{Key: onceKey(sess, rid), Call: callDigest("EnqueueTicket", req), ID: t.ID}
		prior, found, err := s.lobby.CreateTicketOnce(ctx, t, once, s.requestIDKeep())
		if err != nil {
			return nil, err
		}
		if found {
			// A retry: the ticket the first call made, whatever became of it since.
			if prior.Call != once.Call {
				return nil, requestIDReused()
			}
			return &gatewayv1.EnqueueTicketResponse{TicketId: prior.ID}, nil
		}
	} else if err := s.lobby.CreateTicket(ctx, t); err != nil {
		return nil, err
	}
	s.kickMatcher()
	return &gatewayv1.EnqueueTicketResponse{TicketId: t.ID}, nil
}

func (s *Server) kickMatcher() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// updateTicket applies fn to the ticket and writes it, again on a lost race.
func (s *Server) updateTicket(ctx context.Context, id string, fn func(t *lobby.Ticket) (time.Duration, error)) (*lobby.Ticket, error) {
	for range 32 {
		t, err := s.lobby.LoadTicket(ctx, id)
		if errors.Is(err, lobby.ErrNotFound) {
			return nil, refusal.New(codes.NotFound, refusal.TicketNotFound, "no such ticket")
		}
		if err != nil {
			return nil, err
		}
		ttl, err := fn(&t)
		if err != nil {
			return nil, err
		}
		err = s.lobby.UpdateTicket(ctx, t, ttl)
		if errors.Is(err, lobby.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		t.Version++
		s.notify(s.bus.Subjects().Ticket(id))
		return &t, nil
	}
	return nil, lobby.ErrConflict
}

func onTicket(t *lobby.Ticket, player string) bool {
	return slices.ContainsFunc(t.Players, func(p lobby.Player) bool { return p.ID == player })
}

func (s *Server) JoinTicket(ctx context.Context, req *gatewayv1.JoinTicketRequest) (*gatewayv1.JoinTicketResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := checkID("ticket_id", req.GetTicketId()); err != nil {
		return nil, err
	}
	_, err = s.updateTicket(ctx, req.GetTicketId(), func(t *lobby.Ticket) (time.Duration, error) {
		if onTicket(t, sess.Player) {
			return 0, errAlready // a retry whose answer was lost: joined already
		}
		if t.State != lobby.TicketForming || len(t.Players) >= t.PartySize {
			return 0, refusal.New(codes.FailedPrecondition, refusal.TicketClosed, "this ticket's party is complete")
		}
		t.Players = append(t.Players, lobby.Player{ID: sess.Player, Name: sess.Name})
		if len(t.Players) == t.PartySize {
			t.State, t.QueuedAt = lobby.TicketQueued, s.now()
		}
		return 0, nil
	})
	if errors.Is(err, errAlready) {
		return &gatewayv1.JoinTicketResponse{}, nil
	}
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	s.kickMatcher()
	return &gatewayv1.JoinTicketResponse{}, nil
}

func (s *Server) CancelTicket(ctx context.Context, req *gatewayv1.CancelTicketRequest) (*gatewayv1.CancelTicketResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := checkID("ticket_id", req.GetTicketId()); err != nil {
		return nil, err
	}
	_, err = s.updateTicket(ctx, req.GetTicketId(), func(t *lobby.Ticket) (time.Duration, error) {
		if !onTicket(t, sess.Player) {
			return 0, refusal.New(codes.NotFound, refusal.TicketNotFound, "no such ticket")
		}
		if t.State != lobby.TicketForming && t.State != lobby.TicketQueued {
			return 0, refusal.New(codes.FailedPrecondition, refusal.TicketClosed, "the ticket is already matched or cancelled")
		}
		t.State = lobby.TicketCancelled
		return ticketRetention, nil
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &gatewayv1.CancelTicketResponse{}, nil
}

func (s *Server) WatchTicket(req *gatewayv1.WatchTicketRequest, stream grpc.ServerStreamingServer[gatewayv1.WatchTicketResponse]) error {
	ctx := stream.Context()
	sess, err := s.begin(ctx, req)
	if err != nil {
		return err
	}
	return s.toStatus(ctx, s.watchTicket(ctx, sess, req.GetTicketId(), stream))
}

func (s *Server) watchTicket(ctx context.Context, sess Session, id string, stream grpc.ServerStreamingServer[gatewayv1.WatchTicketResponse]) error {
	if err := checkID("ticket_id", id); err != nil {
		return err
	}
	wake, stop, err := s.subscribe(s.bus.Subjects().Ticket(id))
	if err != nil {
		return err
	}
	defer stop()
	progress := time.NewTicker(time.Second)
	defer progress.Stop()
	var last *gatewayv1.WatchTicketResponse
	for {
		t, err := s.lobby.LoadTicket(ctx, id)
		if errors.Is(err, lobby.ErrNotFound) || err == nil && !onTicket(&t, sess.Player) {
			return refusal.New(codes.NotFound, refusal.TicketNotFound, "no such ticket")
		}
		if err != nil {
			return err
		}
		msg := &gatewayv1.WatchTicketResponse{TicketId: id, Players: uint32(len(t.Players)), PartySize: uint32(t.PartySize)}
		final := false
		var end error // how the stream ends when final
		switch t.State {
		case lobby.TicketForming:
			msg.State = gatewayv1.TicketState_TICKET_STATE_FORMING
		case lobby.TicketQueued:
			msg.State = gatewayv1.TicketState_TICKET_STATE_QUEUED
			msg.Waited = durationpb.New(s.now().Sub(t.QueuedAt).Truncate(time.Second))
			n, err := s.lobby.Waiting(ctx, t.Pool)
			if err != nil {
				return err
			}
			msg.PlayersWaiting = uint32(n)
		case lobby.TicketCancelled:
			msg.State, final = gatewayv1.TicketState_TICKET_STATE_CANCELLED, true
			if t.Refused != "" {
				// Cancelled because the game refused the table: the stream ends with the reason.
				end = refusal.New(codes.InvalidArgument, refusal.TicketRefused, "the game refused the matched table: %s", t.Refused)
			}
		case lobby.TicketMatched:
			// Matched once dealt. Until then (the table being formed and dealt by its owner, who
			// may also send the ticket back to the queue) it says queued.
			msg.State = gatewayv1.TicketState_TICKET_STATE_QUEUED
			tb, err := s.lobby.LoadTable(ctx, t.TableID)
			if err != nil && !errors.Is(err, lobby.ErrNotFound) {
				return err
			}
			if err == nil && (tb.State == lobby.TableDealt || tb.State == lobby.TableFinished) {
				msg.State, msg.TableId, final = gatewayv1.TicketState_TICKET_STATE_MATCHED, tb.ID, true
				if i := tb.SeatOf(sess.Player); i >= 0 {
					msg.Seat = proto.Uint32(uint32(i))
				}
			}
		}
		if last == nil || !proto.Equal(last, msg) {
			if err := stream.Send(msg); err != nil {
				return err
			}
			last = msg
		}
		if final {
			return end
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		case <-progress.C:
		}
	}
}

// requeue puts a ticket matched to table back in the queue, where it keeps its place (for the
// owner of a table that will not be dealt).
func (s *Server) requeue(ctx context.Context, id, table string) error {
	_, err := s.updateTicket(ctx, id, func(tk *lobby.Ticket) (time.Duration, error) {
		if tk.State != lobby.TicketMatched || tk.TableID != table {
			return 0, errAlready
		}
		tk.State, tk.TableID = lobby.TicketQueued, ""
		return 0, nil
	})
	if err != nil && !errors.Is(err, errAlready) && status.Code(err) != codes.NotFound {
		return err
	}
	return nil
}

// refuseTicket cancels a ticket matched to table, a table the game refused to deal, saying why.
func (s *Server) refuseTicket(ctx context.Context, id, table, why string) error {
	_, err := s.updateTicket(ctx, id, func(tk *lobby.Ticket) (time.Duration, error) {
		if tk.State != lobby.TicketMatched || tk.TableID != table {
			return 0, errAlready
		}
		tk.State, tk.TableID, tk.Refused = lobby.TicketCancelled, "", why
		return ticketRetention, nil
	})
	if err != nil && !errors.Is(err, errAlready) && status.Code(err) != codes.NotFound {
		return err
	}
	return nil
}

// runMatcher matches every pool's queue, at each interval while any queue holds tickets and when
// a ticket enters a queue. While every queue is empty its interval is idleMatchChecks times longer:
// a ticket entered through this replica wakes it at once, and one entered through another is
// matched by that replica's matcher (so the slow look only covers a replica that died between
// queueing a ticket and matching it).
func (s *Server) runMatcher(ctx context.Context) {
	tick := time.NewTicker(s.opt.MatchInterval)
	defer tick.Stop()
	idle := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-s.kick:
		}
		if busy := s.matchAll(ctx); busy == idle {
			idle = !busy
			interval := s.opt.MatchInterval
			if idle {
				interval *= idleMatchChecks
			}
			tick.Reset(interval)
		}
	}
}

// idleMatchChecks: while every queue is empty the matcher looks once in this many intervals (2 s
// at the default 200 ms), not at each: listing the queues was a fifth of an idle server's work.
const idleMatchChecks = 10

// matchAll matches every pool's queue; false when there was none to match (every queue empty).
func (s *Server) matchAll(ctx context.Context) bool {
	pools, err := s.lobby.Pools(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.WarnContext(ctx, "listing the queues failed", "error", err)
		}
		return true // not known to be empty: look again at the next interval
	}
	for _, p := range pools {
		for ctx.Err() == nil {
			m, ok, err := s.lobby.ClaimMatch(ctx, p, newID("t-"), s.now())
			if err != nil {
				s.log.WarnContext(ctx, "matching failed", "pool", p, "error", err)
				break
			}
			if !ok {
				break
			}
			// The claim put the table in the owned set: its owner forms and deals it.
			if s.halted(m.TableID, stepMatched) {
				return true
			}
			s.kickDriver()
		}
	}
	return len(pools) > 0
}
