package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserRoom: a person queues from the lobby and plays; another person, in another browser,
// finds the game in the live list and watches it by a click; after the end both find it in the
// finished list and open its replay by a click; the player's page lists the game and a rating. With
// CARDROOM_WEB_SCREENSHOTS set (docs/img), it saves the lobby and the player page at desktop and
// phone sizes.
func TestBrowserRoom(t *testing.T) {
	front := serveForBrowsers(t)
	url := "http://" + front + "/"
	ann := newBrowser(t)()
	bob := newBrowser(t)() // a browser of its own: another person
	signIn(t, ann, url, "Ann")
	signIn(t, bob, url, "Bob")
	// Ann registers a user name and password in the page, and plays as that account.
	account(t, ann, "annroom", "correct horse battery", true)

	runB(t, ann, 2*time.Minute,
		chromedp.Click(chromedp.CSS(`[data-testid=queue-sponsio]`)),
		chromedp.WaitVisible(chromedp.CSS(`.seats li`)),
	)
	table := tableOf(t, ann)
	if playMoves(t, ann, 1) {
		t.Fatal("a game of Sponsio over after one move") // the rest of the test needs it in play
	}

	// Bob's lobby lists the game being played; a click on it is the spectator's screen.
	watch := fmt.Sprintf(`[data-testid=list-watch] [data-testid="watch-%s"]`, table)
	runB(t, bob, 30*time.Second, chromedp.Navigate(url+"#/lobby"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=list-watch]`)))
	waitListed(t, bob, watch)
	runB(t, bob, 30*time.Second, chromedp.Click(chromedp.CSS(watch)),
		chromedp.WaitVisible(chromedp.CSS(`.seats li`)))
	if got := evalJS[string](t, bob, `location.hash`); got != "#/spectate/"+table {
		t.Fatalf("after a click on the live table Bob is at %s", got)
	}
	// Ann signs in with her password in another browser: her game is there to resume.
	other := newBrowser(t)()
	signIn(t, other, url, "Guest")
	account(t, other, "annroom", "correct horse battery", false)
	waitListed(t, other, fmt.Sprintf(`[data-testid=your-games] [data-testid="resume-%s"]`, table))
	// Ann's own lobby offers the game to resume.
	runB(t, ann, 30*time.Second, chromedp.Navigate(url+"#/lobby"))
	waitListed(t, ann, fmt.Sprintf(`[data-testid=your-games] [data-testid="resume-%s"]`, table))
	runB(t, ann, 30*time.Second, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="resume-%s"]`, table))),
		chromedp.WaitVisible(chromedp.CSS(`.seats li .you`)))
	over := playMoves(t, ann, -1)
	if !over {
		t.Fatal("the game did not end")
	}

	// Both find it among the finished games (once its end is recorded) and open its replay.
	replay := fmt.Sprintf(`[data-testid=list-replay] [data-testid="replay-%s"]`, table)
	for _, tab := range []context.Context{ann, bob} {
		runB(t, tab, 30*time.Second, chromedp.Navigate(url+"#/lobby"))
		waitListed(t, tab, replay)
		runB(t, tab, 30*time.Second, chromedp.Click(chromedp.CSS(replay)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=step]`)))
	}

	// Ann's page: the game among her recent ones, and a rating for Sponsio (the stats service
	// consumes the end from the event stream: reloaded until it shows).
	runB(t, ann, 60*time.Second, chromedp.Navigate(url+"#/profile"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=profile-name]`)))
	shown := fmt.Sprintf(`!!document.querySelector('[data-testid=recent-games] a[href="#/replay/%s"]') && !!document.querySelector("[data-testid=rating-sponsio]")`, table)
	for deadline := time.Now().Add(60 * time.Second); !evalJS[bool](t, ann, shown); {
		if time.Now().After(deadline) {
			t.Fatal("Ann's page does not show the game and a Sponsio rating within 60s")
		}
		runB(t, ann, 30*time.Second, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=profile-name]`)))
	}
	if title := evalJS[string](t, ann, `document.querySelector("[data-testid=rating-sponsio]").title`); !strings.Contains(title, "μ") || !strings.Contains(title, "σ") {
		t.Fatalf("the rating's mu and sigma on hover: %q", title)
	}
	checkAxe(t, ann, "the player's page")
	runB(t, ann, 30*time.Second, chromedp.Navigate(url+"#/lobby"), chromedp.WaitVisible(chromedp.CSS(replay)))
	checkAxe(t, ann, "the room")
	// The leaderboard, with the game's figures from the stats service (the game above among them).
	runB(t, ann, 30*time.Second, chromedp.Navigate(url+"#/leaderboard/sponsio"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=figures]`)))
	if txt := evalJS[string](t, ann, `document.querySelector("[data-testid=figures]").innerText`); !strings.Contains(txt, "played to the end") || strings.Contains(txt, "\n0 games played") || !strings.Contains(txt, "Wins by seat") {
		t.Fatalf("Sponsio's figures: %q", txt)
	}
	checkAxe(t, ann, "Sponsio's leaderboard")

	if dir := os.Getenv("CARDROOM_WEB_SCREENSHOTS"); dir != "" {
		for _, size := range []struct {
			name string
			w, h int64
		}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
			for _, page := range []struct{ name, hash, ready string }{
				{"lobby", "#/lobby", "[data-testid=list-replay] li"},
				{"profile", "#/profile", "[data-testid=recent-games] li"},
				{"leaderboard", "#/leaderboard/sponsio", "[data-testid=figures]"},
			} {
				runB(t, ann, 30*time.Second, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(url+page.hash),
					chromedp.WaitVisible(chromedp.CSS(page.ready)))
				png, err := chromedp.Run(ann, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "room-"+page.name+"-"+size.name+".png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// waitListed waits until the lobby shows sel, asking for the lists again ("refresh") until it does
// (a finished table is listed once its owner has recorded the end).
func waitListed(t *testing.T, tab context.Context, sel string) {
	t.Helper()
	runB(t, tab, 60*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(
		`(document.querySelector(%q) ? true : (document.querySelector("[data-testid=refresh]")?.click(), false))`, sel),
		chromedp.WithPollingInterval(500*time.Millisecond)))
}

// account registers (or signs in with) a user name and password in the room's account form; the
// page starts again as that player.
func account(t *testing.T, tab context.Context, user, password string, register bool) {
	t.Helper()
	button := `[data-testid=account-sign-in]`
	if register {
		button = `[data-testid=account-register]`
	}
	runB(t, tab, 30*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`form.account input[name=user]`)),
		chromedp.SendKeys(chromedp.CSS(`form.account input[name=user]`), user),
		chromedp.SendKeys(chromedp.CSS(`form.account input[name=password]`), password),
		chromedp.Click(chromedp.CSS(button)),
	)
	// The page reloads: asked again (an answer lost to the reload is no answer) until it shows
	// the account's name.
	is := fmt.Sprintf(`document.querySelector("[data-testid=me]")?.textContent === %q`, user)
	for deadline := time.Now().Add(30 * time.Second); ; {
		ctx, cancel := context.WithTimeout(tab, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](is))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page is not %s's 30s after the account form: %v", user, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
