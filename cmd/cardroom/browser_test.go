package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/testenv"
	"github.com/chromedp/chromedp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// chromium is the path of a Chromium (Debian's package), or the test is skipped — failed under
// CARDROOM_REQUIRE_SERVICES=1.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if testenv.Required() {
		t.Fatal("no Chromium (apt-get install chromium) but CARDROOM_REQUIRE_SERVICES=1")
	}
	t.Skip("no Chromium on this machine (apt-get install chromium): the browser tests are skipped")
	return ""
}

// serveForBrowsers runs `cardroom serve` in the test process and returns its front address; extra
// flags follow the usual ones.
func serveForBrowsers(t *testing.T, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan map[string]string, 1)
	done := make(chan int, 1)
	go func() {
		args := []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "warn", "--rate-limit", "0",
			"--ticket-max-wait", "2s"} // bots fill a queued table after 2 s (the page says so)
		done <- serve(ctx, append(args, extra...), func(string) string { return "" }, io.Discard, io.Discard, ready)
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case addrs := <-ready:
		return addrs["front"]
	case code := <-done:
		t.Fatalf("serve exited with %d", code)
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not start")
	}
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile; each call of tab opens a tab.
func newBrowser(t *testing.T) func() context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(func() { cancelB(); cancelA() })
	return func() context.Context {
		ctx, cancel := chromedp.NewContext(bctx)
		t.Cleanup(cancel)
		// The tab lives as long as the context of its first run: a context without a timeout.
		if err := chromedp.Do(ctx); err != nil {
			t.Fatalf("open a tab: %v", err)
		}
		return ctx
	}
}

func runB(t *testing.T, ctx context.Context, timeout time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		body, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("browser: %v\npage: %.2000s", err, body)
	}
}

func evalJS[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// signIn signs tab in as name, at url.
func signIn(t *testing.T, tab context.Context, url, name string) {
	t.Helper()
	runB(t, tab, 30*time.Second, chromedp.Navigate(url))
	evalJS[bool](t, tab, `localStorage.clear(), true`) // the browser's earlier players sign out
	runB(t, tab, 30*time.Second,
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`input[name=name]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), name),
		chromedp.Click(chromedp.CSS(`form.signin button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=me]`)),
	)
}

type session struct {
	Token    string `json:"token"`
	PlayerID string `json:"playerId"`
}

func sessionOf(t *testing.T, tab context.Context) session {
	var s session
	if err := json.Unmarshal([]byte(evalJS[string](t, tab, `localStorage.getItem("cardroom.session")`)), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// playMoves clicks the first legal move whenever the page offers one, until the result screen
// shows or n moves were played (n < 0: no bound). It reports whether the game is over.
func playMoves(t *testing.T, tab context.Context, n int) bool {
	t.Helper()
	for i := 0; n < 0 || i < n; i++ {
		runB(t, tab, 2*time.Minute, chromedp.WaitReady(chromedp.CSS(`[data-testid=act], [data-testid=result]`)))
		if evalJS[bool](t, tab, `!!document.querySelector("[data-testid=result]")`) {
			return true
		}
		// Moves are chosen the way the table offers them: a legal board cell or a card of the hand
		// first (it plays the only move that uses it, or narrows the list to those), else the first
		// move of the list. The button may be gone already (a move by a bot, a timer): a refused
		// move is shown and play goes on.
		evalJS[bool](t, tab, clickFirstMove)
	}
	return evalJS[bool](t, tab, `!!document.querySelector("[data-testid=result]")`)
}

// clickFirstMove clicks a legal board cell or a playable card of the hand when the move list is not
// narrowed yet, else the first listed move (the list is collapsed: the keyboard's path, clicked
// here from script). Sponsio's hand chooses the first step of a move, not a move: there the list.
const clickFirstMove = `(() => {
	const narrowed = !!document.querySelector("[data-testid=show-all]");
	const steps = !!document.querySelector("section.table[data-game=sponsio]");
	const b = (!narrowed && !steps && document.querySelector("td.legal button, [data-testid=hand] button.card")) || document.querySelector("[data-testid=act]");
	if (b) b.click();
	return !!b;
})()`

func tableOf(t *testing.T, tab context.Context) string {
	h := evalJS[string](t, tab, `location.hash`)
	if !strings.HasPrefix(h, "#/table/") {
		t.Fatalf("not at a table: %q", h)
	}
	return strings.TrimPrefix(h, "#/table/")
}

func seqs(t *testing.T, tab context.Context) []int {
	return evalJS[[]int](t, tab, `window.__cardroomSeqs || []`)
}

// TestBrowserPlaysEveryGame: for each game a browser player signs in, queues with bots, plays to
// the end by clicking legal moves and sees the result the gateway's GetReplay reports. The page
// shows exactly the events the player's own Watch stream delivers; a reload mid-game resumes the
// same seat with no event lost; a spectator's page holds no card of a hand; the replay steps to
// the result.
func TestBrowserPlaysEveryGame(t *testing.T) {
	newTab := newBrowser(t)
	front := serveForBrowsers(t)
	url := "http://" + front + "/"
	cc, err := grpc.NewClient(front, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	gw := gatewayv1.NewGatewayServiceClient(cc)
	shots := os.Getenv("CARDROOM_WEB_SCREENSHOTS") // a directory (docs/img) to save each table's picture in

	for _, eng := range engines() {
		game := eng.Info().Name
		t.Run(game, func(t *testing.T) {
			tab := newTab()
			signIn(t, tab, url, "Ada")
			runB(t, tab, 2*time.Minute,
				chromedp.Click(chromedp.CSS(`[data-testid=queue-`+game+`]`)),
				chromedp.WaitVisible(chromedp.CSS(`.seats li`)),
			)
			table := tableOf(t, tab)
			me := sessionOf(t, tab)
			ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+me.Token)
			mySeat := evalJS[string](t, tab, `(document.querySelector(".seats li .you")?.closest("li")?.dataset.seat) ?? ""`)

			over := playMoves(t, tab, 3)
			if !over {
				// A reload resumes the same player at the same seat, with every event seen before.
				before := seqs(t, tab)
				runB(t, tab, 30*time.Second, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`.seats li .you`)))
				if got := tableOf(t, tab); got != table {
					t.Fatalf("after a reload the page is at %s, not %s", got, table)
				}
				if s := evalJS[string](t, tab, `document.querySelector(".seats li .you").closest("li").dataset.seat`); s != mySeat {
					t.Fatalf("after a reload the page's seat is %s, was %s", s, mySeat)
				}
				runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`(window.__cardroomSeqs || []).length >= %d`, len(before))))
				if after := seqs(t, tab); !slices.Equal(after[:len(before)], before) {
					t.Fatalf("after a reload the page shows events %v, before %v", after[:len(before)], before)
				}
				// A spectator sees the table and no hand.
				spec := newBrowser(t)() // a browser of its own: another profile, another person
				signIn(t, spec, url+"#/spectate/"+table, "Sam")
				runB(t, spec, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`.view dl, [data-testid=game]`)))
				if n := evalJS[int](t, spec, `[...document.querySelectorAll(".view dt")].filter(d => d.textContent === "hand").map(d => d.nextElementSibling.querySelectorAll(".card").length).reduce((a, b) => a + b, 0) + document.querySelectorAll("[data-testid=hand] .card").length`); n != 0 {
					t.Fatalf("the spectator's page shows %d cards of a hand", n)
				}
				if game == "sapotagem" || game == "sponsio" {
					// The game's own table, with the seat's hand drawn as cards.
					runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=game] [data-testid=round]`)))
					if n := evalJS[int](t, tab, `document.querySelectorAll("[data-testid=hand] .card").length`); n == 0 {
						t.Fatal("the player's page shows no card of its hand")
					}
				}
				// Every card says its colour and rank in words, and shows its rank as text.
				if bad := evalJS[[]string](t, tab, `[...document.querySelectorAll(".card")].filter(c => !c.getAttribute("aria-label") || !c.textContent.trim()).map(c => c.outerHTML).slice(0, 3)`); len(bad) > 0 {
					t.Fatalf("cards without words: %v", bad)
				}
				if shots != "" && (game == "sapotagem" || game == "sponsio") { // the others: browser_tables_test.go
					png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(shots, game+".png"), png, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				over = playMoves(t, tab, -1)
			}
			if !over {
				t.Fatal("the game did not end")
			}

			replay, err := gw.GetReplay(ctx, &gatewayv1.GetReplayRequest{TableId: table})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, r := range replay.GetTable().GetOutcome().GetResults() {
				want[fmt.Sprint(r.GetSeat())] = fmt.Sprintf("%d/%d", r.GetScore(), r.GetRank())
			}
			got := evalJS[map[string]string](t, tab, `Object.fromEntries([...document.querySelectorAll("[data-testid=result] tbody tr")].map(r => [r.dataset.seat, r.dataset.score + "/" + r.dataset.rank]))`)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("the result screen shows %v, GetReplay %v", got, want)
			}
			// The replay steps through the deal and every applied action.
			runB(t, tab, 30*time.Second, chromedp.Navigate(url+"#/replay/"+table), chromedp.WaitVisible(chromedp.CSS(`[data-testid=step]`)))
			runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("input[type=range]")?.max === "%d"`, len(replay.GetEntries()))))
			evalJS[bool](t, tab, `(() => { const r = document.querySelector("input[type=range]"); r.value = r.max; r.dispatchEvent(new Event("input", {bubbles: true})); return true })()`)
			runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=result]`)))
			// The page holds exactly the events the player's own stream delivers.
			if page, stream := seqs(t, tab), watchAll(t, ctx, gw, table); !slices.Equal(page, stream) {
				t.Fatalf("the page shows events %v, the player's Watch %v", page, stream)
			}
		})
	}
}

// watchAll is every sequence the caller's Watch delivers for a finished table.
func watchAll(t *testing.T, ctx context.Context, gw gatewayv1.GatewayServiceClient, table string) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := gw.Watch(ctx, &gatewayv1.WatchRequest{TableId: table})
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for {
		r, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, int(r.GetEvent().GetSequence()))
		if r.GetEvent().GetPayload().MessageIs(&eventsv1.TableFinished{}) {
			return out
		}
	}
}

// TestBrowserSignOut: "sign out" revokes the session on the gateway (its token is refused with
// SESSION_REVOKED afterwards), and a reload then asks for a sign-in instead of resuming as the
// browser's device; signing in again with the same name is the same player.
func TestBrowserSignOut(t *testing.T) {
	newTab := newBrowser(t)
	front := serveForBrowsers(t)
	cc, err := grpc.NewClient(front, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	gw := gatewayv1.NewGatewayServiceClient(cc)
	tab := newTab()
	url := "http://" + front + "/"
	signIn(t, tab, url, "Ada")
	before := sessionOf(t, tab)
	authed := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+before.Token)
	if _, err := gw.ListGames(authed, &gatewayv1.ListGamesRequest{}); err != nil {
		t.Fatalf("the page's token is refused before the sign-out: %v", err)
	}

	runB(t, tab, 30*time.Second,
		chromedp.Click(chromedp.CSS(`[data-testid=sign-out]`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name=name]`)),
	)
	_, err = gw.RefreshSession(authed, &gatewayv1.RefreshSessionRequest{})
	if code := status.Code(err); code != codes.Unauthenticated || violationOf(err) != refusal.SessionRevoked {
		t.Fatalf("after the sign-out the page's token is answered %v, want UNAUTHENTICATED / SESSION_REVOKED", err)
	}
	runB(t, tab, 30*time.Second, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`input[name=name]`)))
	if evalJS[bool](t, tab, `!!document.querySelector("[data-testid=me]")`) {
		t.Fatal("after a sign-out and a reload the page signed in by itself")
	}

	runB(t, tab, 30*time.Second,
		chromedp.Click(chromedp.CSS(`form.signin button[type=submit]`)), // the name is kept in the form
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=me]`)),
	)
	if after := sessionOf(t, tab); after.PlayerID != before.PlayerID || after.Token == before.Token {
		t.Fatalf("signed in again as %s with token changed %v, want player %s with a new token", after.PlayerID, after.Token != before.Token, before.PlayerID)
	}
}

// violationOf is the RuleViolation code in err's details, or "".
func violationOf(err error) string {
	for _, d := range status.Convert(err).Details() {
		if v, ok := d.(*gamev1.RuleViolation); ok {
			return v.GetCode()
		}
	}
	return ""
}

// TestBrowserBotLevels: the owner of a private table picks each bot's level in the page; the page
// shows the level beside the bot's name, before the start and at the table, and the gateway stores
// it with the bot.
func TestBrowserBotLevels(t *testing.T) {
	newTab := newBrowser(t)
	front := serveForBrowsers(t)
	cc, err := grpc.NewClient(front, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	gw := gatewayv1.NewGatewayServiceClient(cc)
	tab := newTab()
	signIn(t, tab, "http://"+front+"/", "Ada")
	// The creation screen: the other seats left to people, so the bots are added on the table's page.
	runB(t, tab, 30*time.Second, chromedp.Click(chromedp.CSS(`[data-testid=private-sapotagem]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=seat-2]`)))
	evalJS[bool](t, tab, `[...document.querySelectorAll("[data-testid^=seat-]")].forEach((s) => {
		s.value = "person";
		s.dispatchEvent(new Event("change", { bubbles: true }));
	}) ?? true`)
	runB(t, tab, 30*time.Second,
		chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=verdict]").innerText.includes("accepts")`),
		chromedp.Click(chromedp.CSS(`[data-testid=create]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=add-bot]`)))
	// The level select is a preact-controlled <select>: set it as a person would, with a change event.
	choose := func(level gamev1.BotLevel) {
		evalJS[bool](t, tab, fmt.Sprintf(`(() => {
			const s = document.querySelector("[data-testid=bot-level]");
			s.value = "%d";
			s.dispatchEvent(new Event("change", { bubbles: true }));
			return true;
		})()`, int32(level)))
	}
	bots := func() []string {
		return evalJS[[]string](t, tab, `[...document.querySelectorAll("[data-testid=player]")].map((li) => li.innerText).filter((s) => s.includes("bot"))`)
	}
	for i, l := range []gamev1.BotLevel{gamev1.BotLevel_BOT_LEVEL_STRONG, gamev1.BotLevel_BOT_LEVEL_EASY} {
		choose(l)
		runB(t, tab, 30*time.Second, chromedp.Click(chromedp.CSS(`[data-testid=add-bot]`)),
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll("[data-testid=player]").length === %d`, i+2)))
	}
	if got := bots(); !slices.Equal(got, []string{"Bot B (bot, strong)", "Bot C (bot, easy)"}) {
		t.Fatalf("the page lists the bots as %q, want Bot B (bot, strong) and Bot C (bot, easy)", got)
	}
	id := strings.TrimPrefix(evalJS[string](t, tab, `location.hash`), "#/private/")
	authed := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+sessionOf(t, tab).Token)
	r, err := gw.GetTable(authed, &gatewayv1.GetTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	var stored []gamev1.BotLevel
	for _, p := range r.GetTable().GetPlayers() {
		if p.GetKind() == gamev1.PlayerKind_PLAYER_KIND_BOT {
			stored = append(stored, p.GetBotLevel())
		}
	}
	if !slices.Equal(stored, []gamev1.BotLevel{gamev1.BotLevel_BOT_LEVEL_STRONG, gamev1.BotLevel_BOT_LEVEL_EASY}) {
		t.Fatalf("the gateway stored the bots at %v, want strong and easy", stored)
	}
	// At the table the seats show the levels too.
	runB(t, tab, time.Minute, chromedp.Click(chromedp.CSS(`[data-testid=start]`)), chromedp.WaitVisible(chromedp.CSS(`ol.seats li .bot`)))
	seats := evalJS[[]string](t, tab, `[...document.querySelectorAll("ol.seats li .bot")].map((s) => s.innerText.trim()).sort()`)
	if !slices.Equal(seats, []string{"· bot, easy", "· bot, strong"}) {
		t.Fatalf("the table's seats mark the bots %q, want bot, easy and bot, strong", seats)
	}
}
