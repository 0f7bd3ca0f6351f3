package rules_test

import (
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"testing"
	"time"

	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/rules/rulestest"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestRulesTestHarness plays the test game through the shared game-service harness, timeouts
// included, and checks its refusal check.
func TestRulesTestHarness(t *testing.T) {
	h := rulestest.Start(t, highcard.Engine("highcard"), nil)
	cfg := rulestest.Config("highcard", 3, 5, wrapperspb.UInt32(4))
	log := h.PlayToEnd(t, "whole", cfg, 100)
	if len(log.GetEntries()) != 12 || log.GetTable().GetOutcome() == nil {
		t.Fatalf("%d entries, outcome %v", len(log.GetEntries()), log.GetTable().GetOutcome())
	}
	timed := rulestest.Config("highcard", 2, 6, nil)
	timed.TimeLimits = &gamev1.TimeLimits{PerAction: durationpb.New(time.Second)}
	h.PlayToEnd(t, "timed", timed, 100)

	if _, err := h.Client.CreateTable(t.Context(), &rulesv1.CreateTableRequest{TableId: "refuse", Config: rulestest.Config("highcard", 2, 7, nil)}); err != nil {
		t.Fatal(err)
	}
	h.Refused(t, "refuse", 1, wrapperspb.String("pass"), codes.FailedPrecondition, engine.CodeNotYourTurn)
	h.Refused(t, "refuse", 0, wrapperspb.String("fold"), codes.InvalidArgument, engine.CodeUnknownAction)
}
