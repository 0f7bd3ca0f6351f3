package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/anypb"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
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
