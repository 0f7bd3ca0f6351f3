package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"cardroom.dev/gateway"
	"cardroom.dev/gateway/gatewaytest"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai"
	"cardroom.dev/services/saboteur"
	"cardroom.dev/services/sapotagem"
	"cardroom.dev/services/sponsio"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestBotPlaysEveryGame: the bot takes a place at a private table of each game by its invite code;
// the owner fills the other places with bots, starts and stays away (a bot plays the owner's seat
// after the grace), and gobot plays its seat by its choices to the end.
func TestBotPlaysEveryGame(t *testing.T) {
	t.Chdir(t.TempDir()) // the bot's credential file
	e := gatewaytest.NewEnv(t, gatewaytest.EnvOptions{
		Games: []engine.Engine{sapotagem.Engine(), sponsio.Engine(), saboteur.Engine(), sabaisabai.Engine()},
		Opt:   gateway.Options{AbsenceGrace: 100 * time.Millisecond}})
	owner := e.SignIn(0, "Owner")
	games, err := owner.C.ListGames(owner.Ctx(), &gatewayv1.ListGamesRequest{})
	if err != nil || len(games.GetGames()) != 4 {
		t.Fatalf("games %v %v", games, err)
	}
	for _, g := range games.GetGames() {
		t.Run(g.GetGame(), func(t *testing.T) {
			req := &gatewayv1.CreateTableRequest{Game: g.GetGame(), Seats: g.GetMinSeats()}
			if g.GetGame() == "sabaisabai" {
				// Without the reflex window's pace (800 ms a turn), which would outlast the test.
				zero := durationpb.New(0)
				req.Options, _ = anypb.New(&sabaisabaiv1.Options{ThrowWindow: zero, BotReactionMin: zero, BotReactionMax: zero, BotThink: zero})
			}
			created, err := owner.C.CreateTable(owner.Ctx(), req)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			pr, pw := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := run(ctx, e.Addrs[0], "", created.GetInviteCode(), "gobot", pw)
				pw.CloseWithError(err)
				done <- err
			}()
			lines := bufio.NewScanner(pr)
			if !lines.Scan() || !strings.HasPrefix(lines.Text(), "at table ") {
				t.Fatalf("the bot's first words: %q (%v)", lines.Text(), lines.Err())
			}
			id := created.GetTableId()
			if n := g.GetMinSeats() - 2; n > 0 {
				if _, err := owner.C.AddBots(owner.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: n}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := owner.C.StartTable(owner.Ctx(), &gatewayv1.StartTableRequest{TableId: id}); err != nil {
				t.Fatal(err)
			}
			var said []string
			for lines.Scan() {
				said = append(said, lines.Text())
			}
			if err := <-done; err != nil {
				t.Fatalf("the bot: %v; its last words: %q", err, said[max(len(said)-5, 0):])
			}
			// The stream's last event, TableFinished, says the game is over.
			if len(said) == 0 || !strings.HasPrefix(said[len(said)-1], "the game is over") {
				t.Fatalf("the bot stopped before the end; its last words: %q", said[max(len(said)-5, 0):])
			}
			moves := 0
			for _, l := range said {
				if strings.Contains(l, "(you)") {
					moves++
				}
			}
			if moves == 0 {
				t.Fatalf("the bot's seat never moved:\n%s", strings.Join(said, "\n"))
			}
			t.Logf("%d lines, %d of them about the bot's seat; the last: %s", len(said), moves, said[len(said)-1])
		})
	}
}
