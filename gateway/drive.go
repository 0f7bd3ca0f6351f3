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

// runDriver claims tables of the lobby's owned set (a lease in the lobby store, so each table has
// one owner and a dead replica's tables move on after the lease) and runs, for each, its owner's
// loop (own, lifecycle.go): forming and dealing it, playing the seats of bots and of players absent
// longer than the grace period, recording its end. It claims at each DriveInterval and when kicked
// (a start recorded here).
func (s *Server) runDriver(ctx context.Context) {
	var (
		wg   sync.WaitGroup
		held = claims{m: map[string]*claim{}}
	)
	tick := time.NewTicker(s.opt.DriveInterval)
	defer tick.Stop()
	var renewed time.Time
	for {
		select {
		case <-ctx.Done():
			held.cancelAll()
			wg.Wait()
			return
		case <-tick.C:
		case <-s.driveKick:
		}
		now := s.now()
		ids := held.ids()
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
						held.lost(id)
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
			tctx, c := held.add(ctx, id)
			if c == nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer held.end(id, c)
				s.own(tctx, id)
			}()
		}
	}
}

// claims are the tables a replica's driver holds, each with the driver goroutine of its claim. A
// table's lease may be lost and the table claimed again while the first claim's goroutine is still
// ending: each claim is its own entry, so that goroutine's end leaves the newer claim alone.
type claims struct {
	mu sync.Mutex
	m  map[string]*claim
}

// claim is one claim of a table, ended by canceling its driver's context.
type claim struct{ cancel context.CancelFunc }

// add records a claim of id and returns its driver's context, or a nil claim when id is held.
func (cs *claims) add(ctx context.Context, id string) (context.Context, *claim) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if _, ok := cs.m[id]; ok {
		return nil, nil
	}
	tctx, cancel := context.WithCancel(ctx)
	c := &claim{cancel: cancel}
	cs.m[id] = c
	return tctx, c
}

// end is called when c's driver returns: it cancels c and forgets it, if id is still held by c.
func (cs *claims) end(id string, c *claim) {
	c.cancel()
	cs.mu.Lock()
	if cs.m[id] == c {
		delete(cs.m, id)
	}
	cs.mu.Unlock()
}

// lost ends the claim that holds id now (its lease was not renewed).
func (cs *claims) lost(id string) {
	cs.mu.Lock()
	if c, ok := cs.m[id]; ok {
		c.cancel()
		delete(cs.m, id)
	}
	cs.mu.Unlock()
}

func (cs *claims) ids() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	ids := make([]string, 0, len(cs.m))
	for id := range cs.m {
		ids = append(ids, id)
	}
	return ids
}

func (cs *claims) cancelAll() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, c := range cs.m {
		c.cancel()
	}
}

// kickDriver has this replica claim free tables of the owned set now.
func (s *Server) kickDriver() {
	select {
	case s.driveKick <- struct{}{}:
	default:
	}
}

// drive plays a dealt table's bot and absent seats until its TableFinished event, and records its
// end; or until the lease is lost.
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
	// wake fires when a bot's move that had to wait becomes allowed (a reaction delay).
	wake := time.NewTimer(time.Hour)
	wake.Stop()
	defer wake.Stop()
	for {
		_, changed, finished := h.since(^uint64(0))
		if finished {
			return s.finish(ctx, id)
		}
		if next := s.playFor(ctx, t, c, absent); !next.IsZero() {
			wake.Reset(max(next.Sub(s.now()), 0))
		}
		// A table with someone to play for is looked at every DriveInterval (a bot may have
		// declined to move yet) and at every change; a table of present players only when
		// presence is due, or when it ends: its moves are its players' own, and waking at each of
		// them to find nothing to play cost a few per cent of a busy gateway's CPU.
		wait, woken := checkEvery, h.ended()
		if bots || len(absent) > 0 {
			wait, woken = s.opt.DriveInterval, changed
		}
		if wait != period {
			period = wait
			tick.Reset(period)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-woken:
		case <-wake.C:
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

// playFor asks the game's bot for a move at each seat it plays, and plays it. A move the rules
// allow only later (a bot's reaction delay) is left for then: next is the earliest such moment, zero
// when there is none.
func (s *Server) playFor(ctx context.Context, t *lobby.Table, c rulesv1.RulesServiceClient, absent map[int]bool) (next time.Time) {
	for i, p := range t.Seats {
		if !p.Bot && !absent[i] {
			continue
		}
		// A bot plays at its own level; an absent player's seat at the table's takeover level.
		level := storedLevel(t.Takeover)
		if p.Bot {
			level = storedLevel(p.Level)
		}
		sug, err := c.SuggestAction(ctx, &rulesv1.SuggestActionRequest{TableId: t.ID, Seat: uint32(i), Level: level})
		if err != nil {
			continue // nothing to do at this seat now, or the table moved on
		}
		if nb := sug.GetNotBefore(); nb != nil {
			if at := nb.AsTime(); at.After(s.now()) {
				if next.IsZero() || at.Before(next) {
					next = at
				}
				continue
			}
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
	return next
}
