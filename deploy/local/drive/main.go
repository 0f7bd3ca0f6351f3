// Command drive plays whole games through running gateways, to check a deployment end to end
// (make run-distributed, or a cluster behind a port-forward): for each table it signs in, creates a
// table of the game with bots in every other seat, starts it, and plays its seat with the first
// legal action whenever it has one, while a Watch stream follows the table. A table passes when it
// finishes, its stream carried each sequence once and in order with no gap, and the replay agrees.
//
//	drive -addr 127.0.0.1:7070,127.0.0.1:7071 -tables 8
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
	"strings"
	"sync"
	"syscall"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func main() {
	addrs := flag.String("addr", "127.0.0.1:7070,127.0.0.1:7071", "gateways, comma-separated; tables take them in turn")
	games := flag.String("games", "", "games to play, comma-separated (empty: every game the gateway lists)")
	tables := flag.Int("tables", 0, "tables to play (default: two per game)")
	timeout := flag.Duration("timeout", 2*time.Minute, "bound on the whole run")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, os.Stdout, strings.Split(*addrs, ","), *games, *tables); err != nil {
		fmt.Fprintln(os.Stderr, "drive:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, addrs []string, gameList string, tables int) error {
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
	if tables == 0 {
		tables = 2 * len(games)
	}
	var wg sync.WaitGroup
	errs := make([]error, tables)
	for i := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := games[i%len(games)]
			r, err := playTable(ctx, clients, i%len(clients), g, seats[g], fmt.Sprintf("driver %d", i))
			if err != nil {
				errs[i] = fmt.Errorf("table %d (%s via %s): %w", i, g, addrs[i%len(addrs)], err)
				return
			}
			fmt.Fprintf(out, "%-11s %s via %s: finished, %d actions of ours, %d calls retried, %d watch resumed, %d events watched in order, version %d\n",
				g, r.table, addrs[i%len(addrs)], r.acted, r.retries, r.resumed, r.events, r.version)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

type result struct {
	table                           string
	acted, events, retries, resumed int
	version                         uint64
}

// gateways is one table's view of the gateways: calls go to the current one and move to the next
// when it is UNAVAILABLE (a gateway stopping or gone), as a client behind a load balancer would.
type gateways struct {
	clients []gatewayv1.GatewayServiceClient
	cur     int
	res     *result
}

func (g *gateways) c() gatewayv1.GatewayServiceClient { return g.clients[g.cur] }

// call repeats fn while the answer is UNAVAILABLE, on the next gateway each time, or
// RESOURCE_EXHAUSTED (the per-player rate limit), with a growing pause, for up to 10 s.
// (A rules replica that is gone is the gateway's to route around; a gateway that is gone, ours.)
func (g *gateways) call(ctx context.Context, fn func(gatewayv1.GatewayServiceClient) error) error {
	deadline := time.Now().Add(10 * time.Second)
	wait := 20 * time.Millisecond
	for {
		err := fn(g.c())
		code := status.Code(err)
		if code != codes.Unavailable && code != codes.ResourceExhausted || time.Now().After(deadline) {
			return err
		}
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
	err := g.call(ctx, func(c gatewayv1.GatewayServiceClient) (err error) {
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
		for {
			m, err := w.Recv()
			if err != nil {
				errc <- err
				return
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

func playTable(ctx context.Context, clients []gatewayv1.GatewayServiceClient, first int, game string, seats uint32, name string) (result, error) {
	var res result
	g := &gateways{clients: clients, cur: first, res: &res}
	var in *gatewayv1.SignInResponse
	err := g.call(ctx, func(c gatewayv1.GatewayServiceClient) (err error) {
		in, err = c.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: name})
		return err
	})
	if err != nil {
		return res, fmt.Errorf("sign in: %w", err)
	}
	// Every gateway replica shares the session key, so the token is good on all of them.
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+in.GetSessionToken())
	var t *gatewayv1.CreateTableResponse
	err = g.call(ctx, func(c gatewayv1.GatewayServiceClient) (err error) {
		t, err = c.CreateTable(ctx, &gatewayv1.CreateTableRequest{Game: game, Seats: seats})
		return err
	})
	if err != nil {
		return res, fmt.Errorf("create table: %w", err)
	}
	res.table = t.GetTableId()
	if err := g.call(ctx, func(c gatewayv1.GatewayServiceClient) error {
		_, err := c.AddBots(ctx, &gatewayv1.AddBotsRequest{TableId: res.table, Count: seats - 1})
		return err
	}); err != nil {
		return res, fmt.Errorf("add bots: %w", err)
	}
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	events, werr, err := g.watch(wctx, res.table, 0)
	if err != nil {
		return res, fmt.Errorf("watch: %w", err)
	}
	if err := g.call(ctx, func(c gatewayv1.GatewayServiceClient) error {
		_, err := c.StartTable(ctx, &gatewayv1.StartTableRequest{TableId: res.table})
		return err
	}); err != nil {
		return res, fmt.Errorf("start: %w", err)
	}
	var last uint64
	seen := func(e *eventsv1.Event) (bool, error) {
		// The stream carries our seat's and public events: sequences only grow, none twice.
		if e.GetSequence() <= last {
			return false, fmt.Errorf("event %d after %d: repeated or out of order", e.GetSequence(), last)
		}
		last = e.GetSequence()
		res.events++
		return e.GetPayload().MessageIs(&eventsv1.TableFinished{}), nil
	}
	for {
		var legal *gatewayv1.ListLegalActionsResponse
		err := g.call(ctx, func(c gatewayv1.GatewayServiceClient) (err error) {
			legal, err = c.ListLegalActions(ctx, &gatewayv1.ListLegalActionsRequest{TableId: res.table})
			return err
		})
		if err != nil {
			return res, fmt.Errorf("legal actions: %w", err)
		}
		if len(legal.GetActions()) > 0 {
			v := legal.GetVersion()
			// One action id for every attempt: a retry of an action that was applied is answered
			// from the log, never applied twice.
			req := &gatewayv1.ActRequest{TableId: res.table, Action: legal.GetActions()[0], ActionId: actionID(), ExpectedVersion: &v}
			err := g.call(ctx, func(c gatewayv1.GatewayServiceClient) error { _, err := c.Act(ctx, req); return err })
			switch status.Code(err) {
			case codes.OK:
				res.acted++
			case codes.Aborted, codes.FailedPrecondition: // a bot or a timeout moved first
			default:
				return res, fmt.Errorf("act: %w", err)
			}
		}
		select {
		case e, ok := <-events:
			if !ok {
				err := <-werr
				if status.Code(err) != codes.Unavailable {
					return res, fmt.Errorf("watch ended before the table finished: %w", err)
				}
				// The gateway went away: resume after the last event seen, on another.
				res.resumed++
				g.cur = (g.cur + 1) % len(g.clients)
				if events, werr, err = g.watch(wctx, res.table, last); err != nil {
					return res, fmt.Errorf("resume watch: %w", err)
				}
				continue
			}
			done, err := seen(e)
			for !done && err == nil && len(events) > 0 {
				done, err = seen(<-events)
			}
			if err != nil {
				return res, err
			}
			if done {
				return res, checkReplay(ctx, g, &res, last)
			}
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
}

// checkReplay: the replay ends where the stream did, each version once.
func checkReplay(ctx context.Context, g *gateways, res *result, lastSeq uint64) error {
	var r *gatewayv1.GetReplayResponse
	err := g.call(ctx, func(c gatewayv1.GatewayServiceClient) (err error) {
		r, err = c.GetReplay(ctx, &gatewayv1.GetReplayRequest{TableId: res.table})
		return err
	})
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	var seq, version uint64
	for _, e := range r.GetCreatedEvents() {
		seq = max(seq, e.GetSequence())
	}
	for i, en := range r.GetEntries() {
		if en.GetVersion() != uint64(i+1) {
			return fmt.Errorf("replay entry %d has version %d: an action lost or applied twice", i, en.GetVersion())
		}
		version = en.GetVersion()
		for _, e := range en.GetEvents() {
			if e.GetSequence() != seq+1 {
				return fmt.Errorf("replay: event %d after %d", e.GetSequence(), seq)
			}
			seq = e.GetSequence()
		}
	}
	if seq != lastSeq {
		return fmt.Errorf("the stream ended at event %d, the replay at %d", lastSeq, seq)
	}
	res.version = version
	return nil
}

func actionID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
