package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/testenv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// tsbotReady builds the client package and examples/tsbot with the TypeScript of web/node_modules
// and returns node's path and the bot's script, or skips the test where node or web/node_modules
// (make web) is absent — fails under CARDROOM_REQUIRE_SERVICES=1.
func tsbotReady(t *testing.T, root string) (node, script string) {
	t.Helper()
	skip := func(why string) {
		if testenv.Required() {
			t.Fatalf("%s but CARDROOM_REQUIRE_SERVICES=1", why)
		}
		t.Skipf("%s: the TypeScript bot's test is skipped", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("no node on this machine (Node 20 or later)")
	}
	tsc := filepath.Join(root, "web", "node_modules", "typescript", "bin", "tsc")
	for _, p := range []string{tsc, filepath.Join(root, "web", "node_modules", "@cardroom", "client", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			skip("no " + p + " (cd web && npm ci)")
		}
	}
	for _, project := range []string{"web/client/tsconfig.json", "web/client/tsconfig.node.json", "examples/tsbot/tsconfig.json"} {
		cmd := exec.Command(node, tsc, "-p", filepath.Join(root, project))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tsc -p %s: %v\n%s", project, err, out)
		}
	}
	return node, filepath.Join(root, "examples", "tsbot", "dist", "bot.js")
}

// TestTSBotPlaysEveryGame: examples/tsbot, run with node against `cardroom serve`, takes a place at
// a private table of each game by its invite code; the owner fills the other places with bots,
// starts and stays away (a bot plays the owner's seat after the grace), and the TypeScript bot
// plays its seat by its labelled choices to the end.
func TestTSBotPlaysEveryGame(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	node, script := tsbotReady(t, root)
	front := serveForBrowsers(t, "--absence-grace", "1s")
	cc, err := grpc.NewClient(front, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() }) // after the parallel subtests
	gw := gatewayv1.NewGatewayServiceClient(cc)
	in, err := gw.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: "Owner"})
	if err != nil {
		t.Fatal(err)
	}
	owner := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+in.GetSessionToken())
	games, err := gw.ListGames(owner, &gatewayv1.ListGamesRequest{})
	if err != nil || len(games.GetGames()) != 4 {
		t.Fatalf("games %v %v", games, err)
	}
	finished := regexp.MustCompile(`^finished after (\d+) moves: `)
	for _, g := range games.GetGames() {
		t.Run(g.GetGame(), func(t *testing.T) {
			t.Parallel()
			req := &gatewayv1.CreateTableRequest{Game: g.GetGame(), Seats: g.GetMinSeats()}
			if g.GetGame() == "sabaisabai" {
				// Without the reflex window's pace (800 ms a turn), which would outlast the test.
				zero := durationpb.New(0)
				req.Options, _ = anypb.New(&sabaisabaiv1.Options{ThrowWindow: zero, BotReactionMin: zero, BotReactionMax: zero, BotThink: zero})
			}
			created, err := gw.CreateTable(owner, req)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
			defer cancel()
			bot := exec.CommandContext(ctx, node, script, "--addr", "http://"+front, "--join", created.GetInviteCode(), "--name", "tsbot")
			bot.Dir = t.TempDir() // its credential file
			var stderr bytes.Buffer
			bot.Stderr = &stderr
			stdout, err := bot.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := bot.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stdout)
			if !lines.Scan() || lines.Text() != "at table "+created.GetTableId() {
				_ = bot.Wait()
				t.Fatalf("the bot's first words: %q (%v)\n%s", lines.Text(), lines.Err(), stderr.String())
			}
			if n := g.GetMinSeats() - 2; n > 0 {
				if _, err := gw.AddBots(owner, &gatewayv1.AddBotsRequest{TableId: created.GetTableId(), Count: n}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := gw.StartTable(owner, &gatewayv1.StartTableRequest{TableId: created.GetTableId()}); err != nil {
				t.Fatal(err)
			}
			var said []string
			for lines.Scan() {
				said = append(said, lines.Text())
			}
			if err := bot.Wait(); err != nil {
				t.Fatalf("the bot: %v\n%s\nlast words: %q", err, stderr.String(), said[max(0, len(said)-5):])
			}
			last := ""
			if len(said) > 0 {
				last = said[len(said)-1]
			}
			m := finished.FindStringSubmatch(last)
			if m == nil {
				t.Fatalf("the bot's last words: %q\n%s", last, stderr.String())
			}
			if moves, _ := strconv.Atoi(m[1]); moves == 0 {
				t.Errorf("the bot made no move: %q", last)
			}
			for _, l := range said {
				if strings.HasPrefix(l, "refused:") {
					t.Errorf("a choice of the stream was refused: %q", l)
				}
			}
			tb, err := gw.GetTable(owner, &gatewayv1.GetTableRequest{TableId: created.GetTableId()})
			if err != nil || tb.GetTable().GetState() != gatewayv1.TableState_TABLE_STATE_FINISHED {
				t.Fatalf("the table after the bot: %v %v", tb.GetTable().GetState(), err)
			}
			t.Logf("%s: %d lines, %s", g.GetGame(), len(said), last)
		})
	}
}
