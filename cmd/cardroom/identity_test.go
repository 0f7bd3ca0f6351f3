package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/stats"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// TestStatsFollowThePlayer: a player who signs in twice with one device credential and plays a
// game after each sign-in (a bot in the other seat) has one stats record with both games.
func TestStatsFollowThePlayer(t *testing.T) {
	ctx := t.Context()
	o := startOneApp(t, ctx, "identity-test", nil)
	a, applied, game := o.a, o.applied, testGame
	statsSrv := stats.NewServer(o.stats, a.Log)
	cc, err := grpc.NewClient(a.Addr(0), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	gw := gatewayv1.NewGatewayServiceClient(cc)
	cred := &gatewayv1.SignInRequest_Device{Device: &gatewayv1.DeviceCredential{
		DeviceId: "test-device-0001", Secret: "9f2c61d0b84e3a57c1e6f08d2b9a4c73e5d18f6a02b7c94e"}}
	var player string
	for i, name := range []string{"Ada", "Ada L."} {
		in, err := gw.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: name, Credential: cred})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			player = in.GetPlayerId()
		}
		if in.GetPlayerId() != player || in.GetNewPlayer() != (i == 0) {
			t.Fatalf("sign-in %d: %v, want player %s", i, in, player)
		}
		playAgainstBot(t, gw, metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+in.GetSessionToken()), game)
	}
	// Both games finished before the player saw them finish: wait for the consumer to apply them,
	// looking again after each batch it applies.
	var ps *statsv1.GetPlayerStatsResponse
	applied.waitFor(t, 30*time.Second, func() bool {
		ps, err = statsSrv.GetPlayerStats(ctx, &statsv1.GetPlayerStatsRequest{PlayerId: player})
		return err == nil && ps.GetGames() >= 2
	}, func() string { return fmt.Sprint(ps, err) })
	if ps.GetGames() != 2 || len(ps.GetRecords()) != 1 || ps.GetRecords()[0].GetGames() != 2 || ps.GetDisplayName() != "Ada L." {
		t.Fatalf("player stats %v, want one record of 2 games under the name Ada L.", ps)
	}
	lb, err := statsSrv.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Game: game})
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, e := range lb.GetEntries() {
		if e.GetPlayerId() == player {
			rows++
		}
	}
	if rows > 1 {
		t.Fatalf("the leaderboard has %d rows for the player: %v", rows, lb)
	}
}

// playAgainstBot opens a two-seat table with a bot, plays the first legal action whenever it may,
// and returns when the table finishes.
func playAgainstBot(t *testing.T, gw gatewayv1.GatewayServiceClient, ctx context.Context, game string) {
	t.Helper()
	cr, err := gw.CreateTable(ctx, &gatewayv1.CreateTableRequest{Game: game, Seats: 2})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.GetTableId()
	if _, err := gw.AddBots(ctx, &gatewayv1.AddBotsRequest{TableId: id, Count: 1}); err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	w, err := gw.Watch(wctx, &gatewayv1.WatchRequest{TableId: id, IncludeLegalActions: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gw.StartTable(ctx, &gatewayv1.StartTableRequest{TableId: id}); err != nil {
		t.Fatal(err)
	}
	for n := 0; ; n++ {
		r, err := w.Recv()
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		if r.GetEvent().GetPayload().MessageIs(&eventsv1.TableFinished{}) {
			return
		}
		if acts := r.GetLegalActions().GetActions(); len(acts) > 0 {
			if _, err := gw.Act(ctx, &gatewayv1.ActRequest{TableId: id, Action: acts[0], ActionId: fmt.Sprint(id, "-", n)}); err != nil {
				t.Fatalf("act: %v", err)
			}
		}
	}
}

// progress tells when the stats consumer applies a batch.
type progress struct {
	mu      sync.Mutex
	changed chan struct{}
}

func newProgress() *progress { return &progress{changed: make(chan struct{})} }

func (p *progress) hook(context.Context, uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.changed)
	p.changed = make(chan struct{})
	return nil
}

// waitFor blocks until cond holds, looking again after each batch the consumer applies; it fails
// after d, saying what state() says.
func (p *progress) waitFor(t *testing.T, d time.Duration, cond func() bool, state func() string) {
	t.Helper()
	deadline := time.After(d)
	for {
		p.mu.Lock()
		ch := p.changed
		p.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("after %v: %s", d, state())
		}
	}
}
