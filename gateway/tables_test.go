package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cardroom.dev/gateway"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"strconv"
)

func wantCode(t *testing.T, err error, c codes.Code, violation string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != c {
		t.Fatalf("got %v, want %v", err, c)
	}
	if violation == "" {
		return
	}
	for _, d := range st.Details() {
		if v, ok := d.(*gamev1.RuleViolation); ok {
			if v.GetCode() != violation {
				t.Fatalf("violation %s, want %s", v.GetCode(), violation)
			}
			return
		}
	}
	t.Fatalf("%v has no RuleViolation detail (want %s)", err, violation)
}

// privateTable opens a table of owner with the others joined by its code and bots added, started.
func privateTable(t testing.TB, owner *Client, others []*Client, nbots uint32, opts *anypb.Any, perAction time.Duration) *gatewayv1.Table {
	t.Helper()
	req := &gatewayv1.CreateTableRequest{Game: TestGame, Seats: uint32(1 + len(others) + int(nbots)), Options: opts}
	if perAction > 0 {
		req.TimeLimits = &gamev1.TimeLimits{PerAction: durationpb.New(perAction)}
	}
	cr, err := owner.C.CreateTable(owner.Ctx(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range others {
		if _, err := o.C.JoinTable(o.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
			t.Fatal(err)
		}
	}
	if nbots > 0 {
		if _, err := owner.C.AddBots(owner.Ctx(), &gatewayv1.AddBotsRequest{TableId: cr.GetTableId(), Count: nbots}); err != nil {
			t.Fatal(err)
		}
	}
	sr, err := owner.C.StartTable(owner.Ctx(), &gatewayv1.StartTableRequest{TableId: cr.GetTableId()})
	if err != nil {
		t.Fatal(err)
	}
	return sr.GetTable()
}

func TestPrivateTableLobby(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, bob, cid := e.SignIn(0, "Ann"), e.SignIn(0, "Bob"), e.SignIn(0, "Cid")
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 3, Options: rounds(2)})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.GetTableId()
	_, err = bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: "NOSUCHCD"})
	wantCode(t, err, codes.NotFound, refusal.TableNotFound)
	if _, err := bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
		t.Fatal(err)
	}
	_, err = bob.C.AddBots(bob.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: 1})
	wantCode(t, err, codes.PermissionDenied, refusal.NotOwner)
	_, err = bob.C.StartTable(bob.Ctx(), &gatewayv1.StartTableRequest{TableId: id})
	wantCode(t, err, codes.PermissionDenied, refusal.NotOwner)
	if _, err := cid.C.JoinTable(cid.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
		t.Fatal(err)
	}
	if _, err := cid.C.LeaveTable(cid.Ctx(), &gatewayv1.LeaveTableRequest{TableId: id}); err != nil {
		t.Fatal(err)
	}
	_, err = ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: 2})
	wantCode(t, err, codes.FailedPrecondition, refusal.TableFull)
	if _, err := ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = bob.C.Act(bob.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: action("pass"), ActionId: "x"})
	wantCode(t, err, codes.FailedPrecondition, refusal.TableNotStarted)
	// Bob watches before the start: the stream waits for the deal. A stranger may not wait so.
	early := bob.Watch(id, 0)
	defer early.Cancel()
	stranger := cid.Watch(id, 0)
	if _, ok := <-stranger.C; ok {
		t.Fatal("a stranger received an event of an open table")
	}
	wantCode(t, <-stranger.Done, codes.FailedPrecondition, refusal.TableNotStarted)
	sr, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	tb := sr.GetTable()
	select {
	case ev := <-early.C:
		if ev.GetSequence() != 1 {
			t.Fatalf("first event after the start: %v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the early watcher got nothing at the start")
	}
	early.Cancel()
	if tb.GetState() != gatewayv1.TableState_TABLE_STATE_PLAYING || len(tb.GetSeats()) != 3 || tb.YourSeat == nil {
		t.Fatalf("started table %v", tb)
	}
	_, err = bob.C.LeaveTable(bob.Ctx(), &gatewayv1.LeaveTableRequest{TableId: id})
	wantCode(t, err, codes.FailedPrecondition, refusal.TableStarted)
	gr, err := bob.C.GetTable(bob.Ctx(), &gatewayv1.GetTableRequest{TableId: id})
	if err != nil || gr.GetTable().YourSeat == nil || gr.GetTable().GetInviteCode() != "" {
		t.Fatalf("bob's table %v %v", gr, err)
	}
	// Play it out: the bot seat is played by the gateway.
	var wg sync.WaitGroup
	for _, c := range []*Client{ann, bob} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := c.Watch(id, 0)
			defer w.Cancel()
			c.Play(id, w, first)
		}()
	}
	wg.Wait()
	// The table's owner records the end, learned from the TableFinished event the players saw.
	deadline := time.Now().Add(10 * time.Second)
	for {
		gr, err = ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		if gr.GetTable().GetState() == gatewayv1.TableState_TABLE_STATE_FINISHED {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("table state %v 10s after the end", gr.GetTable().GetState())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestResumeWatch: a client drops its stream mid-game and resumes after the last sequence it saw;
// over both streams it receives every event it may see exactly once, in order.
func TestResumeWatch(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 1, rounds(6), 0)
	id := tb.GetTableId()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := ann.Watch(id, 0)
		defer w.Cancel()
		ann.Play(id, w, first)
	}()
	// Bob plays a while, drops, lets the game move on, then resumes.
	w := bob.Watch(id, 0)
	stopAt := 12
	for len(bob.Events) < stopAt {
		legal, err := bob.C.ListLegalActions(bob.Ctx(), &gatewayv1.ListLegalActionsRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(legal.GetActions()) > 0 {
			v := legal.GetVersion()
			if _, err := bob.C.Act(bob.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: legal.GetActions()[0], ActionId: NextActionID(), ExpectedVersion: &v}); err != nil && !IsRace(err) {
				t.Fatal(err)
			}
		}
		select {
		case ev := <-w.C:
			bob.Events = append(bob.Events, ev)
		case <-time.After(30 * time.Second):
			t.Fatal("no events")
		}
	}
	w.Cancel()
	for ev := range w.C { // what was already in flight counts as received
		bob.Events = append(bob.Events, ev)
	}
	// Bob resumes on the other gateway replica, which has not followed this table yet: what he
	// missed comes from the table's log, the rest from the bus.
	last := bob.Events[len(bob.Events)-1].GetSequence()
	bob.C, bob.GW = e.Dial(1), 1
	w2 := bob.Watch(id, last)
	defer w2.Cancel()
	if f := bob.Play(id, w2, first); f == nil {
		t.FailNow()
	}
	wg.Wait()
	replay, err := bob.C.GetReplay(bob.Ctx(), &gatewayv1.GetReplayRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := bob.C.GetView(bob.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
	checkStream(t, bob, ReplayEvents(replay), []*gatewayv1.GetViewResponse{v})
}

// TestIdempotentAct: an action repeated with the same id is applied once.
func TestIdempotentAct(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 0, rounds(3), 0)
	id := tb.GetTableId()
	c := ann
	if tb.GetYourSeat() != 0 {
		c = bob // seat 0 moves first
	}
	r1, err := c.C.Act(c.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: action("reveal"), ActionId: "once"})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := c.C.Act(c.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: action("reveal"), ActionId: "once"})
	if err != nil {
		t.Fatal(err)
	}
	if r1.GetReplayed() || !r2.GetReplayed() || r1.GetVersion() != r2.GetVersion() || r1.GetVersion() != 1 {
		t.Fatalf("first %v, retry %v", r1, r2)
	}
	l, err := e.RulesClient.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.GetEntries()) != 1 || l.GetTable().GetVersion() != 1 {
		t.Fatalf("log has %d entries at version %d, want 1", len(l.GetEntries()), l.GetTable().GetVersion())
	}
}

// TestAbsentSeatPlayedByBot: a player who never watches is played by a bot after the grace period;
// once they watch again the seat is theirs.
func TestAbsentSeatPlayedByBot(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{AbsenceGrace: 300 * time.Millisecond}})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 0, rounds(30), 0)
	id := tb.GetTableId()
	annSeat := tb.GetYourSeat()
	bobSeat := 1 - annSeat
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := ann.Watch(id, 0)
		defer w.Cancel()
		ann.Play(id, w, first)
	}()
	// Wait, on Ann's side of the game, until a bot has moved for Bob.
	spy := e.SignIn(0, "Spy")
	sw := spy.Watch(id, 0)
	movedForBob := false
	for !movedForBob {
		select {
		case ev, ok := <-sw.C:
			if !ok {
				t.Fatal("the table ended before a bot moved for the absent player")
			}
			if p := text(ev); strings.HasPrefix(p, "seat "+itoa(bobSeat)+" ") {
				movedForBob = true
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no bot moved for the absent player")
		}
	}
	sw.Cancel()
	// Bob comes back and plays to the end himself.
	w := bob.Watch(id, 0)
	defer w.Cancel()
	if bob.Play(id, w, first) == nil {
		t.FailNow()
	}
	wg.Wait()
	l, err := e.RulesClient.GetLog(t.Context(), &rulesv1.GetLogRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	var by []string
	for _, en := range l.GetEntries() {
		if s, ok := en.GetBy().(*rulesv1.LogEntry_Seat); ok && s.Seat == bobSeat {
			by = append(by, en.GetActionId()[:2])
			// The rules service records who played: the stand-in's moves, and only those.
			if en.GetStandIn() != (en.GetActionId()[:2] == "b:") {
				t.Errorf("Bob's move %s: stand_in %v", en.GetActionId(), en.GetStandIn())
			}
		} else if ok && en.GetStandIn() {
			t.Errorf("Ann's move %s marked as a stand-in's", en.GetActionId())
		}
	}
	if len(by) == 0 || by[0] != "b:" || !slices.Contains(by, "c:") {
		t.Fatalf("Bob's seat moves by %v: want bot moves first, then his own", by)
	}
	// The seat was handed back: after Bob's first own move, no bot move for him.
	i := slices.Index(by, "c:")
	if slices.Contains(by[i:], "b:") {
		t.Logf("a bot moved for Bob after he came back (moves %v)", by)
	}
}

func text(ev *eventsv1.Event) string {
	s := &wrapperspb.StringValue{}
	if ev.GetPayload().UnmarshalTo(s) != nil {
		return ""
	}
	return s.GetValue()
}

func itoa(v uint32) string { return strconv.FormatUint(uint64(v), 10) }

// TestTimeLimit: the table's time per action reaches the rules service, whose timeouts move a
// table nobody plays to its end.
func TestTimeLimit(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{AbsenceGrace: time.Hour}})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	tb := privateTable(t, ann, []*Client{bob}, 0, rounds(2), 50*time.Millisecond)
	v, err := ann.C.GetView(ann.Ctx(), &gatewayv1.GetViewRequest{TableId: tb.GetTableId()})
	if err != nil || v.GetDeadline() == nil {
		t.Fatalf("view %v %v: want a deadline", v, err)
	}
	w := ann.Watch(tb.GetTableId(), 0)
	defer w.Cancel()
	for ev := range w.C {
		if IsFinished(ev) {
			return
		}
	}
	t.Fatalf("watch ended without the table finishing: %v", <-w.Done)
}
