// Command drive plays whole games through running gateways, to check a deployment end to end
// (make run-distributed, or a cluster behind a port-forward): for each table it signs in, creates a
// table of the game with bots in every other seat, starts it, and plays its seat with the first
// legal action whenever it has one, while a Watch stream follows the table. A table passes when it
// finishes, its stream carried each sequence once and in order with no gap, and the replay agrees.
//
//	drive -addr 127.0.0.1:7070,127.0.0.1:7071 -tables 8
//
// With -every-seat, every other table has a player of ours at each seat instead of bots (they join
// with the table's invite code), each with its own Watch stream, and each seat's stream is audited
// against the replay: what every seat was shown, not one seat's only.
//
// With -continue, each of the -tables players starts another table whenever one finishes, until
// SIGUSR1 (the tables in play then are finished), so that tables are in play at any moment. With
// -record FILE it writes, as JSON lines, the time of every call, retry, stream event, broken and
// resumed stream of every table; `drive recovery` (recovery.go) reads them back, with the times of
// injected faults, and reports how long the service took to serve each table again.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	// Every game's messages, so that the audit compares events as messages (check.go).
	_ "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	_ "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	_ "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "recovery" {
		os.Exit(recoveryMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "outboxwait" {
		os.Exit(outboxWaitMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "statscheck" {
		os.Exit(statsCheckMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	addrs := flag.String("addr", "127.0.0.1:7070,127.0.0.1:7071", "gateways, comma-separated; tables take them in turn")
	games := flag.String("games", "", "games to play, comma-separated (empty: every game the gateway lists)")
	tables := flag.Int("tables", 0, "tables to play (default: two per game); with -continue, tables in play at once")
	cont := flag.Bool("continue", false, "start another table whenever one finishes, until SIGUSR1")
	recordTo := flag.String("record", "", "write every table's timed calls, retries and stream events to this file, as JSON lines")
	timeout := flag.Duration("timeout", 2*time.Minute, "bound on the whole run")
	stall := flag.Duration("stall", 0, "fail a table whose Watch stream delivers nothing for this long while it waits (0: no bound)")
	everySeat := flag.Bool("every-seat", false, "play every other table of each game with a player of ours at each seat (no bots), each seat's Watch stream audited")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	o := options{tables: *tables, stall: *stall, everySeat: *everySeat}
	if *cont {
		enough := make(chan struct{})
		usr1 := make(chan os.Signal, 1)
		signal.Notify(usr1, syscall.SIGUSR1)
		go func() { <-usr1; close(enough) }()
		o.until = enough
	}
	if *recordTo != "" {
		f, err := os.Create(*recordTo)
		if err != nil {
			fmt.Fprintln(os.Stderr, "drive:", err)
			os.Exit(1)
		}
		defer f.Close()
		o.rec = newRecorder(f)
	}
	err := run(ctx, os.Stdout, strings.Split(*addrs, ","), *games, o)
	if ferr := o.rec.flush(); ferr != nil {
		err = errors.Join(err, fmt.Errorf("record: %w", ferr))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "drive:", err)
		os.Exit(1)
	}
}

type options struct {
	tables int
	stall  time.Duration // see playTable
	// everySeat plays every other table with a player of ours at each seat (see playTable).
	everySeat bool
	// until, when set, keeps every player starting tables until it is closed.
	until <-chan struct{}
	rec   *recorder
}

func run(ctx context.Context, out io.Writer, addrs []string, gameList string, o options) error {
	var clients []gatewayv1.GatewayServiceClient
	for _, a := range addrs {
		cc, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return fmt.Errorf("gateway %s: %w", a, err)
		}
		defer cc.Close()
		clients = append(clients, gatewayv1.NewGatewayServiceClient(cc))
	}
	list, err := clients[0].ListGames(ctx, &gatewayv1.ListGamesRequest{})
	if err != nil {
		return fmt.Errorf("list games: %w", err)
	}
	seats := map[string]uint32{}
	var games []string
	for _, g := range list.GetGames() {
		seats[g.GetGame()] = max(g.GetMinSeats(), 2)
		games = append(games, g.GetGame())
	}
	if gameList != "" {
		games = strings.Split(gameList, ",")
	}
	tables := o.tables
	if tables == 0 {
		tables = 2 * len(games)
	}
	var (
		wg      sync.WaitGroup
		next    atomic.Int64
		mu      sync.Mutex
		errs    []error
		total   result
		perGame = map[string]int{}
	)
	more := func() bool {
		if o.until == nil {
			return false
		}
		select {
		case <-o.until:
			return false
		case <-ctx.Done():
			return false
		default:
			return true
		}
	}
	for range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				g := games[i%len(games)]
				gw := addrs[i%len(addrs)]
				// With -every-seat, every other table of each game has a player of ours at each seat.
				every := o.everySeat && (i/len(games))%2 == 0
				r, err := playTable(ctx, clients, addrs, i, g, seats[g], fmt.Sprintf("driver %d", i), every, o.stall, o.rec)
				if err != nil {
					// With -continue the player goes on with another table, so that later faults still
					// find tables in play; the run fails all the same.
					o.rec.add(record{Table: i, Kind: kindEnd, ID: r.table, Err: err.Error()})
					mu.Lock()
					errs = append(errs, fmt.Errorf("table %d (%s via %s): %w", i, g, gw, err))
					mu.Unlock()
					if !more() {
						return
					}
					continue
				}
				o.rec.add(record{Table: i, Kind: kindEnd, ID: r.table})
				mu.Lock()
				fmt.Fprintf(out, "%-11s %s via %s: finished, %d actions of ours, %d calls retried, %d watch resumed, %d events watched in order, version %d\n",
					g, r.table, gw, r.acted, r.retries, r.resumed, r.events, r.version)
				perGame[g]++
				total.acted += r.acted
				total.retries += r.retries
				total.resumed += r.resumed
				total.events += r.events
				mu.Unlock()
				if !more() {
					return
				}
			}
		}()
	}
	wg.Wait()
	var byGame []string
	n := 0
	for g, k := range perGame {
		byGame = append(byGame, fmt.Sprintf("%s %d", g, k))
		n += k
	}
	sort.Strings(byGame)
	fmt.Fprintf(out, "total: %d tables finished (%s), %d actions of ours, %d calls retried, %d watch resumed, %d events watched in order\n",
		n, strings.Join(byGame, ", "), total.acted, total.retries, total.resumed, total.events)
	return errors.Join(errs...)
}

type result struct {
	table                           string
	acted, events, retries, resumed int
	version                         uint64
	// answered is the final answer to each of our Act calls, by action id: its code and, when OK,
	// the version it answered with.
	answered map[string]answer
	// stream is every event the Watch streams delivered, across resumptions, in order.
	stream []*eventsv1.Event
}

type answer struct {
	code    codes.Code
	version uint64
}

// gateways is one table's view of the gateways: calls go to the current one and move to the next
// when it is UNAVAILABLE (a gateway stopping or gone), as a client behind a load balancer would.
type gateways struct {
	clients []gatewayv1.GatewayServiceClient
	addrs   []string // for the record; may be nil
	cur     int
	res     *result
	rec     *recorder
	table   int // the table's number, for the record
}

func (g *gateways) addr() string {
	if g.cur < len(g.addrs) {
		return g.addrs[g.cur]
	}
	return fmt.Sprint(g.cur)
}

func (g *gateways) c() gatewayv1.GatewayServiceClient { return g.clients[g.cur] }

// call repeats fn while the answer is UNAVAILABLE, on the next gateway each time, or
// RESOURCE_EXHAUSTED (the per-player rate limit), with a growing pause, for up to 10 s.
// (A rules replica that is gone is the gateway's to route around; a gateway that is gone, ours.)
// name is the RPC, for the record.
func (g *gateways) call(ctx context.Context, name string, fn func(gatewayv1.GatewayServiceClient) error) error {
	return g.callV(ctx, name, func(c gatewayv1.GatewayServiceClient) (uint64, error) { return 0, fn(c) })
}

// callV is call for a call that answers with the table's version, which goes in the record.
func (g *gateways) callV(ctx context.Context, name string, fn func(gatewayv1.GatewayServiceClient) (uint64, error)) error {
	sent := time.Now()
	deadline := sent.Add(10 * time.Second)
	wait := 20 * time.Millisecond
	for {
		v, err := fn(g.c())
		code := status.Code(err)
		if code != codes.Unavailable && code != codes.ResourceExhausted || time.Now().After(deadline) {
			g.rec.add(record{Table: g.table, Kind: kindCall, Call: name, Code: code.String(), Sent: sent.UnixNano(), Version: v})
			return err
		}
		g.rec.add(record{Table: g.table, Kind: kindRetry, Call: name, Code: code.String(), Gateway: g.addr()})
		g.res.retries++
		if code == codes.Unavailable {
			g.cur = (g.cur + 1) % len(g.clients)
		} // else: over this player's rate limit; slow down on the same gateway
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// watch follows the table from after the given sequence on the current gateway; the channel
// closes when the stream ends, and its error is then on errc.
func (g *gateways) watch(ctx context.Context, table string, after uint64) (<-chan *eventsv1.Event, <-chan error, error) {
	var w grpc.ServerStreamingClient[gatewayv1.WatchResponse]
	err := g.call(ctx, "Watch", func(c gatewayv1.GatewayServiceClient) (err error) {
		w, err = c.Watch(ctx, &gatewayv1.WatchRequest{TableId: table, AfterSequence: after})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	events := make(chan *eventsv1.Event, 64)
	errc := make(chan error, 1)
	go func() {
		defer close(events)
		gw := g.addr()
		for {
			m, err := w.Recv()
			if err != nil {
				if err != io.EOF && ctx.Err() == nil {
					g.rec.add(record{Table: g.table, Kind: kindBroken, Code: status.Code(err).String(), Gateway: gw})
				}
				errc <- err
				return
			}
			// Stamped as received, whatever the player is doing meanwhile.
			e := m.GetEvent()
			g.rec.add(record{Table: g.table, Kind: kindEvent, Seq: e.GetSequence(), Version: e.GetVersion()})
			if e.GetPayload().MessageIs(&eventsv1.TableFinished{}) {
				g.rec.add(record{Table: g.table, Kind: kindFinished, ID: table})
			}
			select {
			case events <- m.GetEvent():
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
	}()
	return events, errc, nil
}

// playTable plays table number i of the run, first through gateway i mod len(clients). With
// everySeat, one player of ours sits at every seat (the others join with the invite code, each
// through the next gateway), each following the table on a Watch stream of its own and audited
// against the replay for its seat; otherwise one player of ours and bots. A spectator of ours (a
// player without a seat) follows every table too, its stream audited against the replay's public
// events: so every viewer a client can be is checked. It fails when, waiting
// for an event, a player receives none for stall (0: no bound): a stream that stopped without an
// error.
func playTable(ctx context.Context, clients []gatewayv1.GatewayServiceClient, addrs []string, i int, game string, seats uint32, name string, everySeat bool, stall time.Duration, rec *recorder) (result, error) {
	res := result{answered: map[string]answer{}}
	rec.add(record{Table: i, Kind: kindBegin, Game: game})
	newPlayer := func(k int, name string, res *result) (*seatPlayer, error) {
		p := &seatPlayer{g: &gateways{clients: clients, addrs: addrs, cur: (i + k) % len(clients), res: res, rec: rec, table: i}, res: res}
		var in *gatewayv1.SignInResponse
		err := p.g.call(ctx, "SignIn", func(c gatewayv1.GatewayServiceClient) (err error) {
			in, err = c.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: name})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("sign in: %w", err)
		}
		// Every gateway replica shares the session key, so the token is good on all of them.
		p.ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+in.GetSessionToken())
		return p, nil
	}
	owner, err := newPlayer(0, name, &res)
	if err != nil {
		return res, err
	}
	var t *gatewayv1.CreateTableResponse
	// One request id for every try: a retry after a lost answer gets the same table.
	create := &gatewayv1.CreateTableRequest{Game: game, Seats: seats, Options: untimed(game), RequestId: actionID()}
	err = owner.g.call(owner.ctx, "CreateTable", func(c gatewayv1.GatewayServiceClient) (err error) {
		t, err = c.CreateTable(owner.ctx, create)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("create table: %w", err)
	}
	res.table = t.GetTableId()
	players := []*seatPlayer{owner}
	if everySeat {
		for k := 1; k < int(seats); k++ {
			pr := &result{table: res.table, answered: map[string]answer{}}
			p, err := newPlayer(k, fmt.Sprintf("%s seat %d", name, k+1), pr)
			if err != nil {
				return res, err
			}
			// A join repeated after a lost answer finds the player at the table: in effect.
			if err := p.g.call(p.ctx, "JoinTable", func(c gatewayv1.GatewayServiceClient) error {
				_, err := c.JoinTable(p.ctx, &gatewayv1.JoinTableRequest{InviteCode: t.GetInviteCode()})
				return err
			}); err != nil {
				return res, fmt.Errorf("join: %w", err)
			}
			players = append(players, p)
		}
	} else {
		// One request id for every attempt: a retry after a gateway died between adding the bots
		// and answering is answered with the table, not given more bots or refused as full.
		bots := &gatewayv1.AddBotsRequest{TableId: res.table, Count: seats - 1, RequestId: actionID()}
		if err := owner.g.call(owner.ctx, "AddBots", func(c gatewayv1.GatewayServiceClient) error {
			_, err := c.AddBots(owner.ctx, bots)
			return err
		}); err != nil {
			return res, fmt.Errorf("add bots: %w", err)
		}
	}
	// A spectator follows every table as well: its stream must carry the public events only. It
	// may watch only once the table has started; from sequence 0, it gets every event all the same.
	sr := &result{table: res.table, answered: map[string]answer{}}
	sp, err := newPlayer(int(seats), name+" watching", sr)
	if err != nil {
		return res, err
	}
	sp.spectator = true
	var stops []context.CancelFunc // the Watch streams end with the table's play
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	watch := func(p *seatPlayer) (err error) {
		var stop context.CancelFunc
		p.wctx, stop = context.WithCancel(p.ctx)
		stops = append(stops, stop)
		p.events, p.werr, err = p.g.watch(p.wctx, res.table, 0)
		return err
	}
	for _, p := range players {
		if err := watch(p); err != nil {
			return res, fmt.Errorf("watch: %w", err)
		}
	}
	if err := owner.g.call(owner.ctx, "StartTable", func(c gatewayv1.GatewayServiceClient) error {
		_, err := c.StartTable(owner.ctx, &gatewayv1.StartTableRequest{TableId: res.table})
		return err
	}); err != nil {
		return res, fmt.Errorf("start: %w", err)
	}
	if err := watch(sp); err != nil {
		return res, fmt.Errorf("spectator's watch: %w", err)
	}
	players = append(players, sp)
	errs := make([]error, len(players))
	var wg sync.WaitGroup
	for k, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.play(stall); err != nil {
				who := fmt.Sprintf("seat player %d", k+1)
				if p.spectator {
					who = "spectator"
				}
				errs[k] = fmt.Errorf("%s: %w", who, err)
			}
		}()
	}
	wg.Wait()
	for _, p := range players[1:] {
		res.acted += p.res.acted
		res.retries += p.res.retries
		res.resumed += p.res.resumed
		res.events += p.res.events
	}
	return res, errors.Join(errs...)
}

// seatPlayer is one player of ours at a table: its session (in ctx), the gateways it calls, its
// Watch stream and what it did.
type seatPlayer struct {
	ctx, wctx context.Context
	g         *gateways
	res       *result
	events    <-chan *eventsv1.Event
	werr      <-chan error
	// spectator watches the table without a seat: it sends no action, and its stream must carry
	// exactly the table's public events.
	spectator bool
}

// play plays the player's seat with its first legal action whenever it has one, following the
// Watch stream (resumed on another gateway when one goes away), until TableFinished; then audits
// the run against the replay (checkReplay).
func (p *seatPlayer) play(stall time.Duration) error {
	ctx, g, res := p.ctx, p.g, p.res
	events, werr := p.events, p.werr
	var last uint64
	seen := func(e *eventsv1.Event) (bool, error) {
		// The stream carries our seat's and public events: sequences only grow, none twice.
		if e.GetSequence() <= last {
			return false, fmt.Errorf("event %d after %d: repeated or out of order", e.GetSequence(), last)
		}
		last = e.GetSequence()
		res.events++
		res.stream = append(res.stream, e)
		return e.GetPayload().MessageIs(&eventsv1.TableFinished{}), nil
	}
	var stallTimer *time.Timer
	if stall > 0 {
		stallTimer = time.NewTimer(stall)
		defer stallTimer.Stop()
	}
	for {
		var legal *gatewayv1.ListLegalActionsResponse
		if !p.spectator {
			err := g.call(ctx, "ListLegalActions", func(c gatewayv1.GatewayServiceClient) (err error) {
				legal, err = c.ListLegalActions(ctx, &gatewayv1.ListLegalActionsRequest{TableId: res.table})
				return err
			})
			if err != nil {
				return fmt.Errorf("legal actions: %w", err)
			}
		}
		if len(legal.GetActions()) > 0 {
			v := legal.GetVersion()
			// One action id for every attempt: a retry of an action that was applied is answered
			// from the log, never applied twice.
			req := &gatewayv1.ActRequest{TableId: res.table, Action: legal.GetActions()[0], ActionId: actionID(), ExpectedVersion: &v}
			var version uint64
			err := g.callV(ctx, "Act", func(c gatewayv1.GatewayServiceClient) (uint64, error) {
				r, err := c.Act(ctx, req)
				version = r.GetVersion()
				return version, err
			})
			res.answered[req.GetActionId()] = answer{code: status.Code(err), version: version}
			switch status.Code(err) {
			case codes.OK:
				res.acted++
			case codes.Aborted, codes.FailedPrecondition: // a bot, another player or a timeout moved first
			default:
				return fmt.Errorf("act: %w", err)
			}
		}
		var stalled <-chan time.Time
		if stallTimer != nil {
			stallTimer.Reset(stall) // (since Go 1.23 a Reset timer never delivers a stale time)
			stalled = stallTimer.C
		}
		select {
		case e, ok := <-events:
			if !ok {
				err := <-werr
				if status.Code(err) != codes.Unavailable {
					return fmt.Errorf("watch ended before the table finished: %w", err)
				}
				// The gateway went away: resume after the last event seen, on another.
				res.resumed++
				g.cur = (g.cur + 1) % len(g.clients)
				if events, werr, err = g.watch(p.wctx, res.table, last); err != nil {
					return fmt.Errorf("resume watch: %w", err)
				}
				g.rec.add(record{Table: g.table, Kind: kindResumed, Seq: last, Gateway: g.addr()})
				continue
			}
			done, err := seen(e)
			for !done && err == nil && len(events) > 0 {
				done, err = seen(<-events)
			}
			if err != nil {
				return err
			}
			if done {
				return checkReplay(ctx, g, res, last, p.spectator)
			}
		case <-stalled:
			return fmt.Errorf("no event on the Watch stream for %s (after sequence %d)", stall, last)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// checkReplay reads the finished table's replay and our seat, and audits the run against them
// (audit, check.go).
func checkReplay(ctx context.Context, g *gateways, res *result, lastSeq uint64, spectating bool) error {
	var r *gatewayv1.GetReplayResponse
	err := g.call(ctx, "GetReplay", func(c gatewayv1.GatewayServiceClient) (err error) {
		r, err = c.GetReplay(ctx, &gatewayv1.GetReplayRequest{TableId: res.table})
		return err
	})
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	var t *gatewayv1.GetTableResponse
	err = g.call(ctx, "GetTable", func(c gatewayv1.GatewayServiceClient) (err error) {
		t, err = c.GetTable(ctx, &gatewayv1.GetTableRequest{TableId: res.table})
		return err
	})
	if err != nil {
		return fmt.Errorf("get table: %w", err)
	}
	seat := spectator
	switch {
	case spectating && t.GetTable().YourSeat != nil:
		return fmt.Errorf("get table: a spectator given seat %d", t.GetTable().GetYourSeat())
	case !spectating && t.GetTable().YourSeat == nil:
		return fmt.Errorf("get table: no seat of ours at the finished table")
	case !spectating:
		seat = int(t.GetTable().GetYourSeat())
	}
	if err := audit(r, seat, res.answered, res.stream); err != nil {
		return err
	}
	if n := len(r.GetEntries()); n > 0 {
		res.version = r.GetEntries()[n-1].GetVersion()
	}
	return nil
}

// actionID is a fresh id for an action or a request (AddBots) and all its attempts.
func actionID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// untimed are the options of the driven tables of game: sabai-sabai's reflex window and bots' delays
// (Rulings R1 and B1) pace a table for people, 800 ms a turn at least; the fault tests judge
// recovery, not pacing, so their tables play as fast as the players answer (as cardroom bench's do).
func untimed(game string) *anypb.Any {
	if game != "sabaisabai" {
		return nil
	}
	zero := durationpb.New(0)
	a, err := anypb.New(&sabaisabaiv1.Options{ThrowWindow: zero, BotReactionMin: zero, BotReactionMax: zero, BotThink: zero})
	if err != nil {
		panic(err) // a fixed message always marshals
	}
	return a
}
