package gateway

import (
	"context"
	"errors"
	"time"

	"cardroom.dev/gateway/lobby"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/refusal"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// A table's lifecycle (docs/architecture-details.md draws it):
//
//	open ──StartTable──▶ starting ──deal──▶ dealt ──TableFinished──▶ finished ──retention──▶ expired
//	  ▲                   │  │
//	  └──refused/timeout──┘  └──(matched table) refused/timeout──▶ closing ──tickets out──▶ closed
//
// and a matched table starts at the claim of its tickets, before its record exists. Requests
// (StartTable, the matcher's claim) only record a transition's start; every transition after it is
// carried out by the table's owner: the one replica holding the table's lease in the lobby's owned
// set (runDriver claims, renews and loses leases; own is the loop). A replica that dies anywhere
// leaves the table in the set with a lease that runs out, and the next owner takes it from the
// recorded state: each step is idempotent (the rules service creates a table id once; lobby writes
// compare and set on the state they leave).

// Steps of a start after which a test may stop a replica (Options.fault).
const (
	stepMatched  = "matched"  // the matcher claimed the tickets
	stepRecorded = "recorded" // the start is recorded with its seats
	stepCreated  = "created"  // the rules service created the table
	stepDealt    = "dealt"    // the lobby records the table dealt
)

// errHalted ends an owner's loop at a fault point: the replica stops there as if it died.
var errHalted = errors.New("halted at a fault point")

// halted reports whether the fault hook stops this replica after step of table.
func (s *Server) halted(table, step string) bool {
	return s.opt.fault != nil && s.opt.fault(table, step)
}

// startTimeout is how long a recorded start may stay undealt (the rules service out of reach)
// before its owner gives it up: a private table opens again, a matched table's tickets go back to
// the queue.
const startTimeout = 15 * time.Second

// startWait bounds how long StartTable waits for the owner's deal before answering UNAVAILABLE
// (StartTable again waits again).
const startWait = 10 * time.Second

// own carries out table id's lifecycle while this replica holds its lease: it forms a matched
// table from its match, deals a starting table (or gives the start up), closes a closing one,
// drives a dealt one and records its end. It returns when nothing is left for an owner to do, or
// when ctx ends (the lease lost, the replica stopping).
func (s *Server) own(ctx context.Context, id string) {
	wait := ownRetryMin
	for ctx.Err() == nil {
		done, err := s.ownStep(ctx, id)
		if done || errors.Is(err, errHalted) {
			return
		}
		if err == nil {
			wait = ownRetryMin
			continue
		}
		if ctx.Err() != nil {
			return
		}
		s.log.WarnContext(ctx, "a table's lifecycle step failed; trying again", "table", id, "error", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, ownRetryMax)
	}
}

// The owner's retries after a failed step back off between these.
const (
	ownRetryMin = 100 * time.Millisecond
	ownRetryMax = 500 * time.Millisecond
)

// ownStep does the next step of table id's lifecycle; done when there is nothing left to do.
func (s *Server) ownStep(ctx context.Context, id string) (done bool, err error) {
	t, err := s.lobby.LoadTable(ctx, id)
	if errors.Is(err, lobby.ErrNotFound) {
		return s.formMatch(ctx, id)
	}
	if err != nil {
		return false, err
	}
	switch t.State {
	case lobby.TableStarting:
		return false, s.dealStep(ctx, &t)
	case lobby.TableClosing:
		return false, s.closeStep(ctx, &t)
	case lobby.TableDealt:
		err := s.drive(ctx, id)
		return err == nil, err
	case lobby.TableFinished, lobby.TableClosed:
		// Over: its last write took it out of the owned set; forget the rest.
		return true, s.lobby.DropDrive(ctx, id)
	}
	// Open again (its start given up): the write took it out of the set, and a new start puts it
	// back, so the set is left alone here.
	return true, nil
}

// formMatch writes the record of a matched table from its match: the tickets' players, bots for
// the other seats, in a random order, recorded as starting. done when there is no match (the
// table expired, or was never more than an entry).
func (s *Server) formMatch(ctx context.Context, id string) (bool, error) {
	m, err := s.lobby.LoadMatch(ctx, id)
	if errors.Is(err, lobby.ErrNotFound) {
		return true, s.lobby.DropDrive(ctx, id)
	}
	if err != nil {
		return false, err
	}
	var tickets []lobby.Ticket
	var players []lobby.Player
	for _, tid := range m.Tickets {
		tk, err := s.lobby.LoadTicket(ctx, tid)
		if errors.Is(err, lobby.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if tk.State != lobby.TicketMatched || tk.TableID != id {
			continue
		}
		tickets = append(tickets, tk)
		players = append(players, tk.Players...)
	}
	if len(tickets) == 0 {
		return true, s.lobby.DropDrive(ctx, id)
	}
	first := tickets[0]
	if n := m.Seats - len(players); n > 0 {
		// The bots take the level of the oldest ticket: its wait running out is what lets them fill.
		players = append(players, bots(n, 0, storedLevel(first.BotLevel))...)
	}
	now := s.now()
	players = distinctNames(players)
	// A matched table is public: strangers' games are there to watch and replay.
	t := lobby.Table{ID: id, Game: first.Game, State: lobby.TableStarting, Capacity: m.Seats, Players: players,
		Seats: shuffled(players), Options: first.Options, PerAction: first.PerAction, CreatedAt: now,
		StartedAt: now, Deadline: now.Add(startTimeout), Public: true}
	for _, tk := range tickets {
		t.Tickets = append(t.Tickets, tk.ID)
	}
	err = s.lobby.CreateTable(ctx, t, playingTableTTL)
	if errors.Is(err, lobby.ErrExists) {
		return false, nil // written by an earlier owner: go on from it
	}
	if err != nil {
		return false, err
	}
	for _, tk := range tickets {
		s.metrics.queueWait.Record(ctx, now.Sub(tk.QueuedAt).Seconds())
	}
	s.notify(s.bus.Subjects().TableNotice(id))
	if s.halted(id, stepRecorded) {
		return false, errHalted
	}
	return false, nil
}

// dealStep deals a starting table with its recorded seats and records it dealt; a deal the game
// refuses for good, or one not made by the start's deadline, gives the start up.
func (s *Server) dealStep(ctx context.Context, t *lobby.Table) error {
	if !t.Deadline.IsZero() && s.now().After(t.Deadline) {
		return s.giveUp(ctx, t, status.New(codes.Unavailable, "the game's service did not deal the table in time; start it again"))
	}
	if err := s.create(ctx, t); err != nil {
		if undealable(err) {
			return s.giveUp(ctx, t, status.Convert(err))
		}
		return err // again, until the deadline
	}
	if s.halted(t.ID, stepCreated) {
		return errHalted
	}
	now := s.now()
	for i, p := range t.Seats {
		if !p.Bot {
			// The absence grace starts now: players have that long to open their Watch.
			if err := s.lobby.Touch(ctx, t.ID, i, now); err != nil {
				return err
			}
		}
	}
	for _, tid := range t.Tickets {
		// Matched tickets stay readable for a while, then expire.
		_, err := s.updateTicket(ctx, tid, func(tk *lobby.Ticket) (time.Duration, error) {
			if tk.State != lobby.TicketMatched || tk.TableID != t.ID {
				return 0, errAlready
			}
			return ticketRetention, nil
		})
		if err != nil && !errors.Is(err, errAlready) && status.Code(err) != codes.NotFound {
			return err
		}
	}
	dealt, err := s.updateTable(ctx, t.ID, func(cur *lobby.Table) (time.Duration, error) {
		if cur.State != lobby.TableStarting {
			return 0, errAlready
		}
		cur.State, cur.Refusal, cur.Deadline = lobby.TableDealt, nil, now.Add(playingTableTTL)
		return playingTableTTL, nil
	})
	if errors.Is(err, errAlready) {
		return nil
	}
	if err != nil {
		return err
	}
	s.remember(dealt)
	if len(t.Tickets) > 0 {
		s.metrics.matches.Add(ctx, 1)
	}
	if s.halted(t.ID, stepDealt) {
		return errHalted
	}
	return nil
}

// giveUp ends a start that will not be dealt, saying why: a private table opens again for its
// owner to start again (or change); a matched table goes to closing, for its tickets.
func (s *Server) giveUp(ctx context.Context, t *lobby.Table, why *status.Status) error {
	s.log.WarnContext(ctx, "a table's start is given up", "table", t.ID, "matched", len(t.Tickets) > 0, "reason", why.Message())
	refusal, err := proto.Marshal(why.Proto())
	if err != nil {
		return err
	}
	_, err = s.updateTable(ctx, t.ID, func(cur *lobby.Table) (time.Duration, error) {
		if cur.State != lobby.TableStarting {
			return 0, errAlready
		}
		cur.Refusal = refusal
		if len(cur.Tickets) > 0 {
			cur.State = lobby.TableClosing
			return 0, nil
		}
		cur.State, cur.Seats, cur.Deadline = lobby.TableOpen, nil, s.now().Add(openTableTTL)
		return openTableTTL, nil
	})
	if errors.Is(err, errAlready) {
		return nil
	}
	return err
}

// closeStep sends a closing table's tickets back to the queue, where they keep their place, or,
// when the game refused the table for good (matched again they would fail again), cancels them
// with its reason; then closes the table.
func (s *Server) closeStep(ctx context.Context, t *lobby.Table) error {
	why := refusalOf(t)
	for _, tid := range t.Tickets {
		var err error
		if why != nil && why.Code() != codes.Unavailable {
			err = s.refuseTicket(ctx, tid, t.ID, why.Message())
		} else {
			err = s.requeue(ctx, tid, t.ID)
		}
		if err != nil {
			return err
		}
	}
	_, err := s.updateTable(ctx, t.ID, func(cur *lobby.Table) (time.Duration, error) {
		if cur.State != lobby.TableClosing {
			return 0, errAlready
		}
		cur.State, cur.Deadline = lobby.TableClosed, s.now().Add(time.Hour)
		return time.Hour, nil
	})
	if err != nil && !errors.Is(err, errAlready) {
		return err
	}
	s.kickMatcher()
	return nil
}

// refusalOf is why t's start was given up, if it was.
func refusalOf(t *lobby.Table) *status.Status {
	if len(t.Refusal) == 0 {
		return nil
	}
	p := &spb.Status{}
	if err := proto.Unmarshal(t.Refusal, p); err != nil {
		return status.New(codes.Unknown, "the table's start was given up")
	}
	return status.FromProto(p)
}

// undealable reports whether the rules service refused a deal for good (the table's configuration),
// as opposed to a failure a later attempt may not meet.
func undealable(err error) bool {
	switch status.Code(err) {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange, codes.NotFound, codes.PermissionDenied, codes.Unimplemented:
		return true
	}
	return false
}

// create creates the table on its rules service with t's recorded seats.
func (s *Server) create(ctx context.Context, t *lobby.Table) error {
	c, err := s.rulesOf(t.Game)
	if err != nil {
		return err
	}
	cfg := &gamev1.TableConfig{Game: t.Game, SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_RANDOM}
	for i, p := range t.Seats {
		cfg.Seats = append(cfg.Seats, &gamev1.Seat{Index: uint32(i), Player: playerRef(p)})
	}
	if len(t.Options) > 0 {
		cfg.Options = &anypb.Any{}
		if err := proto.Unmarshal(t.Options, cfg.Options); err != nil {
			return err
		}
	}
	if t.PerAction > 0 {
		cfg.TimeLimits = &gamev1.TimeLimits{PerAction: durationpb.New(t.PerAction)}
	}
	// ALREADY_EXISTS: an earlier attempt of this deal created it (its answer was lost, or its owner
	// died after it); the seats are the recorded ones, so it is this deal's table.
	if _, err := c.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: t.ID, Config: cfg}); err != nil && status.Code(err) != codes.AlreadyExists {
		return err
	}
	return nil
}

// startPoll is how often StartTable reads the table again while it waits for the deal, besides
// each table notification: a gateway cut from NATS hears none, and the owner that deals may be
// another replica.
const startPoll = 500 * time.Millisecond

// awaitDeal answers the owner's StartTable once t's owner has dealt it or given its start up.
func (s *Server) awaitDeal(ctx context.Context, t *lobby.Table, wake <-chan struct{}) (*lobby.Table, error) {
	timer := time.NewTimer(startWait)
	defer timer.Stop()
	poll := time.NewTicker(startPoll)
	defer poll.Stop()
	for {
		switch t.State {
		case lobby.TableDealt, lobby.TableFinished:
			return t, nil
		case lobby.TableOpen:
			if why := refusalOf(t); why != nil {
				return nil, why.Err()
			}
			return nil, refusal.New(codes.FailedPrecondition, refusal.TableNotStarted, "the table's start was given up")
		case lobby.TableClosing, lobby.TableClosed:
			return nil, refusal.New(codes.FailedPrecondition, refusal.TableStarted, "the table was closed before the start")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, status.Error(codes.Unavailable, "the table is being dealt; StartTable again to wait for it")
		case <-wake:
		case <-poll.C:
		}
		cur, err := s.lobby.LoadTable(ctx, t.ID)
		if errors.Is(err, lobby.ErrNotFound) {
			return nil, tableNotFound()
		}
		if err != nil {
			return nil, err
		}
		t = &cur
	}
}
