package main

import (
	"testing"
	"time"

	"cardroom.dev/gateway"
	"cardroom.dev/gateway/gatewaytest"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai"
	"cardroom.dev/services/saboteur"
	"cardroom.dev/services/sapotagem"
	"cardroom.dev/services/sponsio"
)

// TestRealGames plays a whole table of each game through the gateway: its owner adds bots, starts,
// and stays away, so after the grace period bots play every seat. A spectator watches to the end
// and receives public events only; the owner's seat was played from its own view (SuggestAction).
func TestRealGames(t *testing.T) {
	games := []engine.Engine{sapotagem.Engine(), sponsio.Engine(), saboteur.Engine(), sabaisabai.Engine()}
	e := gatewaytest.NewEnv(t, gatewaytest.EnvOptions{Games: games, Opt: gateway.Options{AbsenceGrace: 100 * time.Millisecond}})
	owner, spy := e.SignIn(0, "Owner"), e.SignIn(0, "Spectator")
	list, err := owner.C.ListGames(owner.Ctx(), &gatewayv1.ListGamesRequest{})
	if err != nil || len(list.GetGames()) != len(games) {
		t.Fatalf("games %v %v", list, err)
	}
	for _, g := range list.GetGames() {
		t.Run(g.GetGame(), func(t *testing.T) {
			req := &gatewayv1.CreateTableRequest{Game: g.GetGame(), Seats: g.GetMinSeats()}
			if g.GetGame() == "sabaisabai" {
				// A whole game at the reflex window's pace (800 ms a turn) outlasts the test;
				// TestPersonBeatsBotsThroughTheHarness (services/sabaisabai) plays the timing.
				req.Options = untimedSabai(t)
			}
			if d := g.GetDefaultOptions(); d != nil {
				// The defaults a client's options editor starts from make a table the game plays.
				req.Options = d
			}
			if g.GetGame() == "sponsio" {
				var o sponsiov1.Options
				if err := g.GetDefaultOptions().UnmarshalTo(&o); err != nil || len(o.GetCouponTable().GetCoupons()) != 16 {
					t.Fatalf("Sponsio's default options %v (%v): want the 16 coupons of the standard table", &o, err)
				}
			}
			cr, err := owner.C.CreateTable(owner.Ctx(), req)
			if err != nil {
				t.Fatal(err)
			}
			id := cr.GetTableId()
			if _, err := owner.C.AddBots(owner.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: g.GetMinSeats() - 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := owner.C.StartTable(owner.Ctx(), &gatewayv1.StartTableRequest{TableId: id}); err != nil {
				t.Fatal(err)
			}
			w := spy.Watch(id, 0)
			defer w.Cancel()
			spy.Events = nil
			deadline := time.After(2 * time.Minute)
			for done := false; !done; {
				select {
				case ev, ok := <-w.C:
					if !ok {
						t.Fatalf("watch ended before the end: %v", <-w.Done)
					}
					spy.Events = append(spy.Events, ev)
					done = gatewaytest.IsFinished(ev)
				case <-deadline:
					t.Fatalf("%s did not finish; %d events", g.GetGame(), len(spy.Events))
				}
			}
			replay, err := owner.C.GetReplay(owner.Ctx(), &gatewayv1.GetReplayRequest{TableId: id})
			if err != nil {
				t.Fatal(err)
			}
			gatewaytest.CheckStream(t, spy, gatewaytest.Spectator, gatewaytest.ReplayEvents(replay))
		})
	}
}
