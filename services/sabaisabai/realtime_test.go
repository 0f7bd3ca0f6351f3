package sabaisabai

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/sabaisabai/engine"
	"cardroom.dev/services/sabaisabai/sabaisabaitest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestPersonBeatsBotsThroughTheHarness runs a table of one person (seat 0) and two bots on the
// rules service with its virtual clock, driven as the gateway drives it: every 50 ms the due
// deadlines fire and each bot seat is asked for a move (SuggestAction) that is then played (Act)
// once its not_before has passed; no such move may be refused for the bot's reaction delay. Every seat sees its whole row from the deal (peek_at_start 4), so whenever a
// discard shows a rank, whoever holds one knows it. The person throws 300 ms after every discard
// that matches a card of theirs. With the table's default timing, each of those throws must be
// accepted, land before any bot's throw on that discard, and before the next discard.
func TestPersonBeatsBotsThroughTheHarness(t *testing.T) {
	h := rulestest.Start(t, Engine(), nil)
	ctx := context.Background()
	cfg := rulestest.Config("sabaisabai", 3, 11, &pb.Options{PeekAtStart: 4})
	cfg.Seats[0].Player.Kind = gamev1.PlayerKind_PLAYER_KIND_HUMAN
	const id = "realtime"
	if _, err := h.Client.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: id, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	view := func(seat uint32) *pb.View {
		r, err := h.Client.GetView(ctx, &rulesv1.GetViewRequest{TableId: id, Viewer: &rulesv1.Viewer{Who: &rulesv1.Viewer_Seat{Seat: seat}}})
		if err != nil {
			t.Fatal(err)
		}
		v := &pb.View{}
		if err := r.GetView().UnmarshalTo(v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	throws := 0
	var tried time.Time // the discard the person last threw on (its window's end)
	for step := 0; ; step++ {
		if step == 20_000 {
			t.Fatalf("the game did not end in %d steps", step)
		}
		h.Advance(50 * time.Millisecond)
		for h.Server.FireDue(ctx) > 0 {
		}
		v := view(0)
		if v.GetPhase() == pb.Phase_PHASE_GAME_OVER {
			break
		}
		if ends := v.GetThrowWindowEnds(); ends != nil && !ends.AsTime().Equal(tried) {
			discarded := ends.AsTime().Add(-engine.DefaultThrowWindow)
			if now := h.Now(); !now.Before(discarded.Add(300 * time.Millisecond)) {
				tried = ends.AsTime()
				if a := matchingThrow(t, h, id, v); a != nil {
					if !now.Equal(discarded.Add(300 * time.Millisecond)) {
						t.Fatalf("the person is late: %v after the discard", now.Sub(discarded))
					}
					if _, err := h.Client.Act(ctx, &rulesv1.ActRequest{TableId: id, Seat: 0, Action: a,
						ActionId: fmt.Sprint("person-", step)}); err != nil {
						t.Fatalf("the person's throw 300 ms after the discard was refused: %v", err)
					}
					throws++
				}
			}
		}
		// The person plays their turns too: draws, then plays the card (at once; it lands after the
		// window), and resolves the effects they execute on their first target.
		if v.GetTurnSeat() == 0 || len(v.GetEffects()) > 0 && v.GetEffects()[0].GetExecutor() == 0 {
			var act *pb.Action
			switch {
			case len(v.GetEffects()) > 0:
				l, err := h.Client.ListLegalActions(ctx, &rulesv1.ListLegalActionsRequest{TableId: id, Seat: 0})
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range l.GetActions() {
					m := &pb.Action{}
					if a.UnmarshalTo(m) == nil && m.GetResolve() != nil {
						act = m
						break
					}
				}
			case v.GetPhase() == pb.Phase_PHASE_DRAW:
				act = &pb.Action{Kind: &pb.Action_Draw{Draw: &pb.Draw{}}}
			case v.GetPhase() == pb.Phase_PHASE_DECIDE && v.GetDiscardLandsAt() == nil:
				act = &pb.Action{Kind: &pb.Action_Play{Play: &pb.Play{}}}
			}
			if act != nil {
				a, _ := anypb.New(act)
				if _, err := h.Client.Act(ctx, &rulesv1.ActRequest{TableId: id, Seat: 0, Action: a,
					ActionId: fmt.Sprint("turn-", step)}); err != nil && status.Code(err) != codes.FailedPrecondition {
					t.Fatalf("the person's turn: %v", err)
				}
			}
		}
		for seat := uint32(1); seat < 3; seat++ {
			sug, err := h.Client.SuggestAction(ctx, &rulesv1.SuggestActionRequest{TableId: id, Seat: seat})
			if err != nil {
				continue
			}
			if nb := sug.GetNotBefore(); nb != nil && nb.AsTime().After(h.Now()) {
				continue // the driver plays it then (Pacer)
			}
			v := sug.GetVersion()
			_, err = h.Client.Act(ctx, &rulesv1.ActRequest{TableId: id, Seat: seat, Action: sug.GetAction(),
				ActionId: fmt.Sprintf("b:%d:%d", v, seat), ExpectedVersion: &v})
			if c := status.Code(err); err != nil && c != codes.FailedPrecondition && c != codes.Aborted {
				t.Fatalf("bot %d: %v", seat, err)
			}
			if err != nil && strings.Contains(err.Error(), "reaction delay") {
				t.Fatalf("bot %d's suggested throw was refused though not_before had passed: %v", seat, err)
			}
		}
	}
	if throws < 5 {
		t.Fatalf("the game ended after %d races", throws)
	}
	// In the log, no bot throw lands between a discard and the person's throw on it; bots that
	// held a match too threw after the person.
	var discardAt time.Time
	bot, person, won, botAfter := false, false, 0, 0
	for _, e := range h.Log(t, id).GetEntries() {
		for _, ev := range e.GetEvents() {
			m := &pb.Event{}
			if ev.GetPayload().UnmarshalTo(m) != nil {
				continue
			}
			switch {
			case m.GetPlayed() != nil || m.GetKept() != nil:
				discardAt, bot, person = e.GetTime().AsTime(), false, false
			case m.GetThrown() != nil && m.GetThrown().GetThrower() != 0:
				bot = true
				if person {
					botAfter++
				}
				if d := e.GetTime().AsTime().Sub(discardAt); d < engine.DefaultBotReactionMin {
					t.Fatalf("a bot threw %v after the discard", d)
				}
			case m.GetThrown() != nil:
				if bot {
					t.Fatal("a bot's throw came before the person's")
				}
				person = true
				won++
			}
		}
	}
	if botAfter == 0 {
		t.Fatal("no race where a bot held a match too: choose another seed")
	}
	if won != throws {
		t.Fatalf("%d of the person's throws in the log, %d made", won, throws)
	}
	t.Logf("the person won %d races; %d bot throws followed theirs", won, botAfter)
}

// matchingThrow is seat 0's legal throw of one card of its own it knows matches the top, or nil.
func matchingThrow(t *testing.T, h *rulestest.Harness, id string, v *pb.View) *anypb.Any {
	t.Helper()
	l, err := h.Client.ListLegalActions(context.Background(), &rulesv1.ListLegalActionsRequest{TableId: id, Seat: 0})
	if err != nil {
		t.Fatal(err)
	}
	return sabaisabaitest.MatchingThrow(l.GetActions(), 0, v)
}
