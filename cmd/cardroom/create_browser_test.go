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
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	saboteurv1 "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
)

// TestBrowserCreateTable: a person opens the table-creation screen from the lobby, picks three
// seats and two Sapotagem variants; a variant the engine refuses with these is greyed out with the
// engine's own reason (the one CheckTableOptions gives); bots fill the other seats, and the game
// plays to the end with the two variants, as the table's view says. With CARDROOM_WEB_SCREENSHOTS
// set (docs/img), it saves the screen at desktop and phone sizes. axe-core finds no serious or
// critical violation on the screen.
func TestBrowserCreateTable(t *testing.T) {
	front := serveForBrowsers(t)
	url := "http://" + front + "/"
	tab := newBrowser(t)()
	signIn(t, tab, url, "Cleo")

	runB(t, tab, 30*time.Second,
		chromedp.Click(chromedp.CSS(`[data-testid=private-sapotagem]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=variant-doubleAgent]`)),
	)
	if h := evalJS[string](t, tab, `location.hash`); h != "#/create/sapotagem" {
		t.Fatalf("the lobby's button opened %q, want #/create/sapotagem", h)
	}
	// The game's seat counts come from ListGames: the form holds its usual table before it is changed.
	runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](`document.querySelectorAll("[data-testid^=seat-]").length > 0`))
	evalJS[bool](t, tab, `(() => {
		const s = document.querySelector("[data-testid=seats]");
		s.value = "3";
		s.dispatchEvent(new Event("change", { bubbles: true }));
		return true;
	})()`)
	runB(t, tab, 30*time.Second,
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("[data-testid^=seat-]").length === 2`),
		chromedp.Click(chromedp.CSS(`[data-testid=variant-doubleAgent]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=variant-openInformation]`)),
		chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=verdict]").innerText.includes("accepts")`),
		// Closed Information contradicts Open Information: greyed out, with the engine's reason.
		chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=variant-closedInformation]").disabled`),
	)

	// The reason shown is the engine's, as CheckTableOptions answers it.
	cc, err := grpc.NewClient(front, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	gw := gatewayv1.NewGatewayServiceClient(cc)
	authed := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+sessionOf(t, tab).Token)
	opts, err := anypb.New(&sapotagemv1.Options{DoubleAgent: true, OpenInformation: true, ClosedInformation: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := gw.CheckTableOptions(authed, &gatewayv1.CheckTableOptionsRequest{Game: "sapotagem", Seats: 3, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if r.GetAccepted() {
		t.Fatal("the engine accepts Open and Closed Information together; the test needs a refused pair")
	}
	shown := evalJS[string](t, tab, `document.querySelector("[data-testid=variant-closedInformation]").closest("li").querySelector("[data-testid=refusal]")?.innerText ?? ""`)
	if want := r.GetRefusal().GetMessage(); !strings.Contains(shown, want) || !strings.Contains(shown, r.GetRefusal().GetCode()) {
		t.Fatalf("the refused variant shows %q, want the engine's %q (%s)", shown, want, r.GetRefusal().GetCode())
	}
	// A choice the engine accepts is not greyed out.
	if evalJS[bool](t, tab, `document.querySelector("[data-testid=variant-innocentOrGuilty]").disabled`) {
		t.Fatal("Innocent or Guilty? is greyed out; the engine accepts it with these")
	}

	if dir := os.Getenv("CARDROOM_WEB_SCREENSHOTS"); dir != "" {
		for _, size := range []struct {
			name string
			w, h int64
		}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
			runB(t, tab, 30*time.Second, chromedp.EmulateViewport(size.w, size.h))
			evalJS[bool](t, tab, `window.scrollTo(0, 0), true`)
			png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "create-"+size.name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		runB(t, tab, 30*time.Second, chromedp.EmulateViewport(1200, 1000))
	}
	checkAxe(t, tab, "the table-creation screen")

	// Bots fill the two other seats (the default), and the table starts at once.
	runB(t, tab, time.Minute, chromedp.Click(chromedp.CSS(`[data-testid=create]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=variants]`)))
	if got := evalJS[string](t, tab, `document.querySelector("[data-testid=variants]").innerText`); got != "Double Agent, Open Information" {
		t.Fatalf("the table says its variants are %q, want Double Agent, Open Information", got)
	}
	if !playMoves(t, tab, -1) {
		t.Fatal("the game did not end")
	}
	if got := evalJS[string](t, tab, `document.querySelector("[data-testid=variants]")?.innerText ?? ""`); got != "Double Agent, Open Information" {
		t.Fatalf("at the end the table says its variants are %q", got)
	}
	table := tableOf(t, tab)
	tr, err := gw.GetTable(authed, &gatewayv1.GetTableRequest{TableId: table})
	if err != nil {
		t.Fatal(err)
	}
	var stored sapotagemv1.Options
	if err := tr.GetTable().GetOptions().UnmarshalTo(&stored); err != nil {
		t.Fatal(err)
	}
	if !stored.GetDoubleAgent() || !stored.GetOpenInformation() || stored.GetClosedInformation() || len(tr.GetTable().GetSeats()) != 3 {
		t.Fatalf("the gateway's table: %v with %d seats, want Double Agent and Open Information at 3 seats", &stored, len(tr.GetTable().GetSeats()))
	}
}

// setField sets a form control as a person would and lets the page hear it (change for selects and
// radios, input for text), by its data-testid.
func setField(t *testing.T, tab context.Context, testid, value string) {
	t.Helper()
	evalJS[bool](t, tab, fmt.Sprintf(`(() => {
		const el = document.querySelector("[data-testid=%s]");
		if (el.type === "checkbox" || el.type === "radio") { if (String(el.checked) !== %q) el.click(); return true; }
		el.value = %q;
		el.dispatchEvent(new Event(el.tagName === "SELECT" ? "change" : "input", { bubbles: true }));
		return true;
	})()`, testid, value, value))
}

// TestBrowserCreateTableOptions: the creation screen sets each game's own options and the table is
// dealt with them, as the gateway stores them and the table's screen shows them: Sponsio with a
// coupon table of the player's own (a typo said at once and the table refused until mended, a
// coupon kind the engine refuses shown with its reason), sabai-sabai's rounds, throws, windows, the
// cards seen at the deal and the bots' pace, Saboteur's classic rules with the two-card repair.
func TestBrowserCreateTableOptions(t *testing.T) {
	front := serveForBrowsers(t)
	url := "http://" + front + "/"
	tab := newBrowser(t)()
	signIn(t, tab, url, "Dora")
	cc, err := grpc.NewClient(front, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	gw := gatewayv1.NewGatewayServiceClient(cc)
	authed := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+sessionOf(t, tab).Token)
	verdict := func(t *testing.T, has string) {
		t.Helper()
		runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("[data-testid=verdict]").innerText.includes(%q)`, has)))
	}
	open := func(t *testing.T, game string) {
		t.Helper()
		runB(t, tab, 30*time.Second, chromedp.Navigate(url+"#/create/"+game),
			chromedp.Poll[chromedp.Void](`document.querySelectorAll("[data-testid^=seat-]").length > 0`))
		verdict(t, "accepts")
	}
	created := func(t *testing.T, into proto.Message) {
		t.Helper()
		runB(t, tab, time.Minute, chromedp.Click(chromedp.CSS(`[data-testid=create]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=game]`)))
		tr, err := gw.GetTable(authed, &gatewayv1.GetTableRequest{TableId: tableOf(t, tab)})
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.GetTable().GetOptions().UnmarshalTo(into); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("sponsio", func(t *testing.T) {
		open(t, "sponsio")
		setField(t, tab, "coupons-own", "true")
		runB(t, tab, 30*time.Second, chromedp.WaitVisible(chromedp.CSS(`[data-testid=coupon-options-5]`)))
		if n := evalJS[int](t, tab, `document.querySelectorAll("[data-testid=coupon-editor] tbody tr").length`); n != 16 {
			t.Fatalf("the coupon editor shows %d coupons, want 16", n)
		}
		if s := evalJS[string](t, tab, `document.querySelector("[data-testid=coupon-options-5]").value`); !strings.Contains(s, "×") {
			t.Fatalf("coupon V starts as %q, not the standard table's options", s)
		}
		checkAxe(t, tab, "the creation screen's coupon editor")
		// At a desktop's and a phone's size the editor fits the width (pictures with
		// CARDROOM_WEB_SCREENSHOTS).
		for _, size := range []struct {
			name string
			w, h int64
		}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
			runB(t, tab, 30*time.Second, chromedp.EmulateViewport(size.w, size.h))
			if w := evalJS[int](t, tab, `document.documentElement.scrollWidth`); w > int(size.w) {
				t.Fatalf("with the coupon editor the screen is %d px wide at %d px", w, size.w)
			}
			evalJS[bool](t, tab, `document.querySelector("[data-testid=coupon-editor]").scrollIntoView(), true`)
			screenshot(t, tab, os.Getenv("CARDROOM_WEB_SCREENSHOTS"), "create-sponsio-"+size.name)
		}
		runB(t, tab, 30*time.Second, chromedp.EmulateViewport(1200, 1000))
		setField(t, tab, "coupon-options-5", "0 ×2, 1-2 ×3, 3-9 times 7")
		verdict(t, "cannot be read: coupon V")
		if !evalJS[bool](t, tab, `document.querySelector("[data-testid=create]").disabled`) {
			t.Fatal("a coupon that cannot be read leaves the table to be created")
		}
		setField(t, tab, "coupon-options-5", "0 ×2, 1-2 ×3, 3-9 ×7")
		verdict(t, "accepts")
		// The counter-bet moved off coupon XVI: the engine's refusal, in its words.
		setField(t, tab, "coupon-kind-16", fmt.Sprint(int32(sponsiov1.CouponKind_COUPON_KIND_TRICKS)))
		verdict(t, "refuses this table")
		if !evalJS[bool](t, tab, `document.querySelector("[data-testid=create]").disabled`) {
			t.Fatal("a table the engine refuses can be created")
		}
		setField(t, tab, "coupon-kind-16", fmt.Sprint(int32(sponsiov1.CouponKind_COUPON_KIND_COUNTER_BET)))
		verdict(t, "accepts")
		var o sponsiov1.Options
		created(t, &o)
		var five *sponsiov1.Coupon
		for _, c := range o.GetCouponTable().GetCoupons() {
			if c.GetNumber() == 5 {
				five = c
			}
		}
		if len(o.GetCouponTable().GetCoupons()) != 16 || len(five.GetOptions()) != 3 || five.GetOptions()[2].GetOdds() != 7 || five.GetOptions()[2].GetMin() != 3 {
			t.Fatalf("the table's coupon table %v: want coupon V's last option 3-9 ×7", o.GetCouponTable())
		}
		runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("[data-coupon='5'] .opts li")].some((l) => l.textContent.includes("×7"))`))
	})

	t.Run("sabaisabai", func(t *testing.T) {
		open(t, "sabaisabai")
		for _, f := range [][2]string{{"rounds", "1"}, {"throw-for-others", "false"}, {"throw-window", "400"}, {"nose-window", "3"}, {"peek", "2"}, {"bot-pace", "quick"}} {
			setField(t, tab, f[0], f[1])
		}
		verdict(t, "accepts")
		var o sabaisabaiv1.Options
		created(t, &o)
		if o.GetRounds() != 1 || o.ThrowForOthers == nil || o.GetThrowForOthers() || o.GetThrowWindow().AsDuration() != 400*time.Millisecond ||
			o.GetNoseDeadline().AsDuration() != 3*time.Second || o.GetPeekAtStart() != 2 ||
			o.GetBotReactionMin().AsDuration() != 200*time.Millisecond || o.GetBotReactionMax().AsDuration() != 500*time.Millisecond || o.GetBotThink().AsDuration() != 150*time.Millisecond {
			t.Fatalf("the table's options %v are not those chosen", &o)
		}
		runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](`(document.querySelector("[data-testid=round]")?.textContent ?? "").includes("of 1")`))
	})

	t.Run("saboteur", func(t *testing.T) {
		open(t, "saboteur")
		setField(t, tab, "seats", "4")
		setField(t, tab, fmt.Sprintf("mode-%d", int32(saboteurv1.Mode_MODE_CLASSIC)), "true")
		verdict(t, "accepts")
		setField(t, tab, "discard-two", "true")
		verdict(t, "accepts")
		var o saboteurv1.Options
		created(t, &o)
		if o.GetMode() != saboteurv1.Mode_MODE_CLASSIC || !o.GetClassicDiscardTwoToRepair() {
			t.Fatalf("the table's options %v: want classic with the two-card repair", &o)
		}
		if n := evalJS[int](t, tab, `document.querySelectorAll(".sab-seat").length`); n != 4 {
			t.Fatalf("the table shows %d dwarves, want 4", n)
		}
	})
}
