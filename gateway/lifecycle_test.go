package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway"
	"cardroom.dev/gateway/lobby"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// takeover is how soon after a replica dies its table must play again (or its tickets be queued
// again): the default lease (3 s) runs out, then another replica claims the table.
const takeover = 5 * time.Second

// noAbsence keeps bots from standing in for the players while the tests look.
var noAbsence = gateway.Options{AbsenceGrace: time.Hour}

// crash is a fault that kills, once, the first gateway replica to reach step.
type crash struct {
	e     atomic.Pointer[Env] // set once the env is made, before any table starts
	step  string
	fired atomic.Bool
	gw    int
	table string
	at    time.Time
	done  chan struct{}
}

func newCrash(step string) *crash { return &crash{step: step, done: make(chan struct{})} }

// perGateway gives gateway replica gw the crash as its fault hook.
func (c *crash) perGateway(gw int, o *gateway.Options) {
	*o = gateway.WithFault(*o, func(table, step string) bool { return c.fault(gw, table, step) })
}

func (c *crash) fault(gw int, table, step string) bool {
	if step != c.step || !c.fired.CompareAndSwap(false, true) {
		return false
	}
	c.gw, c.table, c.at = gw, table, time.Now()
	c.e.Load().Kill(gw)
	close(c.done)
	return true
}

// wait waits for the crash and returns the replica that survived it.
func (c *crash) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("no replica reached %q", c.step)
	}
	return 1 - c.gw
}

// on is c's session on gateway replica gw.
func on(c *Client, e *Env, gw int) *Client {
	o := *c
	o.C, o.GW, o.Events = e.Dial(gw), gw, nil
	return &o
}

// TestStartCrash: a gateway replica killed at each step of a private table's start (after
// recording it, after the rules service created the table, after recording it dealt) leaves a
// table that the other replica deals (with the recorded seats, once) within 5 s, and whose bot it
// then plays to the end, recording the end from the TableFinished event.
func TestStartCrash(t *testing.T) {
	for _, step := range []string{"recorded", "created", "dealt"} {
		t.Run(step, func(t *testing.T) {
			c := newCrash(step)
			e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2, PerGateway: c.perGateway, Opt: noAbsence})
			c.e.Store(e)
			ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
			cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 3, Options: rounds(2)})
			if err != nil {
				t.Fatal(err)
			}
			id := cr.GetTableId()
			if _, err := bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
				t.Fatal(err)
			}
			if _, err := ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: 1}); err != nil {
				t.Fatal(err)
			}
			// Answered or not: the replica serving it may be the one that dies.
			started := make(chan error, 1)
			go func() {
				_, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id})
				started <- err
			}()
			alive := c.wait(t)
			if c.table != id {
				t.Fatalf("crashed at table %s, want %s", c.table, id)
			}
			recorded, err := e.Lobby.LoadTable(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			a, b := on(ann, e, alive), on(bob, e, alive)
			wa, wb := a.Watch(id, 0), b.Watch(id, 0)
			defer wa.Cancel()
			defer wb.Cancel()
			select {
			case ev, ok := <-wa.C:
				if !ok {
					t.Fatalf("watch ended: %v", <-wa.Done)
				}
				a.Events = append(a.Events, ev)
				t.Logf("replica %d died at %q; the table played %v later", c.gw, step, time.Since(c.at).Round(time.Millisecond))
				if d := time.Since(c.at); d > takeover {
					t.Errorf("the table played %v after the crash, want within %v", d.Round(time.Millisecond), takeover)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the table was not dealt after the crash")
			}
			// Dealt once, with the seats the start recorded.
			log, err := e.RulesClient.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: id})
			if err != nil {
				t.Fatal(err)
			}
			var dealt []string
			for _, s := range log.GetTable().GetConfig().GetSeats() {
				dealt = append(dealt, s.GetPlayer().GetPlayerId())
			}
			var want []string
			for _, p := range recorded.Seats {
				want = append(want, p.ID)
			}
			if !slices.Equal(dealt, want) {
				t.Fatalf("dealt seats %v, recorded %v", dealt, want)
			}
			// The surviving replica drives the bot: the table plays to its end.
			var wg sync.WaitGroup
			for _, p := range []struct {
				c *Client
				w *Watcher
			}{{a, wa}, {b, wb}} {
				wg.Add(1)
				go func() { defer wg.Done(); p.c.Play(id, p.w, first) }()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			waitTable(t, e, id, lobby.TableFinished)
			if c.gw == 1 {
				// Replica 0 survived: its StartTable was answered with the table dealt.
				if err := <-started; err != nil {
					t.Fatalf("StartTable on the surviving replica: %v", err)
				}
			}
		})
	}
}

// TestMatchCrash: a gateway replica killed at each step of a matched table's start (after
// claiming the tickets, after recording the table, after the rules service created it, after
// recording it dealt) leaves the tickets seated at one table that plays within 5 s, or back in the
// queue: never matched twice, never at two tables.
func TestMatchCrash(t *testing.T) {
	for _, step := range []string{"matched", "recorded", "created", "dealt"} {
		t.Run(step, func(t *testing.T) {
			c := newCrash(step)
			e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2, PerGateway: c.perGateway, Opt: noAbsence})
			c.e.Store(e)
			ann, bob := e.SignIn(0, "Ann"), e.SignIn(1, "Bob")
			var tickets []string
			// Bots fill the third seat after the wait: long enough that both tickets are queued
			// before it ends even on a busy machine (Ann's alone would be matched with two bots).
			for _, p := range []*Client{ann, bob} {
				r, err := p.C.EnqueueTicket(p.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 3, MaxSeats: 3, BotsMayFill: true,
					MaxWait: durationpb.New(time.Second), Options: rounds(2)})
				if err != nil {
					t.Fatal(err)
				}
				tickets = append(tickets, r.GetTicketId())
			}
			alive := c.wait(t)
			a, b := on(ann, e, alive), on(bob, e, alive)
			var ms [2]*gatewayv1.WatchTicketResponse
			var wg sync.WaitGroup
			for i, p := range []*Client{a, b} {
				wg.Add(1)
				go func() { defer wg.Done(); ms[i] = p.WaitMatched(tickets[i]) }()
			}
			wg.Wait()
			t.Logf("replica %d died at %q; the tickets were matched %v later", c.gw, step, time.Since(c.at).Round(time.Millisecond))
			if d := time.Since(c.at); d > takeover {
				t.Errorf("the tickets were matched %v after the crash, want within %v", d.Round(time.Millisecond), takeover)
			}
			id := ms[0].GetTableId()
			if ms[1].GetTableId() != id || ms[0].GetSeat() == ms[1].GetSeat() {
				t.Fatalf("matched %v and %v: want one table, two seats", ms[0], ms[1])
			}
			// No double booking: the crashed start's table is this one (dealt by the survivor), or
			// the game never heard of it (its tickets went back to the queue first).
			if c.table != id {
				if _, err := e.RulesClient.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: c.table}); status.Code(err) != codes.NotFound {
					t.Fatalf("the crashed start's table %s: %v, want NOT_FOUND beside %s", c.table, err, id)
				}
			}
			lt, err := e.Lobby.LoadTable(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(lt.Tickets, tickets) && !slices.Equal(lt.Tickets, []string{tickets[1], tickets[0]}) {
				t.Fatalf("table's tickets %v, want %v", lt.Tickets, tickets)
			}
			seated := 0
			for _, p := range lt.Seats {
				if p.ID == ann.ID || p.ID == bob.ID {
					seated++
				}
			}
			if seated != 2 || len(lt.Seats) != 3 {
				t.Fatalf("seats %v: want Ann and Bob once each, and a bot", lt.Seats)
			}
			for _, tid := range tickets {
				tk, err := e.Lobby.LoadTicket(t.Context(), tid)
				if err != nil || tk.State != lobby.TicketMatched || tk.TableID != id {
					t.Fatalf("ticket %s: %v %q (%v), want matched to %s", tid, tk.State, tk.TableID, err, id)
				}
			}
			// It plays to its end, its bot driven by the survivor.
			for _, p := range []*Client{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					w := p.Watch(id, 0)
					defer w.Cancel()
					p.Play(id, w, first)
				}()
			}
			wg.Wait()
			if !t.Failed() {
				waitTable(t, e, id, lobby.TableFinished)
			}
		})
	}
}
