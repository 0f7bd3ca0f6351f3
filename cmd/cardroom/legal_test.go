package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway/gatewaytest"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestActIncludesLegalActions plays sabai-sabai (a turn draws, then plays or keeps: the same seat
// acts twice) with include_legal_actions: every answer lists exactly what ListLegalActions lists
// for the seat right after, and some answers spare that call by listing the next move.
func TestActIncludesLegalActions(t *testing.T) {
	e := gatewaytest.NewEnv(t, gatewaytest.EnvOptions{Games: []engine.Engine{sabaisabai.Engine()}})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: "sabaisabai", Seats: 2, Options: untimedSabai(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
		t.Fatal(err)
	}
	if _, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: cr.GetTableId()}); err != nil {
		t.Fatal(err)
	}
	id := cr.GetTableId()
	listed := func(c *gatewaytest.Client) *gatewayv1.ListLegalActionsResponse {
		t.Helper()
		l, err := c.C.ListLegalActions(c.Ctx(), &gatewayv1.ListLegalActionsRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	nonEmpty := 0
	for step := 0; step < 40; step++ {
		var c *gatewaytest.Client
		var l *gatewayv1.ListLegalActionsResponse
		for _, p := range []*gatewaytest.Client{ann, bob} {
			if l = listed(p); len(l.GetActions()) > 0 {
				c = p
				break
			}
		}
		if c == nil {
			t.Fatalf("step %d: nobody may act", step)
		}
		v := l.GetVersion()
		r, err := c.C.Act(c.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: l.GetActions()[0], ActionId: gatewaytest.NextActionID(), ExpectedVersion: &v, IncludeLegalActions: true})
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if r.GetFinished() {
			break
		}
		after := listed(c)
		if after.GetVersion() != r.GetVersion() || len(after.GetActions()) != len(r.GetLegalActions()) {
			t.Fatalf("step %d: the answer lists %d actions at version %d, ListLegalActions %d at %d",
				step, len(r.GetLegalActions()), r.GetVersion(), len(after.GetActions()), after.GetVersion())
		}
		for i, a := range r.GetLegalActions() {
			if !proto.Equal(a, after.GetActions()[i]) {
				t.Fatalf("step %d: legal action %d differs: %v, %v", step, i, a, after.GetActions()[i])
			}
		}
		if len(r.GetLegalActions()) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty == 0 {
		t.Fatal("no answer listed a next move: the same seat never acted twice in a row")
	}
}

// TestWatchIncludesLegalActions plays four-seat sabai-sabai through two gateways and two rules
// replicas sharing Redis, every seat moving only on what its own stream lists: each list is
// exactly what ListLegalActions gives the seat while the table is at that version, every move
// taken from a list at its version is accepted (or refused only as stale), and a spectator who asks
// for legal actions gets none. Batched, each message brings the events ready, in order, and the list
// due after them.
func TestWatchIncludesLegalActions(t *testing.T) {
	for _, batch := range []bool{false, true} {
		t.Run(fmt.Sprint("batch=", batch), func(t *testing.T) { testWatchIncludesLegalActions(t, batch) })
	}
}

func testWatchIncludesLegalActions(t *testing.T, batch bool) {
	e := gatewaytest.NewEnv(t, gatewaytest.EnvOptions{Games: []engine.Engine{sabaisabai.Engine()}, Gateways: 2, Rules: 2, Redis: true})
	players := []*gatewaytest.Client{e.SignIn(0, "Ann"), e.SignIn(1, "Bob"), e.SignIn(0, "Cid"), e.SignIn(1, "Dee")}
	cr, err := players[0].C.CreateTable(players[0].Ctx(), &gatewayv1.CreateTableRequest{Game: "sabaisabai", Seats: 4, Options: untimedSabai(t)})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.GetTableId()
	for _, p := range players[1:] {
		if _, err := p.C.JoinTable(p.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
			t.Fatal(err)
		}
	}
	streams := make([]gatewayv1.GatewayService_WatchClient, len(players))
	for i, p := range players {
		if streams[i], err = p.C.Watch(p.Ctx(), &gatewayv1.WatchRequest{TableId: id, IncludeLegalActions: true, Batch: batch}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := players[0].C.StartTable(players[0].Ctx(), &gatewayv1.StartTableRequest{TableId: id}); err != nil {
		t.Fatal(err)
	}
	spectator := e.SignIn(1, "Eve")
	spec, err := spectator.C.Watch(spectator.Ctx(), &gatewayv1.WatchRequest{TableId: id, IncludeLegalActions: true, Batch: batch})
	if err != nil {
		t.Fatal(err)
	}

	var moves, compared atomic.Int64
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(i), 7))
			var last, seq uint64
			for {
				m, err := streams[i].Recv()
				if err != nil {
					t.Errorf("seat %d: stream ended before the table finished: %v", i, err)
					return
				}
				evs := m.GetEvents()
				if ev := m.GetEvent(); ev != nil {
					evs = append(evs, ev)
				}
				if batch && (m.GetEvent() != nil || len(evs) == 0 && m.GetLegalActions() == nil) || !batch && len(m.GetEvents()) > 0 {
					t.Errorf("seat %d (batch %v): message %v", i, batch, m)
					return
				}
				finished := false
				for _, ev := range evs {
					if ev.GetSequence() <= seq {
						t.Errorf("seat %d: event %d after %d", i, ev.GetSequence(), seq)
						return
					}
					seq = ev.GetSequence()
					finished = finished || gatewaytest.IsFinished(ev)
				}
				if finished {
					// The game is over: no list, and the stream ends.
					if m.GetLegalActions() != nil {
						t.Errorf("seat %d: legal actions with the table's end: %v", i, m.GetLegalActions())
					}
					if m, err := streams[i].Recv(); !errors.Is(err, io.EOF) {
						t.Errorf("seat %d: after the table's end the stream sent %v (%v)", i, m, err)
					}
					return
				}
				l := m.GetLegalActions()
				if l == nil {
					if len(evs) == 0 {
						t.Errorf("seat %d: a message with neither an event nor legal actions", i)
						return
					}
					continue
				}
				if l.GetVersion() <= last && last > 0 {
					t.Errorf("seat %d: legal actions at %d after %d", i, l.GetVersion(), last)
					return
				}
				last = l.GetVersion()
				if len(l.GetActions()) == 0 {
					continue
				}
				if now, err := p.C.ListLegalActions(p.Ctx(), &gatewayv1.ListLegalActionsRequest{TableId: id}); err == nil && now.GetVersion() == l.GetVersion() {
					compared.Add(1)
					if len(now.GetActions()) != len(l.GetActions()) {
						t.Errorf("seat %d at %d: the stream lists %d actions, ListLegalActions %d", i, l.GetVersion(), len(l.GetActions()), len(now.GetActions()))
						return
					}
					for j := range now.GetActions() {
						if !proto.Equal(now.GetActions()[j], l.GetActions()[j]) {
							t.Errorf("seat %d at %d: action %d differs", i, l.GetVersion(), j)
							return
						}
					}
				}
				v := l.GetVersion()
				_, err = p.C.Act(p.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: l.GetActions()[rnd.IntN(len(l.GetActions()))], ActionId: gatewaytest.NextActionID(), ExpectedVersion: &v})
				switch {
				case err == nil:
					moves.Add(1)
				case !gatewaytest.IsRace(err):
					t.Errorf("seat %d: a move its stream listed at %d was refused: %v", i, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if moves.Load() < 20 || compared.Load() < 10 {
		t.Fatalf("only %d moves, %d lists compared", moves.Load(), compared.Load())
	}
	for {
		m, err := spec.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.GetLegalActions() != nil {
			t.Fatalf("a spectator received legal actions: %v", m.GetLegalActions())
		}
	}
}

// TestWatchResumedIncludesLegalActions resumes a stream after the last event with
// include_legal_actions, at a table another stream keeps followed on the gateway (so the gateway
// has the lists of the live updates): the seat's list comes at once, without waiting for the table
// to move.
func TestWatchResumedIncludesLegalActions(t *testing.T) {
	e := gatewaytest.NewEnv(t, gatewaytest.EnvOptions{Games: []engine.Engine{sabaisabai.Engine()}})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: "sabaisabai", Seats: 2, Options: untimedSabai(t)})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.GetTableId()
	if _, err := bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
		t.Fatal(err)
	}
	follow := ann.Watch(id, 0)
	defer follow.Cancel()
	if _, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id}); err != nil {
		t.Fatal(err)
	}
	mover := func() (*gatewaytest.Client, *gatewayv1.ListLegalActionsResponse) {
		t.Helper()
		for _, p := range []*gatewaytest.Client{ann, bob} {
			l, err := p.C.ListLegalActions(p.Ctx(), &gatewayv1.ListLegalActionsRequest{TableId: id})
			if err != nil {
				t.Fatal(err)
			}
			if len(l.GetActions()) > 0 {
				return p, l
			}
		}
		t.Fatal("nobody may act")
		return nil, nil
	}
	// One move, so that the table is past the deal; the follower's stream shows when the gateway has
	// its update.
	c, l := mover()
	v := l.GetVersion()
	if _, err := c.C.Act(c.Ctx(), &gatewayv1.ActRequest{TableId: id, Action: l.GetActions()[0], ActionId: gatewaytest.NextActionID(), ExpectedVersion: &v}); err != nil {
		t.Fatal(err)
	}
	var last uint64
	for last == 0 {
		select {
		case ev := <-follow.C:
			if ev.GetVersion() == v+1 {
				view, err := ann.C.GetView(ann.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
				if err != nil {
					t.Fatal(err)
				}
				last = view.GetLastSequence()
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the move's events did not come")
		}
	}
	c, listed := mover()
	ctx, cancel := context.WithTimeout(c.Ctx(), 10*time.Second)
	defer cancel()
	s, err := c.C.Watch(ctx, &gatewayv1.WatchRequest{TableId: id, AfterSequence: last, IncludeLegalActions: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Recv()
	if err != nil {
		t.Fatalf("no list on the resumed stream: %v", err)
	}
	got := m.GetLegalActions()
	if got.GetVersion() != listed.GetVersion() || len(got.GetActions()) != len(listed.GetActions()) {
		t.Fatalf("resumed stream sent %v, ListLegalActions gives %d actions at %d", m, len(listed.GetActions()), listed.GetVersion())
	}
	for i := range got.GetActions() {
		if !proto.Equal(got.GetActions()[i], listed.GetActions()[i]) {
			t.Fatalf("action %d differs", i)
		}
	}
}

// untimedSabai are sabai-sabai options without the reflex window and the bots' delays (Rulings R1,
// B1): tests that play whole tables for what the gateway lists and streams need not wait 800 ms a
// turn.
func untimedSabai(t testing.TB) *anypb.Any {
	t.Helper()
	zero := durationpb.New(0)
	a, err := anypb.New(&sabaisabaiv1.Options{ThrowWindow: zero, BotReactionMin: zero, BotReactionMax: zero, BotThink: zero})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
