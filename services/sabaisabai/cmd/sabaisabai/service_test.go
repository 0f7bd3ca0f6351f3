package main

import (
	"fmt"
	"testing"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/sabaisabai"
	"google.golang.org/grpc/codes"
)

// TestService plays whole games through gRPC, on the memory store and on Redis, and checks that an
// out-of-turn move is refused with FAILED_PRECONDITION and changes nothing.
func TestService(t *testing.T) {
	rulestest.Stores(t, play)
}

func play(t *testing.T, st store.Store) {
	h := rulestest.Start(t, sabaisabai.Engine(), st)
	for i, n := range []int{2, 5} {
		log := h.PlayToEnd(t, fmt.Sprint("game", i), rulestest.Config("sabaisabai", n, uint64(i+1), nil), 50000)
		if len(log.GetTable().GetOutcome().GetResults()) != n {
			t.Fatalf("%d players: outcome %v", n, log.GetTable().GetOutcome())
		}
	}
	cfg := rulestest.Config("sabaisabai", 4, 9, nil)
	if _, err := h.Client.CreateTable(t.Context(), rulestest.CreateRequest("refused", cfg)); err != nil {
		t.Fatal(err)
	}
	// Every seat may act out of turn (throws, the call), but only the turn player draws.
	draw := &sabaisabaiv1.Action{Kind: &sabaisabaiv1.Action_Draw{Draw: &sabaisabaiv1.Draw{}}}
	for seat := range uint32(4) {
		l, err := h.Client.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: "refused", Seat: seat})
		if err != nil {
			t.Fatal(err)
		}
		turn := false
		for _, a := range l.GetActions() {
			m := &sabaisabaiv1.Action{}
			turn = turn || a.UnmarshalTo(m) == nil && m.GetDraw() != nil
		}
		if !turn {
			h.Refused(t, "refused", seat, draw, codes.FailedPrecondition, engine.CodeNotYourTurn)
			return
		}
	}
	t.Fatal("every seat may draw")
}
