package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/testenv"
	"github.com/chromedp/chromedp"
)

// axeSource is axe-core's script (web/node_modules, installed by npm ci from web/package.json's
// pinned devDependency), or "" when it is not installed.
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "web", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if testenv.Required() {
			t.Fatalf("axe-core is not installed (cd web && npm ci) but CARDROOM_REQUIRE_SERVICES=1: %v", err)
		}
		return ""
	}
	return string(b)
}

// checkAxe runs axe-core in the page and fails on any serious or critical violation.
func checkAxe(t *testing.T, tab context.Context, what string) {
	t.Helper()
	src := axeSource(t)
	if src == "" {
		t.Logf("axe-core not installed (cd web && npm ci): %s not checked", what)
		return
	}
	if !evalJS[bool](t, tab, `typeof window.axe === "object"`) {
		evalJS[bool](t, tab, src+"\n;true")
	}
	tctx, cancel := context.WithTimeout(tab, 60*time.Second)
	defer cancel()
	out, err := chromedp.Run(tctx, chromedp.Evaluate[string](`axe.run(document, { resultTypes: ["violations"] }).then((r) => JSON.stringify(
		r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({
			id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " ")),
		}))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", what, err)
	}
	var bad []map[string]any
	if err := json.Unmarshal([]byte(out), &bad); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("axe-core: %d serious or critical violations on %s: %s", len(bad), what, out)
	}
}

// pointJS makes one move, or one step of one, by pointing: it clicks a control of the table (a card,
// a coupon, a token, a choice; never the numbered list) and says what it clicked ("" when the table
// offers none). Sponsio's steps are followed through (what completes a step before a card of the
// hand; Pass only when nothing else is offered); elsewhere a control at random.
const pointJS = `(() => {
	const vis = (b) => b.checkVisibility() && !b.disabled;
	const all = [...document.querySelectorAll("section.table [data-point]")].filter(vis).filter((b) => !b.hasAttribute("data-back"));
	if (!all.length) return "";
	const rnd = (xs) => xs[Math.floor(Math.random() * xs.length)];
	let b;
	if (document.querySelector("section.table[data-game=sponsio]")) {
		const hand = all.filter((b) => b.closest("[data-testid=hand], [data-testid=open]"));
		const give = hand.filter((b) => (b.getAttribute("aria-label") || "").startsWith("give to the talon"));
		const talon = all.filter((b) => b.closest(".talon"));
		const other = all.filter((b) => !hand.includes(b) && !talon.includes(b) && b.textContent.trim() !== "Pass");
		b = give.length ? rnd(give) : other.length ? rnd(other) : talon.length ? rnd(talon) : hand.length ? rnd(hand) : all[0];
	} else b = rnd(all);
	b.click();
	return (b.textContent.trim() || b.getAttribute("aria-label") || "?").slice(0, 60);
})()`

// choicesJS counts the choices the table shows at once: visible buttons that make or narrow a move.
const choicesJS = `[...document.querySelectorAll("section.table button, section.table summary")].filter((b) => b.checkVisibility() && !b.disabled && !b.closest(".status")).length`

// playByPointing plays tab's game to the end by pointing only and returns the most choices any
// screen showed at once. check, when set, runs once when the player first has choices.
func playByPointing(t *testing.T, tab context.Context, check func()) int {
	t.Helper()
	most, clicks := 0, 0
	for {
		runB(t, tab, 3*time.Minute, chromedp.Poll[chromedp.Void](`!!document.querySelector("[data-testid=result]") || [...document.querySelectorAll("section.table [data-point]")].some((b) => b.checkVisibility() && !b.disabled)`))
		if evalJS[bool](t, tab, `!!document.querySelector("[data-testid=result]")`) {
			break
		}
		if evalJS[bool](t, tab, `document.querySelector("details.actions")?.open === true`) {
			t.Fatal("the numbered move list is open: it must be collapsed by default")
		}
		most = max(most, evalJS[int](t, tab, choicesJS))
		if check != nil {
			check()
			check = nil
		}
		if evalJS[string](t, tab, pointJS) != "" {
			clicks++
		}
		if clicks > 5000 {
			t.Fatal("5000 clicks and the game is not over")
		}
	}
	t.Logf("%d clicks; at most %d choices on screen at once", clicks, most)
	return most
}

func screenshot(t *testing.T, tab context.Context, dir, name string) {
	t.Helper()
	if dir == "" {
		return
	}
	tctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserTables plays Sponsio and Sapotagem to the end by pointing only (cards, coupons,
// tokens, choices; the numbered list stays collapsed), checks the result against GetReplay, that no
// Sponsio screen shows more than 40 choices, that bets are said in words, that the log follows the
// newest line and the tab's title says when it is the player's turn; then steps the replay, which
// draws the table at every step; axe-core finds no serious or critical violation on the lobby, the
// tables, the results, the replays and a table id that leads nowhere.
// gameNames are the games' names as people write them, as the table's heading says them.
var gameNames = map[string]string{"sponsio": "Sponsio", "sapotagem": "Sapotagem", "saboteur": "Saboteur 2", "sabaisabai": "sabai-sabai"}

// checkHeading checks that the table's heading names the game as people write it.
func checkHeading(t *testing.T, tab context.Context, game string) {
	t.Helper()
	if h := evalJS[string](t, tab, `document.querySelector("section.table h1")?.textContent ?? ""`); !strings.HasPrefix(h, gameNames[game]) {
		t.Fatalf("the table's heading is %q, not %q", h, gameNames[game])
	}
}

// checkReplay opens the replay of a finished table, which draws the table at each step: twelve
// steps forward the drawn table must differ from the deal, and the step be said in words; twelve
// back it must be the deal again; the last step shows the result. axe-core checks it mid-way (at a
// desktop's and a phone's size: no wider than the phone) and at its end; the pictures are saved as
// <game>-replay.png and <game>-replay-phone.png when shots names a directory.
func checkReplay(t *testing.T, tab context.Context, ctx context.Context, gw gatewayv1.GatewayServiceClient, url, table, game, shots string) {
	t.Helper()
	replay, err := gw.GetReplay(ctx, &gatewayv1.GetReplayRequest{TableId: table})
	if err != nil {
		t.Fatal(err)
	}
	runB(t, tab, 10*time.Second, chromedp.EmulateViewport(1280, 800))
	runB(t, tab, 30*time.Second, chromedp.Navigate(url+"#/replay/"+table),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("input[type=range]")?.max === "%d"`, len(replay.GetEntries()))),
		chromedp.WaitVisible(chromedp.CSS(`.replay-table [data-testid=game]`)))
	if h := evalJS[string](t, tab, `document.querySelector("section.replay h1")?.textContent ?? ""`); h != "Replay of "+gameNames[game] {
		t.Fatalf("the replay's heading is %q", h)
	}
	drawn := func() string {
		return evalJS[string](t, tab, `document.querySelector(".replay-table [data-testid=game]").innerText`)
	}
	deal := drawn()
	for range 12 {
		runB(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`[data-testid=replay-next]`)))
	}
	runB(t, tab, 10*time.Second, chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=step-count]").textContent.startsWith("step 12 ")`))
	if drawn() == deal {
		t.Fatal("twelve steps into the replay the table is drawn as it was dealt")
	}
	if evalJS[int](t, tab, `[...document.querySelectorAll("[data-testid=step-events] li")].length`) == 0 && evalJS[string](t, tab, `document.querySelector("[data-testid=step]").textContent`) == "" {
		t.Fatal("the replay's step is not said in words")
	}
	screenshot(t, tab, shots, game+"-replay")
	checkAxe(t, tab, game+"'s replay")
	runB(t, tab, 10*time.Second, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	runB(t, tab, 10*time.Second, chromedp.Poll[chromedp.Void](`innerWidth === 390`))
	if w := evalJS[int](t, tab, `document.documentElement.scrollWidth`); w > 390 {
		t.Fatalf("%s's replay is %d px wide on a 390 px phone", game, w)
	}
	evalJS[bool](t, tab, `scrollTo(0, 0), true`)
	screenshot(t, tab, shots, game+"-replay-phone")
	checkAxe(t, tab, game+"'s replay on a phone")
	runB(t, tab, 10*time.Second, chromedp.EmulateViewport(1280, 800))
	for range 12 {
		runB(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(`[data-testid=replay-prev]`)))
	}
	runB(t, tab, 10*time.Second, chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=step-count]").textContent.startsWith("step 0 ")`))
	if back := drawn(); back != deal {
		t.Fatalf("back at step 0 the table is drawn\n%s\nnot as dealt\n%s", back, deal)
	}
	evalJS[bool](t, tab, `(() => { const r = document.querySelector("input[type=range]"); r.value = r.max; r.dispatchEvent(new Event("input", {bubbles: true})); return true })()`)
	runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=result]`)))
	checkAxe(t, tab, game+"'s replay at its end")
	runB(t, tab, 10*time.Second, chromedp.EmulateReset())
}

func TestBrowserTables(t *testing.T) {
	newTab := newBrowser(t)
	front := serveForBrowsers(t)
	gw := gatewayClient(t, front)
	url := "http://" + front + "/"
	shots := os.Getenv("CARDROOM_WEB_SCREENSHOTS")

	t.Run("lobby-and-bad-table", func(t *testing.T) {
		tab := newTab()
		signIn(t, tab, url, "Ada")
		runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=queue-sponsio]`)))
		if got := evalJS[string](t, tab, `[...document.querySelectorAll(".games h2")].map((h) => h.textContent).sort().join(", ")`); got != "Saboteur 2, Sapotagem, Sponsio, sabai-sabai" {
			t.Fatalf("the lobby names the games %q", got)
		}
		checkAxe(t, tab, "the lobby")
		for _, h := range []string{"#/table/", "#/table/no%20such%20id!", "#/replay/", "#/table/abcdefabcdefabcdef"} {
			runB(t, tab, 30*time.Second, chromedp.Navigate(url+h), chromedp.WaitVisible(chromedp.CSS(`[data-testid=no-table]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=back-to-lobby]`)))
			if s := evalJS[string](t, tab, `document.body.innerText`); strings.Contains(s, "reconnecting") {
				t.Fatalf("%s: the page says reconnecting: %s", h, s)
			}
		}
		checkAxe(t, tab, "a table that does not exist")
		runB(t, tab, 30*time.Second, chromedp.Click(chromedp.CSS(`[data-testid=back-to-lobby]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=queue-sponsio]`)))
		if got := evalJS[bool](t, tab, `!!document.querySelector("link[rel=icon]")`); !got {
			t.Fatal("the page has no favicon")
		}
	})

	for _, game := range []string{"sponsio", "sapotagem"} {
		t.Run(game+"-pointing", func(t *testing.T) {
			tab, table, ctx := browserTable(t, newTab, url, game)
			runB(t, tab, 10*time.Second, chromedp.EmulateViewport(1280, 800)) // the desktop the screenshots show
			titled := false
			most := playByPointing(t, tab, func() {
				runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=game] [data-testid=dock]`)))
				titled = strings.HasPrefix(evalJS[string](t, tab, `document.title`), "● Your move")
				if game == "sapotagem" {
					runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=trump-history] tbody tr`)))
				}
				if game == "sponsio" {
					// The screenshot shows a bet being chosen: a card laid face up, the coupons lit.
					evalJS[bool](t, tab, `document.querySelector("[data-testid=hand] button.card").click(), true`)
					runB(t, tab, 10*time.Second, chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("[data-testid=choice]")].some((b) => b.textContent === "Bet on a coupon")`))
					evalJS[bool](t, tab, `[...document.querySelectorAll("[data-testid=choice]")].find((b) => b.textContent === "Bet on a coupon").click(), true`)
					runB(t, tab, 10*time.Second, chromedp.WaitVisible(chromedp.CSS(`.coupon.hot .betbtn`)))
					evalJS[bool](t, tab, `document.querySelector(".board").scrollIntoView(), true`)
				}
				checkHeading(t, tab, game)
				checkAxe(t, tab, game+"'s table")
				screenshot(t, tab, shots, game)
			})
			if !titled {
				t.Error("the tab's title did not say it was the player's move")
			}
			if game == "sponsio" && most > 40 {
				t.Fatalf("a Sponsio screen showed %d choices at once, more than 40", most)
			}
			checkResult(t, tab, ctx, gw, table)
			checkAxe(t, tab, game+"'s result")
			if game == "sponsio" {
				if bad := evalJS[[]string](t, tab, `[...document.querySelectorAll("[data-testid=log] li")].map((l) => l.textContent).filter((s) => /option \d/.test(s))`); len(bad) > 0 {
					t.Fatalf("the log names bets by number: %q", bad)
				}
				if n := evalJS[int](t, tab, `[...document.querySelectorAll("[data-testid=log] li")].filter((l) => / bets on .*×\d/.test(l.textContent)).length`); n == 0 {
					t.Fatal("the log says no bet in words")
				}
			}
			if !evalJS[bool](t, tab, `(() => { const l = document.querySelector("[data-testid=log]"); return l.scrollHeight <= l.clientHeight || l.scrollTop + l.clientHeight >= l.scrollHeight - 10 })()`) {
				t.Fatal("the event log does not show its newest line")
			}
			if strings.HasPrefix(evalJS[string](t, tab, `document.title`), "● Your move") {
				t.Fatal("the game is over and the title still says it is the player's move")
			}

			checkReplay(t, tab, ctx, gw, url, table, game, shots)
		})
	}

	t.Run("failed-act", func(t *testing.T) {
		tab, table, ctx := browserTable(t, newTab, url, "sapotagem")
		offline := networkSwitch(t, tab)
		// The player's turn: the network drops, and the player moves.
		runB(t, tab, 3*time.Minute, chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("[data-testid=dock] [data-point]")].some((b) => b.checkVisibility())`))
		offline(true)
		for i := 0; evalJS[int](t, tab, `window.__cardroomActFailures || 0`) == 0; i++ {
			if i > 20 {
				t.Fatal("20 clicks offline and no move was tried")
			}
			evalJS[string](t, tab, pointJS)
			tctx, cancel := context.WithTimeout(tab, 2*time.Second)
			_, _ = chromedp.Run(tctx, chromedp.Poll[chromedp.Void](`(window.__cardroomActFailures || 0) > 0`))
			cancel()
		}
		// The page says what failed, in words, and the choices are back.
		runB(t, tab, 10*time.Second, chromedp.WaitVisible(chromedp.CSS(`[role=alert]`)))
		alert := evalJS[string](t, tab, `document.querySelector("[role=alert]").textContent`)
		if !strings.Contains(alert, "was not made") || !(strings.Contains(alert, "offline") || strings.Contains(alert, "could not be reached")) {
			t.Fatalf("after a failed move the page says %q", alert)
		}
		if n := evalJS[int](t, tab, `[...document.querySelectorAll("[data-testid=dock] [data-point]")].filter((b) => b.checkVisibility()).length`); n == 0 {
			t.Fatal("after a failed move the page offers no choice")
		}
		t.Logf("the failed move: %q", alert)
		offline(false)
		playByPointing(t, tab, nil)
		checkResult(t, tab, ctx, gw, table)
	})

	t.Run("phone", func(t *testing.T) {
		tab := newTab()
		runB(t, tab, 10*time.Second, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		signIn(t, tab, url, "Ada")
		checkAxe(t, tab, "the lobby on a phone")
		if w := evalJS[int](t, tab, `document.documentElement.scrollWidth`); w > 390 {
			t.Fatalf("the lobby is %d px wide on a 390 px phone", w)
		}
		for _, game := range []string{"sponsio", "sapotagem"} {
			runB(t, tab, 30*time.Second, chromedp.Navigate(url+"#/lobby"), chromedp.Click(chromedp.CSS(`[data-testid=queue-`+game+`]`)), chromedp.WaitVisible(chromedp.CSS(`.seats li .you`)))
			runB(t, tab, 3*time.Minute, chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("[data-testid=dock] [data-point]")].some((b) => b.checkVisibility())`))
			if w := evalJS[int](t, tab, `document.documentElement.scrollWidth`); w > 390 {
				t.Fatalf("%s's table is %d px wide on a 390 px phone", game, w)
			}
			// The hand and the choices are on screen together, without scrolling.
			in := evalJS[string](t, tab, `(() => {
				const out = [];
				for (const sel of ["[data-testid=dock] [data-testid=hand]", "[data-testid=dock] [data-point]"]) {
					const el = document.querySelector(sel);
					if (!el) { out.push(sel + " missing"); continue; }
					const r = el.getBoundingClientRect();
					if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) out.push(sel + " at " + JSON.stringify(r));
				}
				return out.join("; ");
			})()`)
			if in != "" {
				t.Fatalf("%s on a phone: not on screen: %s", game, in)
			}
			screenshot(t, tab, shots, game+"-phone")
			checkAxe(t, tab, game+"'s table on a phone")
		}
	})
}
