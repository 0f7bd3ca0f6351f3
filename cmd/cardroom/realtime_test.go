package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/sabaisabai/engine"
	"cardroom.dev/services/sabaisabai/sabaisabaitest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// personLatency is how long after a discard lands the person's throw reaches the table: a quick
// player over a network, faster than the slowest bot but slower than the bots' best in the past
// (they answered in microseconds, before Rulings R1 and B1).
const personLatency = 300 * time.Millisecond

// TestPersonBeatsBotsThroughTheGateway plays sabai-sabai as a person would meet it: `cardroom
// serve` with its real clock, a table of one person and three bots at the table's default timing
// (the throw window and the bots' reaction delays and think of Rulings R1 and B1), the bots played
// by the gateway's driver. Every seat sees its whole row from the deal (peek_at_start 4), so when a
// discard shows a rank, whoever holds one knows it. The person throws a matching card 300 ms after
// each discard that lands on one of theirs, until the game ends. Each of those throws must be
// accepted and land before any bot's throw on that discard; the person must have won three races at
// least, and the bots must have thrown during the game (they race; whether one held a match on a
// discard the person threw on depends on the deal, which the gateway draws at random, so that is
// logged, not required: TestPersonBeatsBotsThroughTheHarness requires it on a chosen seed).
//
// A discard the person learns of later than 300 ms after it landed (a machine too busy to deliver
// the event in time) is no race for this test and is passed over.
func TestPersonBeatsBotsThroughTheGateway(t *testing.T) {
	addr := startServe(t)
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	gw := gatewayv1.NewGatewayServiceClient(cc)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	in, err := gw.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: "Quick"})
	if err != nil {
		t.Fatal(err)
	}
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+in.GetSessionToken())
	opts, err := anypb.New(&pb.Options{PeekAtStart: 4})
	if err != nil {
		t.Fatal(err)
	}
	cr, err := gw.CreateTable(ctx, &gatewayv1.CreateTableRequest{Game: "sabaisabai", Seats: 4, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.GetTableId()
	if _, err := gw.AddBots(ctx, &gatewayv1.AddBotsRequest{TableId: id, Count: 3}); err != nil {
		t.Fatal(err)
	}
	st, err := gw.StartTable(ctx, &gatewayv1.StartTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	me := st.GetTable().GetYourSeat()
	w, err := gw.Watch(ctx, &gatewayv1.WatchRequest{TableId: id, IncludeLegalActions: true})
	if err != nil {
		t.Fatal(err)
	}
	view := func() *pb.View {
		r, err := gw.GetView(ctx, &gatewayv1.GetViewRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		v := &pb.View{}
		if err := r.GetView().UnmarshalTo(v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	act := func(a *anypb.Any, what string, n int) (*gatewayv1.ActResponse, error) {
		return gw.Act(ctx, &gatewayv1.ActRequest{TableId: id, Action: a, ActionId: fmt.Sprint(what, "-", n)})
	}
	won, late := map[uint64]bool{}, 0 // won: the versions of the person's accepted throws
	var tried time.Time               // the window end of the discard last raced for
	finished := false
	for n := 0; !finished; n++ {
		r, err := w.Recv()
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		for _, ev := range append(r.GetEvents(), r.GetEvent()) {
			finished = finished || ev.GetPayload().GetTypeUrl() == "type.googleapis.com/cardroom.events.v1.TableFinished"
		}
		if finished {
			break
		}
		v := view()
		if ends := v.GetThrowWindowEnds(); ends != nil && !ends.AsTime().Equal(tried) {
			tried = ends.AsTime()
			if a := matchingThrow(t, gw, ctx, id, me, v); a != nil {
				aim := ends.AsTime().Add(-engine.DefaultThrowWindow).Add(personLatency)
				if wait := time.Until(aim); wait < 0 {
					late++
				} else {
					time.Sleep(wait) // the person's reaction, not a wait for an event
					resp, err := act(a, "throw", n)
					if err != nil {
						t.Fatalf("the person's throw %v after the discard was refused: %v", personLatency, err)
					}
					won[resp.GetVersion()] = true
				}
			}
		}
		// The person plays their turns: draws, plays the drawn card (it lands after the window),
		// and carries out the effects they execute on their first target.
		if l := r.GetLegalActions(); len(l.GetActions()) > 0 {
			for _, a := range l.GetActions() {
				m := &pb.Action{}
				if a.UnmarshalTo(m) != nil || m.GetDraw() == nil && m.GetPlay() == nil && m.GetResolve() == nil {
					continue
				}
				if _, err := act(a, "turn", n); err != nil && status.Code(err) != codes.FailedPrecondition && status.Code(err) != codes.Aborted {
					t.Fatalf("the person's turn: %v", err)
				}
				break
			}
		}
	}
	after, botThrows := botThrewAfter(t, gw, ctx, id, me, won)
	if len(won) < 3 || botThrows == 0 {
		t.Fatalf("the game ended after %d races won (%d discards seen too late) and %d bot throws: too few to tell", len(won), late, botThrows)
	}
	t.Logf("the person won %d races (%d discards seen too late to race); the bots threw %d times, %d of them on a discard the person had thrown on first",
		len(won), late, botThrows, after)
}

// botThrewAfter checks the finished table's replay: no bot's throw lands between a discard and the
// person's accepted throw on it (won: their versions), and bots throw no sooner than their least
// reaction delay. It counts the bots' throws on discards the person threw on first, and in all.
func botThrewAfter(t *testing.T, gw gatewayv1.GatewayServiceClient, ctx context.Context, id string, me uint32, won map[uint64]bool) (after, all int) {
	t.Helper()
	rp, err := gw.GetReplay(ctx, &gatewayv1.GetReplayRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	var discardAt time.Time
	bot, person := false, false
	for _, e := range rp.GetEntries() {
		for _, ev := range e.GetEvents() {
			m := &pb.Event{}
			if ev.GetPayload().UnmarshalTo(m) != nil {
				continue
			}
			switch th := m.GetThrown(); {
			case m.GetPlayed() != nil || m.GetKept() != nil:
				discardAt, bot, person = e.GetTime().AsTime(), false, false
			case th != nil && th.GetThrower() != me:
				bot = true
				all++
				if person {
					after++
				}
				if d := e.GetTime().AsTime().Sub(discardAt); d < engine.DefaultBotReactionMin {
					t.Fatalf("a bot threw %v after the discard, before its least reaction delay", d)
				}
			case th != nil && won[e.GetVersion()]:
				if bot {
					t.Fatalf("a bot's throw came before the person's at version %d", e.GetVersion())
				}
				person = true
			}
		}
	}
	return after, all
}

// matchingThrow is the person's legal throw of one card of theirs they know matches the top, or nil.
func matchingThrow(t *testing.T, gw gatewayv1.GatewayServiceClient, ctx context.Context, id string, me uint32, v *pb.View) *anypb.Any {
	t.Helper()
	l, err := gw.ListLegalActions(ctx, &gatewayv1.ListLegalActionsRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	return sabaisabaitest.MatchingThrow(l.GetActions(), me, v)
}
