package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserFigures measures what docs/performance.md reports for the web client: the lobby's
// first paint, and how long an event takes to reach the DOM of every seated browser after the
// acting seat's Act returns, at a private 4-seat table of four browser players (Sapotagem). It runs
// only with CARDROOM_WEB_MEASURE=1 (it is a measurement, not a check).
func TestBrowserFigures(t *testing.T) {
	if os.Getenv("CARDROOM_WEB_MEASURE") != "1" {
		t.Skip("a measurement: set CARDROOM_WEB_MEASURE=1 to run it")
	}
	newTab := newBrowser(t)
	front := serveForBrowsers(t)
	url := "http://" + front + "/"

	// Lobby: first contentful paint of a fresh page, signed in (the games listed).
	var paints []float64
	for i := range 5 {
		tab := newBrowser(t)()
		signIn(t, tab, url, fmt.Sprint("P", i))
		runB(t, tab, 30*time.Second, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=queue-sapotagem]`)))
		paints = append(paints, evalJS[float64](t, tab, `performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1`))
	}
	slices.Sort(paints)
	t.Logf("lobby first contentful paint: median %.0f ms, max %.0f ms (5 fresh browsers)", paints[2], paints[4])

	// Four players, each in a browser of its own, at one private table.
	owner := newTab()
	signIn(t, owner, url, "Ann")
	// A private table of four made on the creation screen, the three other seats left to people.
	runB(t, owner, 30*time.Second, chromedp.Navigate(url+"#/create/sapotagem"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("[data-testid^=seat-]").length > 0`))
	setField(t, owner, "seats", "4")
	runB(t, owner, 30*time.Second, chromedp.Poll[chromedp.Void](`document.querySelectorAll("[data-testid^=seat-]").length === 3`))
	for seat := 2; seat <= 4; seat++ {
		setField(t, owner, fmt.Sprint("seat-", seat), "person")
	}
	runB(t, owner, 30*time.Second,
		chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=verdict]").innerText.includes("accepts")`),
		chromedp.Click(chromedp.CSS(`[data-testid=create]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=invite]`)),
	)
	code := evalJS[string](t, owner, `document.querySelector("[data-testid=invite]").textContent`)
	tabs := []context.Context{owner}
	for _, name := range []string{"Bob", "Cid", "Dee"} {
		tab := newBrowser(t)()
		signIn(t, tab, url, name)
		runB(t, tab, 30*time.Second,
			chromedp.SendKeys(chromedp.CSS(`form input:not([name])`), code),
			chromedp.Click(chromedp.CSS(`form:nth-of-type(1) button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid=invite]`)),
		)
		tabs = append(tabs, tab)
	}
	runB(t, owner, 30*time.Second, chromedp.Poll[chromedp.Void](`document.querySelectorAll("main ol li").length === 4`))
	evalJS[bool](t, owner, `[...document.querySelectorAll("button")].find(b => b.textContent === "Start").click(), true`)
	for _, tab := range tabs {
		runB(t, tab, 60*time.Second, chromedp.WaitVisible(chromedp.CSS(`.seats li .you`)))
	}
	// Play: each page clicks its first move as soon as the move list appears (a MutationObserver
	// in the page, so the measuring harness does not load the machine with DevTools round trips),
	// until the result shows everywhere.
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average at the start: %s", strings.TrimSpace(string(la)))
	}
	for _, tab := range tabs {
		evalJS[bool](t, tab, `(() => {
			const click = () => { const b = document.querySelector("[data-testid=act]"); if (b && !document.querySelector("[data-testid=result]")) b.click(); };
			new MutationObserver(() => setTimeout(click, 0)).observe(document.body, { childList: true, subtree: true });
			click();
			return true;
		})()`)
	}
	for _, tab := range tabs {
		runB(t, tab, 10*time.Minute, chromedp.Poll[chromedp.Void](`!!document.querySelector("[data-testid=result]")`, chromedp.WithPollingInterval(200*time.Millisecond), chromedp.WithPollingTimeout(0)))
	}
	// Latency per event and page: DOM time minus the time the actor's Act returned; and, to tell
	// where it goes, the time the page received the event (the stream's message decoded) and the
	// time its line reached the DOM after that.
	acts := map[string]float64{}
	for _, tab := range tabs {
		for v, at := range evalJS[map[string]float64](t, tab, `window.__cardroomActs || {}`) {
			acts[v] = at
		}
	}
	var lat, recvLat, render []float64
	for _, tab := range tabs {
		arrivals := evalJS[map[string]float64](t, tab, `window.__cardroomArrivals || {}`)
		recv := evalJS[map[string]float64](t, tab, `window.__cardroomRecv || {}`)
		versions := evalJS[map[string]float64](t, tab, `window.__cardroomVersions || {}`)
		for seq, at := range arrivals {
			if r, ok := recv[seq]; ok {
				render = append(render, at-r)
			}
			v, ok := versions[seq]
			if !ok {
				continue
			}
			if actAt, ok := acts[fmt.Sprint(int(v))]; ok {
				lat = append(lat, at-actAt)
				recvLat = append(recvLat, recv[seq]-actAt)
			}
		}
	}
	if len(lat) == 0 {
		t.Fatal("no event measured")
	}
	q := func(xs []float64, p float64) float64 {
		slices.Sort(xs)
		return xs[int(p*float64(len(xs)-1))]
	}
	t.Logf("event to DOM after Act returns, 4 browsers at one table: %d events×pages, p50 %.1f ms, p95 %.1f ms, max %.1f ms", len(lat), q(lat, .5), q(lat, .95), q(lat, 1))
	t.Logf("  of which: received by the page after Act returns p50 %.1f ms, p95 %.1f ms; received to DOM (%d events×pages) p50 %.1f ms, p95 %.1f ms, max %.1f ms",
		q(recvLat, .5), q(recvLat, .95), len(render), q(render, .5), q(render, .95), q(render, 1))
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average at the end: %s", strings.TrimSpace(string(la)))
	}
}
