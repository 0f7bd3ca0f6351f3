package main

import (
	"fmt"
	"testing"

	saboteurv1 "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/saboteur"
	"google.golang.org/grpc/codes"
)

// TestService plays whole games through gRPC, on the memory store and on Redis, and checks that an
// out-of-turn move is refused with FAILED_PRECONDITION and changes nothing.
func TestService(t *testing.T) {
	rulestest.Stores(t, play)
}

func play(t *testing.T, st store.Store) {
	h := rulestest.Start(t, saboteur.Engine(), st)
	for i, n := range []int{3, 6} {
		log := h.PlayToEnd(t, fmt.Sprint("game", i), rulestest.Config("saboteur", n, uint64(i+1), nil), 50000)
		if len(log.GetTable().GetOutcome().GetResults()) != n {
			t.Fatalf("%d players: outcome %v", n, log.GetTable().GetOutcome())
		}
	}
	classic := rulestest.Config("saboteur", 5, 7, &saboteurv1.Options{Mode: saboteurv1.Mode_MODE_CLASSIC})
	if log := h.PlayToEnd(t, "classic", classic, 50000); len(log.GetTable().GetOutcome().GetResults()) != 5 {
		t.Fatalf("classic: outcome %v", log.GetTable().GetOutcome())
	}
	cfg := rulestest.Config("saboteur", 4, 9, nil)
	if _, err := h.Client.CreateTable(t.Context(), rulestest.CreateRequest("refused", cfg)); err != nil {
		t.Fatal(err)
	}
	seat, action := h.OutOfTurn(t, "refused", 4)
	h.Refused(t, "refused", seat, action, codes.FailedPrecondition, engine.CodeNotYourTurn)
}
