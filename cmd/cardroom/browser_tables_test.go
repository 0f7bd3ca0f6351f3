package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	saboteurv1 "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// evalAsync evaluates js, awaiting the promise it returns.
func evalAsync[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %.200s: %v", js, err)
	}
	return v
}

// screenshots looks at the game's table at a desktop's and a phone's size: at both the table must
// fit the width (no sideways scrolling; the maze pans inside its frame) and axe-core find no
// serious or critical violation, and the pictures are
// saved (docs/img/<game>.png and <game>-phone.png) when CARDROOM_WEB_SCREENSHOTS names a
// directory.
func screenshots(t *testing.T, tab context.Context, game string) {
	t.Helper()
	dir := os.Getenv("CARDROOM_WEB_SCREENSHOTS")
	for _, s := range []struct {
		name string
		w, h int64
		opts []chromedp.EmulateViewportOption
	}{
		{"desktop", 1280, 800, nil},
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile}},
	} {
		runB(t, tab, 30*time.Second, chromedp.EmulateViewport(s.w, s.h, s.opts...))
		// The table starts where the game's pane does: the seats and the status above it.
		evalAsync[bool](t, tab, `(async () => {
			document.querySelector("section.table h1")?.scrollIntoView();
			await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
			return true;
		})()`)
		if over := evalJS[[]string](t, tab, fmt.Sprintf(`[...document.querySelectorAll("[data-testid=game] *")].filter(e => e.getBoundingClientRect().right > %d + 0.5 && !e.closest(".frame .plane")).slice(0, 3).map(e => e.outerHTML.slice(0, 120))`, s.w)); len(over) > 0 {
			t.Fatalf("at %dx%d the table is wider than the screen: %v", s.w, s.h, over)
		}
		checkAxe(t, tab, fmt.Sprintf("%s's table at %dx%d", game, s.w, s.h))
		if s.name == "phone" {
			phoneTogether(t, tab, game)
		}
		if dir == "" {
			continue
		}
		png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		name := game + ".png" // the desktop's, as for the other games
		if s.name == "phone" {
			name = game + "-phone.png"
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runB(t, tab, 30*time.Second, chromedp.EmulateReset())
}

// phoneTogether checks, on a phone, that the player's cards and the choices they act on are on
// screen together: Saboteur's hand (kept at the bottom) with a cell lit for the picked card brought
// into view; sabai-sabai's own row with the piles above it.
func phoneTogether(t *testing.T, tab context.Context, game string) {
	t.Helper()
	pairs := map[string][2]string{
		"saboteur":   {"[data-testid=cell-target]", "[data-testid=hand] .tiles"},
		"sabaisabai": {".sb-centre", ".sb-row.mine"},
	}
	p, ok := pairs[game]
	if !ok {
		return
	}
	out := evalAsync[string](t, tab, fmt.Sprintf(`(async () => {
		const tick = () => new Promise(r => setTimeout(r, 40));
		// Saboteur: the card picked for the pictures may have been dropped by a view arriving
		// since; pick a path card that lights cells again (none fits: the maze is the choice).
		for (const b of document.querySelectorAll("[data-testid=hand] button.tile-btn[data-path]")) {
			if (%q !== "saboteur" || document.querySelector("[data-testid=cell-target]")) break;
			b.click();
			await tick();
		}
		const choice = document.querySelector(%q) || (%q === "saboteur" ? document.querySelector("[data-testid=board]") : null), cards = document.querySelector(%q);
		if (!choice || !cards) return "missing: " + (!choice ? %q : %q);
		choice.scrollIntoView({block: "center", inline: "center"});
		await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		const out = [];
		for (const [name, el] of [["choice", choice], ["cards", cards]]) {
			const r = el.getBoundingClientRect();
			if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) out.push(name + " at " + JSON.stringify(r));
			// Not hidden under the dock: the element's middle is itself (or inside it).
			const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
			if (hit && !el.contains(hit) && !hit.contains(el)) out.push(name + " covered by " + hit.outerHTML.slice(0, 80));
		}
		return out.join("; ");
	})()`, game, p[0], game, p[1], p[0], p[1]))
	if out != "" {
		t.Fatalf("%s on a phone: the cards and the choices are not on screen together: %s", game, out)
	}
}

type rect struct{ Left, Top, Right, Bottom float64 }

func cellRect(t *testing.T, tab context.Context, cell string) rect {
	t.Helper()
	return evalJS[rect](t, tab, fmt.Sprintf(`(() => { const r = document.querySelector('[data-testid=board] [data-cell="%s"]').getBoundingClientRect(); return {Left: r.left, Top: r.top, Right: r.right, Bottom: r.bottom} })()`, cell))
}

// pointSaboteur makes one move by pointing, as a person would: a gold card or a seat to rob when
// offered; else a card of the hand (path cards first), turned when it fits only turned, then the
// highlighted cell or the seat it targets; else a card discarded. It returns what it did, or
// "bad: …" when a card's discard is missing.
const pointSaboteur = `(async () => {
	const tick = () => new Promise(r => setTimeout(r, 40));
	const q = (s) => document.querySelector(s), qa = (s) => [...document.querySelectorAll(s)];
	const other = q("[data-testid=gold]") || (!q(".tile-btn.picked") && q("[data-testid=seat-target]"));
	if (other) return other.click(), "other";
	const tiles = qa("[data-testid=hand] button.tile-btn");
	tiles.sort((a, b) => (b.dataset.path ? 1 : 0) - (a.dataset.path ? 1 : 0));
	for (const t of tiles) {
		if (!t.isConnected) break;
		if (!t.classList.contains("picked")) t.click();
		await tick();
		for (let turn = 0; turn < 2; turn++) {
			// The card picked (the hand may have changed under the pointer: a view arriving).
			const path = !!q(".tile-btn.picked")?.dataset.path;
			const cells = qa("[data-testid=cell-target]");
			if (cells.length) {
				const c = cells[Math.floor(Math.random() * cells.length)];
				const at = c.closest("[data-cell]").dataset.cell;
				c.click();
				return (path ? "place " : "action ") + at;
			}
			const seats = qa("[data-testid=seat-target]");
			if (seats.length) return seats[Math.floor(Math.random() * seats.length)].click(), "action seat";
			const rot = q("[data-testid=rotate]");
			if (!rot) break;
			rot.click();
			await tick();
		}
		q("[data-testid=cancel]")?.click();
		await tick();
	}
	const dm = q("[data-testid=discard-mode]");
	if (dm) {
		dm.click();
		await tick();
		q("[data-testid=hand] button.tile-btn")?.click();
		await tick();
		const d = q("[data-testid=discard]");
		if (d) return d.click(), "discard";
		const why = q("[data-testid=prompt]")?.textContent ?? "";
		q("[data-testid=cancel]")?.click();
		// Still choosing discards (not started again by other moves): the card's discard is missing.
		if (why.startsWith("Click the cards to discard") && q("[data-testid=act]")) return "bad: no discard offered for the card clicked";
	}
	return "";
})()`

// pickPath picks a path card of the hand that fits somewhere (turned by the button when it fits
// only turned) and says which, how it is turned and which cells light up: {card, turned, cells}.
const pickPath = `(async () => {
	const tick = () => new Promise(r => setTimeout(r, 40));
	const q = (s) => document.querySelector(s), qa = (s) => [...document.querySelectorAll(s)];
	for (const t of qa("[data-testid=hand] button.tile-btn[data-path]")) {
		if (!t.isConnected) break;
		if (!t.classList.contains("picked")) t.click();
		await tick();
		for (let turn = 0; turn < 2; turn++) {
			const p = q(".tile-btn.picked");
			const cells = qa("[data-testid=cell-target]").map(c => c.closest("[data-cell]").dataset.cell);
			if (p?.dataset.path && cells.length) return {card: p.dataset.card, turned: !!p.dataset.turned, cells};
			const rot = q("[data-testid=rotate]");
			if (!rot) break;
			rot.click();
			await tick();
		}
		q("[data-testid=cancel]")?.click();
		await tick();
	}
	return {card: "", turned: false, cells: []};
})()`

type pickedPath struct {
	Card   string   `json:"card"`
	Turned bool     `json:"turned"`
	Cells  []string `json:"cells"`
}

// legalCells is where the gateway's legal moves place card (turned or not).
func legalCells(t *testing.T, ctx context.Context, gw gatewayv1.GatewayServiceClient, table, card string, turned bool) []string {
	t.Helper()
	l, err := gw.ListLegalActions(ctx, &gatewayv1.ListLegalActionsRequest{TableId: table})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range l.GetActions() {
		var act saboteurv1.Action
		if err := a.UnmarshalTo(&act); err != nil {
			t.Fatal(err)
		}
		if p := act.GetPlace(); p != nil && p.GetCard().String() == "CARD_"+card && p.GetRotated() == turned {
			out = append(out, fmt.Sprintf("%d,%d", p.GetCell().GetX(), p.GetCell().GetY()))
		}
	}
	slices.Sort(out)
	return out
}

// TestBrowserSaboteurByPointing: the maze is drawn in the rules' orientation (the cell (0, 1)
// directly south of the start, (1, 0) east of it, the goals east at y −2, 0, 2 from north to
// south); a browser player then plays a whole game by pointing only — picking cards of its hand,
// turning them (the button, and once the key r), clicking highlighted cells and the seats action
// cards target, discarding by clicking cards — never the numbered move list; the highlighted cells
// are always cells the legal moves name, a placed card lies at its cell afterwards, and the result
// screen is GetReplay's.
func TestBrowserSaboteurByPointing(t *testing.T) {
	newTab := newBrowser(t)
	front := serveForBrowsers(t)
	gw := gatewayClient(t, front)
	tab, table, ctx := browserTable(t, newTab, "http://"+front+"/", "saboteur")

	runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=board] [data-cell="0,0"][data-card=START]`)))
	checkHeading(t, tab, "saboteur")
	start, south, east := cellRect(t, tab, "0,0"), cellRect(t, tab, "0,1"), cellRect(t, tab, "1,0")
	near := func(a, b float64) bool { return math.Abs(a-b) < 1.5 }
	if !near(south.Left, start.Left) || !near(south.Top, start.Bottom) {
		t.Fatalf("the cell (0, 1) is drawn at %+v, the start at %+v: not directly south of it", south, start)
	}
	if !near(east.Top, start.Top) || !near(east.Left, start.Right) {
		t.Fatalf("the cell (1, 0) is drawn at %+v, the start at %+v: not directly east of it", east, start)
	}
	north, mid, down := cellRect(t, tab, "8,-2"), cellRect(t, tab, "8,0"), cellRect(t, tab, "8,2")
	if !(north.Bottom < mid.Top && mid.Bottom < down.Top && near(mid.Top, start.Top) && mid.Left > start.Right) {
		t.Fatalf("the goals (8,-2), (8,0), (8,2) are drawn at %+v, %+v, %+v; the start at %+v", north, mid, down, start)
	}

	counts := map[string]int{}
	turnedByKey, shot, checked := false, false, 0
	for {
		runB(t, tab, 2*time.Minute, chromedp.WaitReady(chromedp.CSS(`[data-testid=act], [data-testid=result]`)))
		if evalJS[bool](t, tab, `!!document.querySelector("[data-testid=result]")`) {
			break
		}
		if !turnedByKey {
			// The key r turns the picked path card (and turns it back).
			label := evalAsync[string](t, tab, `(async () => {
				for (const b of document.querySelectorAll("[data-testid=hand] button.tile-btn[data-path]")) {
					b.click();
					await new Promise(r => setTimeout(r, 40));
					if (document.querySelector("[data-testid=rotate]")) return document.querySelector(".tile-btn.picked")?.getAttribute("aria-label") ?? "";
					document.querySelector("[data-testid=cancel]")?.click();
					await new Promise(r => setTimeout(r, 40));
				}
				return "";
			})()`)
			if label != "" {
				runB(t, tab, 10*time.Second, chromedp.KeyEvent("r"))
				runB(t, tab, 10*time.Second, chromedp.Poll[chromedp.Void](`(document.querySelector(".tile-btn.picked")?.getAttribute("aria-label") ?? "").endsWith(", turned")`))
				runB(t, tab, 10*time.Second, chromedp.KeyEvent("r"))
				runB(t, tab, 10*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`(document.querySelector(".tile-btn.picked")?.getAttribute("aria-label") ?? "") === %q`, label)))
				turnedByKey = true
			}
		}
		if !shot && evalJS[int](t, tab, `document.querySelectorAll("[data-testid=board] .card-cell").length`) >= 9 {
			// A picked card and its cells highlighted, for the pictures.
			evalAsync[bool](t, tab, `(async () => {
				for (const b of document.querySelectorAll("[data-testid=hand] button.tile-btn[data-path]")) {
					b.click();
					await new Promise(r => setTimeout(r, 40));
					if (document.querySelector("[data-testid=cell-target]")) return true;
					document.querySelector("[data-testid=cancel]")?.click();
				}
				return false;
			})()`)
			screenshots(t, tab, "saboteur")
			shot = true
		}
		before := acts(t, tab)
		round := evalJS[string](t, tab, `document.querySelector("[data-testid=round]")?.textContent ?? ""`)
		// A path card first: the cells lit for it must be those the legal moves name (the page
		// may lag a moment behind the table: it is given that moment).
		what := ""
		if p := evalAsync[pickedPath](t, tab, pickPath); p.Card != "" {
			slices.Sort(p.Cells)
			if want := legalCells(t, ctx, gw, table, p.Card, p.Turned); !slices.Equal(p.Cells, want) {
				wantJSON, _ := json.Marshal(want)
				pctx, cancel := context.WithTimeout(tab, 5*time.Second)
				_, err := chromedp.Run(pctx, chromedp.Poll[chromedp.Void](`JSON.stringify([...document.querySelectorAll("[data-testid=cell-target]")].map(c => c.closest("[data-cell]").dataset.cell).sort()) === `+strconv.Quote(string(wantJSON))))
				cancel()
				if err != nil {
					now := evalJS[[]string](t, tab, `[...document.querySelectorAll("[data-testid=cell-target]")].map(c => c.closest("[data-cell]").dataset.cell).sort()`)
					if again := legalCells(t, ctx, gw, table, p.Card, p.Turned); !slices.Equal(now, again) {
						t.Fatalf("the page lights %v for the %s (turned %v), the legal moves place it at %v", now, p.Card, p.Turned, again)
					}
				}
			}
			checked++
			what = evalJS[string](t, tab, `(() => {
				const cells = [...document.querySelectorAll("[data-testid=cell-target]")];
				if (!cells.length) return "";
				const c = cells[Math.floor(Math.random() * cells.length)];
				c.click();
				return "place " + c.closest("[data-cell]").dataset.cell;
			})()`)
		}
		if what == "" {
			what = evalAsync[string](t, tab, pointSaboteur)
		}
		if strings.HasPrefix(what, "bad") {
			t.Fatal(what)
		}
		if what == "" {
			// Nothing to point at (the moves went meanwhile): wait for the next ones.
			runB(t, tab, 2*time.Minute, chromedp.Poll[chromedp.Void](`!document.querySelector("[data-testid=act]") || !!document.querySelector("[data-testid=hand] button.tile-btn, [data-testid=discard-mode], [data-testid=seat-target], [data-testid=gold], [data-testid=result]")`))
			continue
		}
		runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`Object.keys(window.__cardroomActs || {}).length > %d || !!document.querySelector("[role=alert]")`, before)))
		if acts(t, tab) == before {
			continue // refused: the table moved on meanwhile (a timer)
		}
		kind, cell, _ := strings.Cut(what, " ")
		counts[kind]++
		if kind == "place" {
			// The card lies at its cell once the view follows (unless the round ended with it).
			runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(
				`!!document.querySelector('[data-testid=board] .card-cell[data-cell="%s"]') || !!document.querySelector("[data-testid=result]") || (document.querySelector("[data-testid=round]")?.textContent ?? "") !== %q`, cell, round)))
		}
	}
	t.Logf("played by pointing: %v; turned by the key r: %v; lit cells checked against the legal moves %d times", counts, turnedByKey, checked)
	if counts["place"] == 0 {
		t.Fatal("no path card was placed by clicking a cell")
	}
	if !turnedByKey {
		t.Fatal("the key r never turned a picked card")
	}
	if !shot {
		t.Fatal("the table was never looked at (axe-core, the width, the pictures): the maze never held nine cards")
	}
	checkResult(t, tab, ctx, gw, table)
	checkAxe(t, tab, "Saboteur's result")
	checkReplay(t, tab, ctx, gw, "http://"+front+"/", table, "saboteur", os.Getenv("CARDROOM_WEB_SCREENSHOTS"))
}

// sabaiHelpers defines, in the page, one move by pointing (pointSabai) and whether the page
// offers one (sabaiReady): a nose touch, a call, an effect's card (and its second card or row),
// the draw pile, the drawn card or a swap under a card of the row; a card of a row known to match
// the discard pile's top, thrown at any moment; and now and then, out of turn, a blind throw of a
// card of one's own row (one chance for each new top card).
const sabaiHelpers = `(() => {
	const q = (s) => document.querySelector(s), qa = (s) => [...document.querySelectorAll(s)];
	const tick = () => new Promise(r => setTimeout(r, 40));
	const top = () => q(".fan")?.getAttribute("aria-label") ?? "";
	const blind = () => !q(".sb-row.turn.mine") && top() !== window.__blindTop && qa(".sb-row.mine button.sb-card[data-kind=throw]").length > 0;
	window.sabaiReady = () => !!q("[data-testid=nose], [data-testid=call], [data-testid=draw], [data-testid=play-drawn], button.sb-card[data-kind=effect], button.sb-card[data-match='1'], [data-testid=result]") || blind();
	window.pointSabai = async () => {
		const nose = q("[data-testid=nose]");
		if (nose) return nose.click(), "nose";
		const call = q("[data-testid=call]");
		if (call) return call.click(), "call";
		const eff = qa("button.sb-card[data-kind=effect]");
		if (eff.length) {
			eff[0].click();
			await tick();
			if (!q("button.sb-card.picked")) return "effect";
			const next = q("[data-testid=give-to]") || qa("button.sb-card[data-kind=effect]").find(b => !b.closest(".sb-row.mine"));
			if (next) return next.click(), "effect";
			return "";
		}
		const match = q("button.sb-card[data-match='1']");
		if (match) return match.click(), q(".sb-row.turn.mine") ? "throw" : "throw out of turn";
		const draw = q("[data-testid=draw]");
		if (draw) return draw.click(), "draw";
		const keeps = qa("[data-testid=keep]"), play = q("[data-testid=play-drawn]");
		if (keeps.length && (Math.random() < 0.5 || !play)) return keeps[Math.floor(Math.random() * keeps.length)].click(), "keep";
		if (play) return play.click(), "play";
		if (blind()) {
			window.__blindTop = top();
			if (Math.random() < 0.3) {
				const mine = qa(".sb-row.mine button.sb-card[data-kind=throw]");
				const b = mine[Math.floor(Math.random() * mine.length)];
				return b.click(), "blind " + b.dataset.slot;
			}
		}
		return "";
	};
	return true;
})()`

// TestBrowserSabaiByPointing: a browser player plays a whole game of sabai-sabai by pointing
// only — the draw pile, the drawn card, a swap under a card, the cards of the rows (thrown at any
// moment, out of turn too, and those an effect asks for), the nose and call buttons — never the
// numbered move list. At every step the status line, the seat strip and the timer agree on whose
// turn it is: the status never says it is the player's move while a bot's turn runs. The result
// screen is GetReplay's.
func TestBrowserSabaiByPointing(t *testing.T) {
	newTab := newBrowser(t)
	front := serveForBrowsers(t)
	gw := gatewayClient(t, front)
	tab, table, ctx := browserTable(t, newTab, "http://"+front+"/", "sabaisabai")
	runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=game] .sb-rows`)))
	checkHeading(t, tab, "sabaisabai")
	evalJS[bool](t, tab, sabaiHelpers)

	counts := map[string]int{}
	shot := false
	for i := 0; ; i++ {
		runB(t, tab, 2*time.Minute, chromedp.WaitReady(chromedp.CSS(`[data-testid=act], [data-testid=result]`)))
		if evalJS[bool](t, tab, `!!document.querySelector("[data-testid=result]")`) {
			break
		}
		// The status line, the seat strip and the timer name the same seat.
		agree := evalJS[string](t, tab, `(() => {
			const li = document.querySelector(".seats li.turn"), status = document.querySelector("[data-testid=turn]")?.textContent ?? "";
			const timer = document.querySelector("[data-testid=timer]")?.textContent ?? "";
			if (!li) return "";
			const mine = !!li.querySelector(".you"), who = li.querySelector("b").textContent;
			if (mine ? !status.includes("your turn") && !status.includes("your discard") : !status.includes(who + " to play") || status.includes("your move")) return "status " + JSON.stringify(status) + " while the seat strip marks " + who + (mine ? " (you)" : "");
			if (timer.includes("card lands") && !timer.includes(mine ? "your card" : who + "'s card")) return "timer " + JSON.stringify(timer) + " while the seat strip marks " + who;
			return "";
		})()`)
		if agree != "" {
			t.Fatal(agree)
		}
		// The pictures: another seat's turn, a card on the discard pile and cards known on the table.
		if !shot && evalJS[bool](t, tab, fmt.Sprintf(`!!document.querySelector(".fan .sb-card.up") && !document.querySelector(".sb-row.turn.mine") && (document.querySelectorAll(".sb-card .known").length + document.querySelectorAll(".sb-card .knowers").length >= 3 || %d > 10)`, i)) {
			screenshots(t, tab, "sabaisabai")
			shot = true
		}
		before := acts(t, tab)
		round := evalJS[string](t, tab, `document.querySelector("[data-testid=round]")?.textContent ?? ""`)
		what := evalAsync[string](t, tab, `window.pointSabai()`)
		if what == "" {
			runB(t, tab, 2*time.Minute, chromedp.Poll[chromedp.Void](`window.sabaiReady()`))
			continue
		}
		runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`Object.keys(window.__cardroomActs || {}).length > %d || !!document.querySelector("[role=alert]")`, before)))
		if acts(t, tab) == before {
			continue
		}
		if slot, ok := strings.CutPrefix(what, "blind "); ok {
			// A blind throw leaves the row (a right guess) or stays, marked where it happened: the
			// wrong throw on the card, the penalty card beside it.
			what = "throw out of turn"
			runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => {
				const c = document.querySelector('.sb-row.mine [data-slot="%s"]');
				return !c || !!c.querySelector(".mark.wrong") || !!document.querySelector("[data-testid=result]") || (document.querySelector("[data-testid=round]")?.textContent ?? "") !== %q;
			})()`, slot, round)))
			if evalJS[bool](t, tab, `!!document.querySelector(".sb-row.mine .mark.wrong")`) {
				counts["wrong throw marked"]++
			}
		}
		counts[what]++
	}
	t.Logf("played by pointing: %v", counts)
	if !shot {
		t.Fatal("the table was never looked at (axe-core, the width, the pictures): no other seat's turn with a card on the discard pile")
	}
	if counts["throw out of turn"] == 0 {
		t.Fatal("no card was thrown out of turn by clicking it")
	}
	if counts["call"] == 0 {
		t.Fatal("sabai-sabai was never called by its button")
	}
	if counts["draw"] == 0 || counts["play"]+counts["keep"] == 0 {
		t.Fatal("the turn's moves were not made by clicking the pile and the drawn card")
	}
	checkResult(t, tab, ctx, gw, table)
	checkAxe(t, tab, "sabai-sabai's result")
	checkReplay(t, tab, ctx, gw, "http://"+front+"/", table, "sabaisabai", os.Getenv("CARDROOM_WEB_SCREENSHOTS"))
}

// TestBrowserSaboteurMaze: a ten-seat Saboteur 2 table made on the creation screen (the player and
// nine bots) is played by pointing until the maze holds 14 cards (or the game ends with its last
// maze on the table, of 12 cards at least; else another table). Then, at a desktop's size, "fit"
// must show every card of the maze inside the frame; "+" must draw the tiles larger and, pressed
// more, the maze wider than its frame, which a drag with the mouse must pan. At a phone's size the
// page must stay no wider than the phone (the maze pans inside its frame), with the hand on screen.
func TestBrowserSaboteurMaze(t *testing.T) {
	front := serveForBrowsers(t)
	url := "http://" + front + "/"
	tab := newBrowser(t)()
	runB(t, tab, 10*time.Second, chromedp.EmulateViewport(1280, 800))
	signIn(t, tab, url, "Mira")
	const cardsOnBoard = `document.querySelectorAll("[data-testid=board] .card-cell").length`
	// Nine bots play fast, and a round's maze is cleared when it ends: the maze is watched between
	// the player's turns too. A game whose last maze stayed small (the saboteurs won it early) is
	// followed by another.
	for table := 0; ; table++ {
		if table == 3 {
			t.Fatal("three ten-seat games ended without a maze of 12 cards on the table")
		}
		runB(t, tab, 30*time.Second, chromedp.Navigate(url+"#/create/saboteur"),
			chromedp.Poll[chromedp.Void](`document.querySelectorAll("[data-testid^=seat-]").length > 0`))
		setField(t, tab, "seats", "10")
		runB(t, tab, 30*time.Second,
			chromedp.Poll[chromedp.Void](`document.querySelectorAll("[data-testid^=seat-]").length === 9 && document.querySelector("[data-testid=verdict]").innerText.includes("accepts")`),
			chromedp.Click(chromedp.CSS(`[data-testid=create]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=board] [data-cell="0,0"]`)))
		if n := evalJS[int](t, tab, `document.querySelectorAll(".sab-seat").length`); n != 10 {
			t.Fatalf("the table shows %d dwarves, want 10", n)
		}
		for {
			runB(t, tab, 2*time.Minute, chromedp.Poll[chromedp.Void](cardsOnBoard+` >= 14 || !!document.querySelector("[data-testid=act], [data-testid=result]")`))
			if evalJS[int](t, tab, cardsOnBoard) >= 14 || evalJS[bool](t, tab, `!!document.querySelector("[data-testid=result]")`) {
				break
			}
			before := acts(t, tab)
			what := evalAsync[string](t, tab, pointSaboteur)
			if strings.HasPrefix(what, "bad") {
				t.Fatal(what)
			}
			if what == "" {
				// Nothing to point at (the moves went meanwhile): wait for the next ones.
				runB(t, tab, 2*time.Minute, chromedp.Poll[chromedp.Void](`!document.querySelector("[data-testid=act]") || !!document.querySelector("[data-testid=hand] button.tile-btn, [data-testid=discard-mode], [data-testid=seat-target], [data-testid=gold], [data-testid=result]")`))
				continue
			}
			runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`Object.keys(window.__cardroomActs || {}).length > %d || !!document.querySelector("[role=alert]")`, before)))
		}
		if n := evalJS[int](t, tab, cardsOnBoard); n >= 8+4 {
			t.Logf("table %d: the maze holds %d cards", table+1, n)
			break
		}
	}

	type box struct{ Left, Top, Right, Bottom, ScrollWidth, ClientWidth, ScrollLeft float64 }
	frame := func() box {
		return evalJS[box](t, tab, `(() => { const f = document.querySelector("[data-testid=board]"), r = f.getBoundingClientRect();
			return {Left: r.left, Top: r.top, Right: r.right, Bottom: r.bottom, ScrollWidth: f.scrollWidth, ClientWidth: f.clientWidth, ScrollLeft: f.scrollLeft} })()`)
	}
	click := func(label string) {
		t.Helper()
		runB(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(fmt.Sprintf(`.sab-board .zoom button[aria-label=%q]`, label))))
		evalAsync[bool](t, tab, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
	}
	click("fit the maze to the frame")
	evalJS[bool](t, tab, `document.querySelector("[data-testid=board]").scrollIntoView({block: "nearest"}), true`)
	f := frame()
	outside := evalJS[[]string](t, tab, fmt.Sprintf(`[...document.querySelectorAll("[data-testid=board] .card-cell")].filter(c => {
		const r = c.getBoundingClientRect();
		return r.left < %f - 0.5 || r.right > %f + 0.5 || r.top < %f - 0.5 || r.bottom > %f + 0.5;
	}).map(c => c.dataset.cell)`, f.Left, f.Right, f.Top, f.Bottom))
	if len(outside) > 0 {
		t.Fatalf("fitted, the maze's cards %v lie outside its frame %+v", outside, f)
	}
	small := cellRect(t, tab, "0,0")
	for range 4 {
		click("zoom in")
	}
	big := cellRect(t, tab, "0,0")
	if big.Right-big.Left < 1.5*(small.Right-small.Left) {
		t.Fatalf("zoomed in four times, the start is %.0f px wide, fitted %.0f", big.Right-big.Left, small.Right-small.Left)
	}
	// Further in (up to the most, 2.5 times the tile's size), the maze outgrows its frame.
	for i := 0; i < 8 && frame().ScrollWidth <= frame().ClientWidth+200; i++ {
		click("zoom in")
	}
	f = frame()
	if f.ScrollWidth <= f.ClientWidth {
		t.Fatalf("zoomed in (the start %.0f px wide, fitted %.0f), the maze (%.0f px; plane %s) still fits its frame (%.0f px): nothing to pan", big.Right-big.Left, small.Right-small.Left, f.ScrollWidth,
			evalJS[string](t, tab, `document.querySelector("[data-testid=board] .plane").style.cssText`), f.ClientWidth)
	}
	// A drag to the right from the frame's middle scrolls the maze as far back (80 px, or what
	// there is to the left when the maze is narrower). Bots play
	// meanwhile: a card laid west of the maze moves it under the pointer, so a drag is tried thrice.
	// The frame in the middle of the window, clear of the dock at its bottom.
	evalJS[bool](t, tab, `document.querySelector("[data-testid=board]").scrollIntoView({block: "center"}), true`)
	f = frame()
	panned := ""
	for try := 0; try < 3; try++ {
		evalJS[bool](t, tab, `(() => { const f = document.querySelector("[data-testid=board]"); f.scrollLeft = (f.scrollWidth - f.clientWidth) / 2; return true })()`)
		from := frame().ScrollLeft
		d := math.Min(80, math.Floor(from))
		x, y := (f.Left+f.Right)/2, (f.Top+f.Bottom)/2
		runB(t, tab, 10*time.Second,
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x+d/2, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x+d, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x+d, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
		to := frame().ScrollLeft
		if d >= 20 && math.Abs((from-to)-d) <= 2 {
			panned = ""
			break
		}
		panned = fmt.Sprintf("a drag of %.0f px to the right moved the maze from %.0f to %.0f", d, from, to)
	}
	if panned != "" {
		t.Fatal(panned)
	}
	checkAxe(t, tab, "a ten-seat maze")
	dir := os.Getenv("CARDROOM_WEB_SCREENSHOTS")
	if dir != "" {
		click("fit the maze to the frame")
		evalJS[bool](t, tab, `document.querySelector("section.table h1").scrollIntoView(), true`)
		screenshot(t, tab, dir, "saboteur-maze")
	}

	runB(t, tab, 30*time.Second, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	click("fit the maze to the frame")
	if w := evalJS[int](t, tab, `document.documentElement.scrollWidth`); w > 390 {
		t.Fatalf("with a ten-seat maze the page is %d px wide on a 390 px phone", w)
	}
	if in := evalJS[bool](t, tab, `(() => { const r = document.querySelector("[data-testid=hand] .tiles").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight })()`); !in {
		t.Fatal("with a ten-seat maze on a phone the hand is not on screen")
	}
	screenshot(t, tab, dir, "saboteur-maze-phone")
}
