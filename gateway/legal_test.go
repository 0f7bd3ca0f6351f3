package gateway_test

import (
	"testing"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai"
	"google.golang.org/protobuf/proto"
)

// TestActIncludesLegalActions plays sabai-sabai (a turn draws, then plays or keeps: the same seat
// acts twice) with include_legal_actions: every answer lists exactly what ListLegalActions lists
// for the seat right after, and some answers spare that call by listing the next move.
func TestActIncludesLegalActions(t *testing.T) {
	e := newEnv(t, envOptions{games: []engine.Engine{sabaisabai.Engine()}})
	ann, bob := e.signIn(0, "Ann"), e.signIn(0, "Bob")
	cr, err := ann.c.CreateTable(ann.ctx(), &gatewayv1.CreateTableRequest{Game: "sabaisabai", Seats: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.c.JoinTable(bob.ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
		t.Fatal(err)
	}
	if _, err := ann.c.StartTable(ann.ctx(), &gatewayv1.StartTableRequest{TableId: cr.GetTableId()}); err != nil {
		t.Fatal(err)
	}
	id := cr.GetTableId()
	listed := func(c *client) *gatewayv1.ListLegalActionsResponse {
		t.Helper()
		l, err := c.c.ListLegalActions(c.ctx(), &gatewayv1.ListLegalActionsRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	nonEmpty := 0
	for step := 0; step < 40; step++ {
		var c *client
		var l *gatewayv1.ListLegalActionsResponse
		for _, p := range []*client{ann, bob} {
			if l = listed(p); len(l.GetActions()) > 0 {
				c = p
				break
			}
		}
		if c == nil {
			t.Fatalf("step %d: nobody may act", step)
		}
		v := l.GetVersion()
		r, err := c.c.Act(c.ctx(), &gatewayv1.ActRequest{TableId: id, Action: l.GetActions()[0], ActionId: nextActionID(), ExpectedVersion: &v, IncludeLegalActions: true})
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
