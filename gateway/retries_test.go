package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway"
	"cardroom.dev/gateway/lobby"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

func players(tb *gatewayv1.Table) (people, bots int) {
	for _, p := range tb.GetPlayers() {
		if p.GetKind() == gamev1.PlayerKind_PLAYER_KIND_BOT {
			bots++
		} else {
			people++
		}
	}
	return people, bots
}

// TestAddBotsRequestID: AddBots with a request id is applied once, whatever the retries; the
// same id for another count is refused; another id adds bots again; no id, no protection. On
// memory and on Redis.
func TestAddBotsRequestID(t *testing.T) {
	for _, redis := range []bool{false, true} {
		t.Run(map[bool]string{false: "memory", true: "redis"}[redis], func(t *testing.T) {
			e := NewEnv(t, EnvOptions{Redis: redis})
			ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
			cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 4, Options: rounds(1)})
			if err != nil {
				t.Fatal(err)
			}
			id := cr.GetTableId()
			add := func(c *Client, count uint32, requestID string) (*gatewayv1.Table, error) {
				r, err := c.C.AddBots(c.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: count, RequestId: requestID})
				return r.GetTable(), err
			}
			first, err := add(ann, 2, "r1")
			if err != nil {
				t.Fatal(err)
			}
			if _, n := players(first); n != 2 {
				t.Fatalf("%d bots after the first call, want 2", n)
			}
			again, err := add(ann, 2, "r1")
			if err != nil {
				t.Fatalf("retry: %v", err)
			}
			if !proto.Equal(first, again) {
				t.Fatalf("retry answered %v, want the first answer %v", again, first)
			}
			_, err = add(ann, 1, "r1")
			wantCode(t, err, codes.InvalidArgument, refusal.RequestIDReused)
			_, err = add(bob, 2, "r1")
			wantCode(t, err, codes.PermissionDenied, refusal.NotOwner)
			_, err = add(ann, 1, strings.Repeat("x", 129))
			wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
			full, err := add(ann, 1, "r2")
			if err != nil {
				t.Fatal(err)
			}
			if _, n := players(full); n != 3 || len(full.GetPlayers()) != 4 {
				t.Fatalf("another id: %d bots, %d players; want 3, 4", n, len(full.GetPlayers()))
			}
			// The table is full: retries of applied requests still succeed, new ones do not.
			for _, r := range []struct {
				count uint32
				id    string
			}{{2, "r1"}, {1, "r2"}} {
				tb, err := add(ann, r.count, r.id)
				if err != nil {
					t.Fatalf("retry of %s at a full table: %v", r.id, err)
				}
				if !proto.Equal(tb, full) {
					t.Fatalf("retry of %s answered %v, want %v", r.id, tb, full)
				}
			}
			_, err = add(ann, 1, "r3")
			wantCode(t, err, codes.FailedPrecondition, refusal.TableFull)
			_, err = add(ann, 1, "")
			wantCode(t, err, codes.FailedPrecondition, refusal.TableFull)
			// After the start, a late retry is answered with the table as it is now.
			if _, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id}); err != nil {
				t.Fatal(err)
			}
			late, err := add(ann, 2, "r1")
			if err != nil {
				t.Fatalf("retry after the start: %v", err)
			}
			if late.GetState() != gatewayv1.TableState_TABLE_STATE_PLAYING || len(late.GetSeats()) != 4 {
				t.Fatalf("retry after the start answered %v", late)
			}
			_, err = add(ann, 1, "r4")
			wantCode(t, err, codes.FailedPrecondition, refusal.TableStarted)
		})
	}
}

// TestAddBotsNoRequestID: without a request id every call adds bots, as it always did.
func TestAddBotsNoRequestID(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 4})
	if err != nil {
		t.Fatal(err)
	}
	for want := 1; want <= 3; want++ {
		r, err := ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: cr.GetTableId(), Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, n := players(r.GetTable()); n != want {
			t.Fatalf("%d bots, want %d", n, want)
		}
	}
}

// TestAddBotsRetriesRace: retries of one AddBots racing through two gateway replicas on Redis (a
// client that gave up on one replica and tried the other) add the bots once, and all succeed.
func TestAddBotsRetriesRace(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2})
	ann := e.SignIn(0, "Ann")
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 4})
	if err != nil {
		t.Fatal(err)
	}
	clients := []gatewayv1.GatewayServiceClient{ann.C, e.Dial(1)}
	var (
		wg  sync.WaitGroup
		oks atomic.Int32
	)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := clients[i%2].AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: cr.GetTableId(), Count: 3, RequestId: "fill"})
			if err != nil {
				t.Errorf("attempt %d: %v", i, err)
				return
			}
			oks.Add(1)
		}()
	}
	wg.Wait()
	tb, err := e.Lobby.LoadTable(t.Context(), cr.GetTableId())
	if err != nil {
		t.Fatal(err)
	}
	bots := slices.DeleteFunc(slices.Clone(tb.Players), func(p lobby.Player) bool { return !p.Bot })
	if oks.Load() != 12 || len(bots) != 3 || tb.Version != 2 {
		t.Fatalf("%d of 12 attempts succeeded, %d bots at version %d; want 12, 3 at 2", oks.Load(), len(bots), tb.Version)
	}
}

// TestJoinTableRetry: joining again a table one is at answers the table, before and after the
// start, and takes no second place.
func TestJoinTableRetry(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, bob, cid := e.SignIn(0, "Ann"), e.SignIn(0, "Bob"), e.SignIn(0, "Cid")
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 3})
	if err != nil {
		t.Fatal(err)
	}
	join := func(c *Client) (*gatewayv1.Table, error) {
		r, err := c.C.JoinTable(c.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()})
		return r.GetTable(), err
	}
	first, err := join(bob)
	if err != nil {
		t.Fatal(err)
	}
	again, err := join(bob)
	if err != nil {
		t.Fatalf("join again: %v", err)
	}
	if !proto.Equal(first, again) || len(again.GetPlayers()) != 2 {
		t.Fatalf("join again answered %v, want %v", again, first)
	}
	// The owner is at the table too.
	if tb, err := join(ann); err != nil || len(tb.GetPlayers()) != 2 {
		t.Fatalf("the owner joining: %v %v", tb, err)
	}
	if _, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: cr.GetTableId()}); err != nil {
		t.Fatal(err)
	}
	late, err := join(bob)
	if err != nil {
		t.Fatalf("join again after the start: %v", err)
	}
	if late.GetState() != gatewayv1.TableState_TABLE_STATE_PLAYING || late.YourSeat == nil {
		t.Fatalf("join again after the start answered %v", late)
	}
	// Someone who has no seat still cannot join a started table.
	_, err = join(cid)
	wantCode(t, err, codes.FailedPrecondition, refusal.TableStarted)
}

// TestStartTableRetry: the owner starting a dealt table again is answered the table as it is (the
// same seats: no second shuffle); starting a table recorded as starting and not dealt yet waits for
// its owner's deal, with the recorded seats; a closed table is still refused.
func TestStartTableRetry(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 1, rounds(1), 0)
	id := tb.GetTableId()
	again, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id})
	if err != nil {
		t.Fatalf("start again: %v", err)
	}
	if !proto.Equal(again.GetTable(), tb) {
		t.Fatalf("start again answered %v, want %v", again.GetTable(), tb)
	}
	_, err = bob.C.StartTable(bob.Ctx(), &gatewayv1.StartTableRequest{TableId: id})
	wantCode(t, err, codes.PermissionDenied, refusal.NotOwner)

	// Recorded as starting (as by a gateway that died before dealing it): the table's owner deals
	// it with the seats recorded (the bot first), once however many retries race.
	und := startedUndealt(t, e, ann)
	var wg sync.WaitGroup
	answers := make([]*gatewayv1.StartTableResponse, 4)
	errs := make([]error, len(answers))
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], errs[i] = ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: und.ID})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("start %d of a table never dealt: %v", i, err)
		}
		if answers[i].GetTable().GetYourSeat() != 1 {
			t.Fatalf("start %d: the owner at seat %d, want 1 (the seats recorded)", i, answers[i].GetTable().GetYourSeat())
		}
	}
	log, err := e.RulesClient.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: und.ID})
	if err != nil {
		t.Fatal(err)
	}
	if seats := log.GetTable().GetConfig().GetSeats(); len(seats) != 2 || seats[0].GetPlayer().GetPlayerId() != "bot-x" {
		t.Fatalf("dealt seats %v, want the bot first", seats)
	}

	// A closed table stays closed.
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ann.C.LeaveTable(ann.Ctx(), &gatewayv1.LeaveTableRequest{TableId: cr.GetTableId()}); err != nil {
		t.Fatal(err)
	}
	_, err = ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: cr.GetTableId()})
	wantCode(t, err, codes.FailedPrecondition, refusal.TableStarted)
}

// startedUndealt records a new two-seat table of owner's, with a bot, as starting (its start
// recorded, not dealt: a gateway that died between the two), the bot in seat 0. It returns the
// table as stored.
func startedUndealt(t *testing.T, e *Env, owner *Client) lobby.Table {
	t.Helper()
	cr, err := owner.C.CreateTable(owner.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2})
	if err != nil {
		t.Fatal(err)
	}
	lt, err := e.Lobby.LoadTable(t.Context(), cr.GetTableId())
	if err != nil {
		t.Fatal(err)
	}
	lt.Players = append(lt.Players, lobby.Player{ID: "bot-x", Name: "Bot X", Bot: true})
	lt.State, lt.Seats = lobby.TableStarting, []lobby.Player{lt.Players[1], lt.Players[0]}
	lt.Deadline = time.Now().Add(time.Minute)
	if err := e.Lobby.UpdateTable(t.Context(), lt, 0); err != nil {
		t.Fatal(err)
	}
	lt.Version++
	return lt
}

// TestOwnerDealsRecordedStart: a table recorded as starting and never dealt (whoever started it
// died in between) is dealt by its owner, the replica holding its lease, with the seats recorded;
// a seated player's Watch only waits for it. A matched table recorded as closing is closed by its
// owner: its streams end, and the game never hears of it.
func TestOwnerDealsRecordedStart(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{AbsenceGrace: time.Hour}})
	ann := e.SignIn(0, "Ann")
	lt := startedUndealt(t, e, ann)
	id := lt.ID
	w := ann.Watch(id, 0)
	defer w.Cancel()
	select {
	case ev, ok := <-w.C:
		if !ok {
			t.Fatalf("watch ended: %v", <-w.Done)
		}
		if ev.GetSequence() != 1 {
			t.Fatalf("first event has sequence %d, want 1", ev.GetSequence())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the table was not dealt")
	}
	log, err := e.RulesClient.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	if seats := log.GetTable().GetConfig().GetSeats(); len(seats) != 2 || seats[0].GetPlayer().GetPlayerId() != "bot-x" {
		t.Fatalf("dealt seats %v, want the bot first", seats)
	}
	// The owner's retry finds it dealt, and changes nothing.
	again, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	if again.GetTable().GetYourSeat() != 1 {
		t.Fatalf("the owner at seat %d, want 1", again.GetTable().GetYourSeat())
	}

	// Closing: the owner closes it; a player's stream ends, and the game never hears of the table.
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2})
	if err != nil {
		t.Fatal(err)
	}
	w2 := ann.Watch(cr.GetTableId(), 0)
	defer w2.Cancel()
	lt, err = e.Lobby.LoadTable(t.Context(), cr.GetTableId())
	if err != nil {
		t.Fatal(err)
	}
	lt.Players = append(lt.Players, lobby.Player{ID: "bot-y", Name: "Bot Y", Bot: true})
	lt.State, lt.Seats = lobby.TableClosing, lt.Players
	if err := e.Lobby.UpdateTable(t.Context(), lt, 0); err != nil {
		t.Fatal(err)
	}
	select {
	case ev, ok := <-w2.C:
		if ok {
			t.Fatalf("a closed table's stream brought %v", ev)
		}
		wantCode(t, <-w2.Done, codes.FailedPrecondition, refusal.TableStarted)
	case <-time.After(20 * time.Second):
		t.Fatal("the stream of a closed table did not end")
	}
	waitTable(t, e, cr.GetTableId(), lobby.TableClosed)
	_, err = e.RulesClient.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: cr.GetTableId()})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("the closed table's log: %v, want NOT_FOUND", err)
	}
}

// TestTicketOfClosingTable: a ticket matched to a table its owner closes before the deal (the
// deal failed for now) is never reported matched: its stream says queued, and the owner puts the
// ticket back in the queue, where the matcher finds it again.
func TestTicketOfClosingTable(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	r, err := ann.C.EnqueueTicket(ann.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 4, MaxSeats: 4, MaxWait: durationpb.New(10 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := e.Lobby.LoadTicket(t.Context(), r.GetTicketId())
	if err != nil {
		t.Fatal(err)
	}
	tk.State, tk.TableID = lobby.TicketMatched, "t-closing"+tk.ID
	if err := e.Lobby.UpdateTicket(t.Context(), tk, 0); err != nil {
		t.Fatal(err)
	}
	s := ann.WatchTicket(r.GetTicketId())
	m, err := s.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if m.GetState() != gatewayv1.TicketState_TICKET_STATE_QUEUED || m.GetTableId() != "" {
		t.Fatalf("ticket of an undealt table reported %v, want queued", m)
	}
	if err := e.Lobby.CreateTable(t.Context(), lobby.Table{ID: tk.TableID, Game: TestGame, State: lobby.TableClosing, Capacity: 4,
		Players: tk.Players, Seats: tk.Players, Tickets: []string{tk.ID}}, time.Hour); err != nil {
		t.Fatal(err)
	}
	waitTable(t, e, tk.TableID, lobby.TableClosed)
	back, err := e.Lobby.LoadTicket(t.Context(), r.GetTicketId())
	if err != nil {
		t.Fatal(err)
	}
	if back.State != lobby.TicketQueued || back.TableID != "" {
		t.Fatalf("ticket after its table closed: state %v table %q, want queued", back.State, back.TableID)
	}
	// The stream never said matched.
	if m, err = s.Recv(); err != nil || m.GetState() != gatewayv1.TicketState_TICKET_STATE_QUEUED {
		t.Fatalf("ticket stream after the requeue: %v %v", m, err)
	}
}

// waitTable waits until table id's lobby record is in state want (its owner's transitions have no
// event to wait on from outside).
func waitTable(t *testing.T, e *Env, id string, want lobby.TableState) lobby.Table {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lt, err := e.Lobby.LoadTable(t.Context(), id)
		if err == nil && lt.State == want {
			return lt
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s: %v (%v), want %v within 10s", id, lt.State, err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTicketRefusedByGame: tickets whose matched table the game refuses for good (options it does
// not accept) are cancelled rather than matched again and again: the stream reports CANCELLED,
// then ends with the game's reason.
func TestTicketRefusedByGame(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	r, err := ann.C.EnqueueTicket(ann.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 2, MaxSeats: 2, BotsMayFill: true,
		MaxWait: durationpb.New(100 * time.Millisecond), Options: rounds(5000)})
	if err != nil {
		t.Fatal(err)
	}
	s := ann.WatchTicket(r.GetTicketId())
	var last *gatewayv1.WatchTicketResponse
	for {
		m, err := s.Recv()
		if err != nil {
			wantCode(t, err, codes.InvalidArgument, refusal.TicketRefused)
			if !strings.Contains(status.Convert(err).Message(), "1000 rounds") {
				t.Fatalf("the refusal does not give the game's reason: %v", err)
			}
			break
		}
		if m.GetState() == gatewayv1.TicketState_TICKET_STATE_MATCHED {
			t.Fatalf("a ticket the game refused was reported matched: %v", m)
		}
		last = m
	}
	if last.GetState() != gatewayv1.TicketState_TICKET_STATE_CANCELLED {
		t.Fatalf("last message before the refusal: %v, want cancelled", last)
	}
	tk, err := e.Lobby.LoadTicket(t.Context(), r.GetTicketId())
	if err != nil {
		t.Fatal(err)
	}
	if tk.State != lobby.TicketCancelled {
		t.Fatalf("ticket state %v, want cancelled", tk.State)
	}
}

// TestStartRefusedByGame: a private table whose deal the game refuses for good (options it does
// not accept) is opened again by its owner's loop, and StartTable answers the game's refusal.
func TestStartRefusedByGame(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: rounds(5000)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: cr.GetTableId(), Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: cr.GetTableId()})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "1000 rounds") {
		t.Fatalf("start refused with %v, want the game's INVALID_ARGUMENT", err)
	}
	g, err := ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: cr.GetTableId()})
	if err != nil {
		t.Fatal(err)
	}
	if g.GetTable().GetState() != gatewayv1.TableState_TABLE_STATE_OPEN || len(g.GetTable().GetSeats()) != 0 {
		t.Fatalf("table after a refused start: %v, want open without seats", g.GetTable())
	}
	if _, err := e.RulesClient.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: cr.GetTableId()}); status.Code(err) != codes.NotFound {
		t.Fatalf("the refused table's log: %v, want NOT_FOUND", err)
	}
}
