package loadgen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// slot keeps one table in play for the whole run: when its table finishes, it opens the next.
type slot struct {
	r      *runner
	game   gameSeats
	client gatewayv1.GatewayServiceClient
	name   string

	mu  sync.Mutex // rnd is shared by the seats
	rnd *mrand.Rand

	players []*player
}

type player struct {
	auth metadata.MD
}

func (p *player) ctx(ctx context.Context) context.Context {
	return metadata.NewOutgoingContext(ctx, p.auth)
}

// signIn signs the slot's players in, once for all its tables.
func (s *slot) signIn(ctx context.Context) error {
	for i := range s.game.seats {
		var in *gatewayv1.SignInResponse
		// Sign-ins are rate-limited per client address: a large run waits its turn (or runs
		// against a gateway with a higher CARDROOM_RATE_LIMIT).
		err := s.patient(ctx, func() (err error) {
			in, err = s.client.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: fmt.Sprintf("%s.%d", s.name, i)})
			return err
		})
		if err != nil {
			return fmt.Errorf("sign in: %w", err)
		}
		s.players = append(s.players, &player{auth: metadata.Pairs("authorization", "Bearer "+in.GetSessionToken())})
	}
	return nil
}

// patient calls fn until it is not refused by the rate limit.
func (s *slot) patient(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if !throttled(err) {
			return err
		}
		s.r.rec.throttled.Add(1)
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *slot) intn(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rnd.IntN(n)
}

// run plays tables one after another until ctx ends.
func (s *slot) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := s.playTable(ctx); err != nil && ctx.Err() == nil {
			s.r.rec.fail(err)
			// A table that cannot be opened or played: try a new one after a pause.
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
			}
		}
	}
}

// table is one table's shared state while its seats play.
type table struct {
	id string
	// finished closes when the table is over for its seats: it finished, or it was left.
	finished chan struct{}
	once     sync.Once
	left     atomic.Bool
}

func (t *table) finish() { t.once.Do(func() { close(t.finished) }) }

// leave gives the table up (it failed too often): the slot opens another.
func (t *table) leave() {
	t.left.Store(true)
	t.finish()
}

func (s *slot) playTable(ctx context.Context) error {
	t0 := time.Now()
	owner := s.players[0]
	var cr *gatewayv1.CreateTableResponse
	err := s.patient(ctx, func() (err error) {
		cr, err = s.client.CreateTable(owner.ctx(ctx), &gatewayv1.CreateTableRequest{Game: s.game.name, Seats: uint32(s.game.seats)})
		return err
	})
	if err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	t := &table{id: cr.GetTableId(), finished: make(chan struct{})}
	for _, p := range s.players[1:] {
		if err := s.patient(ctx, func() error {
			_, err := s.client.JoinTable(p.ctx(ctx), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()})
			return err
		}); err != nil {
			return fmt.Errorf("join table: %w", err)
		}
	}
	tctx, stop := context.WithCancel(ctx)
	defer stop()
	// Each seat follows the table on its own stream, opened before the deal so that it sees
	// every event.
	watches := make([]*seatWatch, len(s.players))
	var streams sync.WaitGroup
	for i, p := range s.players {
		watches[i] = &seatWatch{wake: make(chan struct{}, 1)}
		var w gatewayv1.GatewayService_WatchClient
		if err := s.patient(ctx, func() (err error) {
			w, err = s.client.Watch(p.ctx(tctx), &gatewayv1.WatchRequest{TableId: t.id})
			return err
		}); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		streams.Add(1)
		go func() {
			defer streams.Done()
			s.follow(tctx, p, t, w, watches[i])
		}()
	}
	if err := s.patient(ctx, func() error {
		_, err := s.client.StartTable(owner.ctx(ctx), &gatewayv1.StartTableRequest{TableId: t.id})
		return err
	}); err != nil {
		return fmt.Errorf("start table: %w", err)
	}
	s.r.rec.setup(time.Since(t0))

	var seats sync.WaitGroup
	for i, p := range s.players {
		seats.Add(1)
		go func() {
			defer seats.Done()
			s.playSeat(tctx, p, t, watches[i])
		}()
	}
	seats.Wait()
	stop()
	streams.Wait()
	// Every applied action raises the table's version by one, whoever made it: the seats' moves,
	// and the timeouts the game applies when a seat lets its time run out.
	var version uint64
	for _, w := range watches {
		version = max(version, w.version.Load())
	}
	s.r.rec.tableActions.Add(int64(version))
	select {
	case <-t.finished:
		if !t.left.Load() {
			s.r.rec.tableFinished()
		}
	default:
	}
	return nil
}

// seatWatch is what a seat's stream tells its player: the latest table version an event showed,
// and a wake-up (coalesced) when it grows.
type seatWatch struct {
	version atomic.Uint64
	wake    chan struct{}
}

// saw raises the version the seat knows the table reached (from its stream or its own move's
// answer); true when it grew.
func (sw *seatWatch) saw(v uint64) bool {
	for {
		cur := sw.version.Load()
		if v <= cur {
			return false
		}
		if sw.version.CompareAndSwap(cur, v) {
			return true
		}
	}
}

// follow reads one seat's Watch stream: each event raises the version the seat has seen and wakes
// it, the table's end ends the table, and a broken stream resumes after the last sequence it
// delivered.
func (s *slot) follow(ctx context.Context, p *player, t *table, w gatewayv1.GatewayService_WatchClient, sw *seatWatch) {
	var last uint64
	for {
		m, err := w.Recv()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			select {
			case <-t.finished: // the stream ends with the table
				return
			default:
			}
			switch {
			case throttled(err):
				s.r.rec.throttled.Add(1)
			case !errors.Is(err, io.EOF):
				s.r.rec.fail(fmt.Errorf("watch: %w", err))
			}
			// Resume on the same gateway after what we saw: no gap, no duplicate.
			for {
				select {
				case <-time.After(50 * time.Millisecond):
				case <-ctx.Done():
					return
				}
				w, err = s.client.Watch(p.ctx(ctx), &gatewayv1.WatchRequest{TableId: t.id, AfterSequence: last})
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					return
				}
				if throttled(err) {
					s.r.rec.throttled.Add(1)
					continue
				}
				s.r.rec.fail(fmt.Errorf("watch resume: %w", err))
			}
			continue
		}
		e := m.GetEvent()
		if e.GetSequence() <= last {
			s.r.rec.fail(fmt.Errorf("watch: event %d after %d (repeated or out of order)", e.GetSequence(), last))
		}
		last = e.GetSequence()
		s.r.rec.event()
		if e.GetPayload().MessageIs(&eventsv1.TableFinished{}) {
			t.finish()
		}
		if sw.saw(e.GetVersion()) {
			select {
			case sw.wake <- struct{}{}:
			default:
			}
		}
	}
}

// poll bounds the wait for an event that would change what a seat may do: a move whose events
// the seat does not see (another seat's private event) still changes its legal actions. It is a
// safety net, not a pace: with thousands of idle seats, a short one would be most of the load.
const poll = 30 * time.Second

// playSeat plays one seat until the table finishes or ctx ends: list the legal actions; if there
// are some, wait for the pace and play a random one at the version listed, asking for the seat's
// next legal actions with the answer (a seat that moves again needs no list); if none, wait for
// an event of a later version.
func (s *slot) playSeat(ctx context.Context, p *player, t *table, sw *seatWatch) {
	rec := s.r.rec
	failures := 0
	pc := p.ctx(ctx)
	var (
		actions []*anypb.Any
		version uint64
		known   bool // actions and version are current: no need to list
	)
	for {
		select {
		case <-t.finished:
			return
		case <-ctx.Done():
			return
		default:
		}
		if !known {
			t0 := time.Now()
			legal, err := s.client.ListLegalActions(pc, &gatewayv1.ListLegalActionsRequest{TableId: t.id})
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				if s.giveUp(ctx, t, err, &failures) {
					return
				}
				continue
			}
			rec.legal(time.Since(t0))
			actions, version, known = legal.GetActions(), legal.GetVersion(), true
		}
		if len(actions) == 0 {
			known = false
			if !s.waitPast(ctx, t, sw, version) {
				return
			}
			continue
		}
		if err := s.r.pace(ctx); err != nil {
			return
		}
		v := version
		req := &gatewayv1.ActRequest{
			TableId:             t.id,
			Action:              actions[s.intn(len(actions))],
			ActionId:            actionID(),
			ExpectedVersion:     &v,
			IncludeLegalActions: true,
		}
		known = false
		t0 := time.Now()
		res, err := s.client.Act(pc, req)
		d := time.Since(t0)
		switch {
		case err == nil:
			failures = 0
			rec.act(d)
			sw.saw(res.GetVersion())
			if res.GetFinished() {
				t.finish()
				return
			}
			if !res.GetReplayed() {
				actions, version, known = res.GetLegalActions(), res.GetVersion(), true
			}
		case ctx.Err() != nil:
			return
		case expected(err):
			failures = 0
			rec.refused(d)
		default:
			if s.giveUp(ctx, t, err, &failures) {
				return
			}
		}
	}
}

// waitPast waits until the seat's stream shows a version after v (or the poll interval passes);
// false when the table or the run is over.
func (s *slot) waitPast(ctx context.Context, t *table, sw *seatWatch, v uint64) bool {
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for sw.version.Load() <= v {
		select {
		case <-sw.wake:
		case <-timer.C:
			return true
		case <-t.finished:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// giveUp counts a failed call and pauses; after many failures in a row the table is left. A
// call refused by the rate limit is counted as throttled and only pauses.
func (s *slot) giveUp(ctx context.Context, t *table, err error, failures *int) bool {
	if throttled(err) {
		s.r.rec.throttled.Add(1)
		select {
		case <-time.After(100 * time.Millisecond):
			return false
		case <-ctx.Done():
			return true
		}
	}
	s.r.rec.fail(err)
	*failures++
	if *failures >= 20 || status.Code(err) == codes.NotFound {
		t.leave()
		return true
	}
	select {
	case <-time.After(time.Duration(*failures) * 20 * time.Millisecond):
	case <-ctx.Done():
		return true
	}
	return false
}

func actionID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
