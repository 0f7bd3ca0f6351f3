package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"cardroom.dev/gateway/lobby"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// botActionPrefix marks the action ids of moves the gateway plays for bots and absent players.
// The id names the version and seat, so replicas racing for one move apply it once.
const botActionPrefix = "b:"

// runDriver claims tables to drive (a lease in the lobby store, so each table has one driver and a
// dead replica's tables move on after the lease) and plays, at each, the seats of bots and of
// players absent longer than the grace period.
func (s *Server) runDriver(ctx context.Context) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		held = map[string]context.CancelFunc{}
	)
	done := func(id string) {
		mu.Lock()
		if c, ok := held[id]; ok {
			c()
			delete(held, id)
		}
		mu.Unlock()
	}
	tick := time.NewTicker(s.opt.DriveInterval)
	defer tick.Stop()
	var renewed time.Time
	for {
		select {
		case <-ctx.Done():
			mu.Lock()
			for _, c := range held {
				c()
			}
			mu.Unlock()
			wg.Wait()
			return
		case <-tick.C:
		}
		now := s.now()
		mu.Lock()
		ids := make([]string, 0, len(held))
		for id := range held {
			ids = append(ids, id)
		}
		mu.Unlock()
		if len(ids) > 0 && now.Sub(renewed) >= s.opt.DriveLease/3 {
			kept, err := s.lobby.RenewDrive(ctx, s.opt.Replica, ids, now, s.opt.DriveLease)
			if err != nil {
				s.log.WarnContext(ctx, "renewing table leases failed", "error", err)
			} else {
				renewed = now
				keep := map[string]bool{}
				for _, id := range kept {
					keep[id] = true
				}
				for _, id := range ids {
					if !keep[id] {
						done(id)
					}
				}
			}
		}
		claimed, err := s.lobby.ClaimDrive(ctx, s.opt.Replica, now, s.opt.DriveLease, 64)
		if err != nil {
			if ctx.Err() == nil {
				s.log.WarnContext(ctx, "claiming tables failed", "error", err)
			}
			continue
		}
		for _, id := range claimed {
			mu.Lock()
			if _, ok := held[id]; ok {
				mu.Unlock()
				continue
			}
			tctx, cancel := context.WithCancel(ctx)
			held[id] = cancel
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer done(id)
				if err := s.drive(tctx, id); err != nil && tctx.Err() == nil {
					s.log.WarnContext(ctx, "driving a table failed", "table", id, "error", err)
				}
			}()
		}
	}
}

// drive plays a table's bot and absent seats until it finishes or the lease is lost.
func (s *Server) drive(ctx context.Context, id string) error {
	t, err := s.table(ctx, id)
	if status.Code(err) == codes.NotFound {
		return s.lobby.DropDrive(ctx, id)
	}
	if err != nil {
		return err
	}
	if t.State == lobby.TableFinished {
		return s.lobby.DropDrive(ctx, id)
	}
	h, release, err := s.hubs.acquire(ctx, t)
	if err != nil {
		if status.Code(err) == codes.NotFound {
			return s.lobby.DropDrive(ctx, id)
		}
		return err
	}
	defer release()
	c, err := s.rulesOf(t.Game)
	if err != nil {
		return err
	}
	humans, bots := false, false
	for _, p := range t.Seats {
		humans = humans || !p.Bot
		bots = bots || p.Bot
	}
	absent := map[int]bool{}
	// Presence is read from the lobby store at a tenth of the grace period (not at every tick): a
	// replica driving hundreds of tables would otherwise read it thousands of times a second to
	// learn, at most, that a player has been gone a little longer than the grace.
	checkEvery := max(s.opt.DriveInterval, s.opt.AbsenceGrace/10)
	var checked time.Time
	period := s.opt.DriveInterval
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		_, changed, finished := h.since(^uint64(0))
		if finished {
			s.finish(ctx, id)
			return nil
		}
		s.playFor(ctx, t, c, absent)
		// A table with someone to play for is looked at every DriveInterval (a bot may have
		// declined to move yet); a table of present players only when presence is due.
		wait := checkEvery
		if bots || len(absent) > 0 {
			wait = s.opt.DriveInterval
		}
		if wait != period {
			period = wait
			tick.Reset(period)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-tick.C:
			if now := s.now(); humans && now.Sub(checked) >= checkEvery {
				if absent, err = s.absent(ctx, t); err != nil {
					return err
				}
				checked = now
			}
		}
	}
}

// absent lists the human seats whose player has not been seen for the grace period.
func (s *Server) absent(ctx context.Context, t *lobby.Table) (map[int]bool, error) {
	seen, err := s.lobby.Presence(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := map[int]bool{}
	for i, p := range t.Seats {
		if at, ok := seen[i]; !p.Bot && ok && now.Sub(at) > s.opt.AbsenceGrace {
			out[i] = true
		}
	}
	return out, nil
}

// playFor asks the game's bot for a move at each seat it plays, and plays it.
func (s *Server) playFor(ctx context.Context, t *lobby.Table, c rulesv1.RulesServiceClient, absent map[int]bool) {
	for i, p := range t.Seats {
		if !p.Bot && !absent[i] {
			continue
		}
		sug, err := c.SuggestAction(ctx, &rulesv1.SuggestActionRequest{TableId: t.ID, Seat: uint32(i)})
		if err != nil {
			continue // nothing to do at this seat now, or the table moved on
		}
		v := sug.GetVersion()
		_, err = c.Act(ctx, &rulesv1.ActRequest{
			TableId: t.ID, Seat: uint32(i), Action: sug.GetAction(),
			ActionId: fmt.Sprintf("%s%d:%d", botActionPrefix, v, i), ExpectedVersion: &v,
			StandIn: !p.Bot,
		})
		if err == nil {
			opt := forBot
			if !p.Bot {
				opt = forAbsent
			}
			s.metrics.botMoves.Add(ctx, 1, opt)
		}
		if err != nil && !errors.Is(err, context.Canceled) && status.Code(err) != codes.Aborted && status.Code(err) != codes.FailedPrecondition {
			s.log.WarnContext(ctx, "a bot move failed", "table", t.ID, "seat", i, "error", err)
		}
	}
}
