package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// browserTable signs a new browser player in, queues it for game with bots and returns its tab at
// the table, the table's id and a context carrying the player's token.
func browserTable(t *testing.T, newTab func() context.Context, url, game string) (context.Context, string, context.Context) {
	t.Helper()
	tab := newTab()
	signIn(t, tab, url, "Ada")
	runB(t, tab, 2*time.Minute,
		chromedp.Click(chromedp.CSS(`[data-testid=queue-`+game+`]`)),
		chromedp.WaitVisible(chromedp.CSS(`.seats li .you`)),
	)
	table := tableOf(t, tab)
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+sessionOf(t, tab).Token)
	return tab, table, ctx
}

func gatewayClient(t *testing.T, front string) gatewayv1.GatewayServiceClient {
	t.Helper()
	cc, err := grpc.NewClient(front, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return gatewayv1.NewGatewayServiceClient(cc)
}

// checkResult checks the page's result screen against GetReplay and its events against the
// player's own Watch.
func checkResult(t *testing.T, tab context.Context, ctx context.Context, gw gatewayv1.GatewayServiceClient, table string) {
	t.Helper()
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
	if page, stream := seqs(t, tab), watchAll(t, ctx, gw, table); !slices.Equal(page, stream) {
		t.Fatalf("the page shows events %v, the player's Watch %v", page, stream)
	}
}

// acts is how many of the page's Act calls returned OK.
func acts(t *testing.T, tab context.Context) int {
	return evalJS[int](t, tab, `Object.keys(window.__cardroomActs || {}).length`)
}

// TestBrowserInteractions plays whole games in the browser the ways a person would besides the
// move list: Sapotagem with the keyboard alone; and a Sponsio page whose network drops mid-game
// resumes its Watch stream with no gap. Each game ends on the result GetReplay reports. Saboteur
// and sabai-sabai are played by pointing in browser_tables_test.go.
func TestBrowserInteractions(t *testing.T) {
	newTab := newBrowser(t)
	front := serveForBrowsers(t)
	gw := gatewayClient(t, front)
	url := "http://" + front + "/"

	t.Run("sapotagem-keyboard", func(t *testing.T) {
		tab, table, ctx := browserTable(t, newTab, url, "sapotagem")
		digit, tabbed := 0, 0
		for i := 0; ; i++ {
			runB(t, tab, 2*time.Minute, chromedp.WaitReady(chromedp.CSS(`[data-testid=act], [data-testid=result]`)))
			if evalJS[bool](t, tab, `!!document.querySelector("[data-testid=result]")`) {
				break
			}
			n := evalJS[int](t, tab, `document.querySelectorAll("[data-testid=act]").length`)
			before := acts(t, tab)
			if i%2 == 0 || n == 1 {
				// A digit plays the listed move of its number.
				runB(t, tab, 10*time.Second, chromedp.KeyEvent("1"))
				digit++
			} else {
				// Tab walks the page's controls; the last move of the list (beyond the digits when
				// there are more than nine) is reached and played with Enter.
				evalJS[bool](t, tab, `document.activeElement && document.activeElement.blur(), true`)
				reached := false
				for range 300 {
					runB(t, tab, 10*time.Second, chromedp.KeyEvent("\t"))
					// The move list is collapsed: its summary opens it with Enter (and stays open).
					if evalJS[bool](t, tab, `document.activeElement?.tagName === "SUMMARY" && !document.activeElement.parentElement.open`) {
						runB(t, tab, 10*time.Second, chromedp.KeyEvent("\r"))
						continue
					}
					if evalJS[bool](t, tab, `(() => { const a = [...document.querySelectorAll("[data-testid=act]")]; return a.length > 0 && document.activeElement === a[a.length - 1] })()`) {
						reached = true
						break
					}
					if !evalJS[bool](t, tab, `!!document.querySelector("[data-testid=act]")`) {
						break // the moves went (a timer)
					}
				}
				if !reached {
					continue
				}
				runB(t, tab, 10*time.Second, chromedp.KeyEvent("\r"))
				tabbed++
			}
			runB(t, tab, 30*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`Object.keys(window.__cardroomActs || {}).length > %d || !!document.querySelector("[role=alert]") || !!document.querySelector("[data-testid=result]")`, before)))
		}
		t.Logf("played with the keyboard only: %d moves by digit, %d by Tab and Enter", digit, tabbed)
		if tabbed == 0 {
			t.Fatal("no move was played with Tab and Enter")
		}
		checkResult(t, tab, ctx, gw, table)
	})

	t.Run("sponsio-dropped-connection", func(t *testing.T) {
		px := newCutProxy(t, front)
		purl := "http://" + px.addr + "/"
		tab, table, ctx := browserTable(t, newTab, purl, "sponsio")
		offline := networkSwitch(t, tab)
		drops := 0
		for {
			if playMoves(t, tab, 1) {
				break
			}
			if drops >= 2 {
				continue
			}
			// The network drops mid-game: the page's stream breaks and its reconnections fail. The
			// table moves on without it: the player moves from another device (this test, through
			// gRPC) when it is its turn, and the bots play.
			offline(true)
			px.cut()
			runB(t, tab, 60*time.Second, chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=conn]").textContent.startsWith("reconnecting")`))
			from := 0
			if s := seqs(t, tab); len(s) > 0 {
				from = s[len(s)-1]
			}
			if l, err := gw.ListLegalActions(ctx, &gatewayv1.ListLegalActionsRequest{TableId: table}); err != nil {
				t.Fatal(err)
			} else if len(l.GetActions()) > 0 {
				if _, err := gw.Act(ctx, &gatewayv1.ActRequest{TableId: table, Action: l.GetActions()[0], ActionId: fmt.Sprintf("drop-%d", drops)}); err != nil {
					t.Logf("the move from the other device was refused (the table moved on): %v", err)
				}
			}
			waitEvent(t, ctx, gw, table, from)
			if s := seqs(t, tab); len(s) > 0 && s[len(s)-1] > from {
				t.Fatalf("the offline page showed event %d", s[len(s)-1])
			}
			offline(false)
			px.restore()
			runB(t, tab, 60*time.Second, chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("[data-testid=conn]").textContent === "connected" && (window.__cardroomSeqs || []).at(-1) > %d`, from)))
			drops++
		}
		if drops == 0 {
			t.Fatal("the game ended before the network could be dropped")
		}
		s := seqs(t, tab)
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				t.Fatalf("after %d dropped connections the page shows events %v: out of order or twice", drops, s)
			}
		}
		t.Logf("%d dropped connections, %d reconnection attempts failed, %d events shown once each", drops, evalJS[int](t, tab, `window.__cardroomReconnects || 0`), len(s))
		// No gap: the page holds every event the seat's own Watch delivers (other seats' private
		// events have sequences of their own that this seat never receives).
		checkResult(t, tab, ctx, gw, table)
	})
}

// waitEvent returns once the table has an event after sequence from.
func waitEvent(t *testing.T, ctx context.Context, gw gatewayv1.GatewayServiceClient, table string, from int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	s, err := gw.Watch(ctx, &gatewayv1.WatchRequest{TableId: table, AfterSequence: uint64(from)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err != nil {
		t.Fatalf("no event after %d while the page was offline: %v", from, err)
	}
}

// cutProxy forwards TCP connections to a server; cut closes every connection and refuses new
// ones until restore: a dropped network as the browser sees it.
type cutProxy struct {
	addr string
	mu   sync.Mutex
	down bool
	open map[net.Conn]struct{}
}

func newCutProxy(t *testing.T, to string) *cutProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{addr: l.Addr().String(), open: map[net.Conn]struct{}{}}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		p.cut()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if !p.add(c) {
				c.Close()
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer p.remove(c)
				s, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				if !p.add(s) {
					s.Close()
					return
				}
				defer p.remove(s)
				done := make(chan struct{})
				go func() { io.Copy(s, c); s.Close(); close(done) }()
				io.Copy(c, s)
				c.Close()
				<-done
			}()
		}
	}()
	return p
}

func (p *cutProxy) add(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	p.open[c] = struct{}{}
	return true
}

func (p *cutProxy) remove(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.Close()
	delete(p.open, c)
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.open {
		c.Close()
	}
}

func (p *cutProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// networkSwitch turns the tab's network off and on again as DevTools' offline mode does (the
// page's fetches fail and navigator.onLine follows).
func networkSwitch(t *testing.T, tab context.Context) func(off bool) {
	t.Helper()
	cdp := func(f func(ctx context.Context) error) {
		t.Helper()
		tctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		if err := f(tctx); err != nil {
			t.Fatal(err)
		}
	}
	cdp(func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
		return err
	})
	return func(off bool) {
		t.Helper()
		cdp(func(ctx context.Context) error {
			if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
				MatchedNetworkConditions: []*network.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}},
			}); err != nil {
				return err
			}
			_, err := chromedp.Call(ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: off, DownloadThroughput: -1, UploadThroughput: -1})
			return err
		})
	}
}
