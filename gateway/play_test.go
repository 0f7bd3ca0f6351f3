package gateway_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"cardroom.dev/gateway/play"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai"
	"google.golang.org/grpc"
)

// terminal is the person at the terminal client: it keeps what the client prints and tells each
// line that asks for a move ("your move:" with its list, or "type 1 to N" after a wrong number).
type terminal struct {
	mu    sync.Mutex
	b     bytes.Buffer
	asked chan string
}

func (s *terminal) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.b.Write(p)
	s.mu.Unlock()
	if l := string(p); strings.HasPrefix(l, "your move:") || strings.HasPrefix(l, "type 1 to ") {
		s.asked <- l
	}
	return len(p), nil
}

func (s *terminal) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// calls counts the unary calls a gateway serves, by method.
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *calls) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	c.mu.Lock()
	c.n[info.FullMethod]++
	c.mu.Unlock()
	return h(ctx, req)
}

func (c *calls) of(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n["/cardroom.gateway.v1.GatewayService/"+method]
}

// TestPlay has a person play the terminal client to the end of a game against bots: at a private
// table of the test game (3 seats, 2 bots), and at a matchmade table of sabai-sabai (real time: the
// bot acts out of turn, so lists go stale, and the person's own seat acts twice in a row) served by
// two rules replicas on Redis. The person types only when the client lists moves (a number in range,
// or one out of range, then one in range when asked), and asks for the view once. The client must
// play from the lists its Watch stream brings: the gateway serves it no ListLegalActions call.
func TestPlay(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     envOptions
		game  string
		args  []string
		setup string // typed before play (at the client's own private table)
	}{
		{"private table", envOptions{}, game, []string{"--create", "--seats", "3"}, "bots 2\nstart\n"},
		{"matchmade real time", envOptions{games: []engine.Engine{sabaisabai.Engine()}, redis: true, rules: 2},
			"sabaisabai", []string{"--seats", "2", "--wait", "200ms"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counted := &calls{n: map[string]int{}}
			tc.o.gatewayUnary = counted.intercept
			e := newEnv(t, tc.o)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			out := &terminal{asked: make(chan string, 1024)}
			pr, pw := io.Pipe()
			typed := make(chan struct{})
			go func() {
				defer close(typed)
				rnd := rand.New(rand.NewPCG(1, 2))
				answer := func(s string) bool {
					_, err := io.WriteString(pw, s)
					return err == nil
				}
				if !answer(tc.setup) {
					return
				}
				for first := true; ; first = false {
					var l string
					select {
					case l = <-out.asked:
					case <-ctx.Done():
						return
					}
					var n int
					switch {
					case first:
						// The view, then a number the list may not have.
						if !answer("v\n9\n") {
							return
						}
						continue
					case strings.HasPrefix(l, "type 1 to "):
						if _, err := fmt.Sscanf(l, "type 1 to %d", &n); err != nil || n < 1 {
							t.Errorf("asked %q", l)
							return
						}
						n = 1 + rnd.IntN(n)
					default:
						n = 1 + rnd.IntN(3)
					}
					if !answer(fmt.Sprintf("%d\n", n)) {
						return
					}
				}
			}()
			args := append([]string{tc.game, "--addr", e.gwAddrs[0], "--name", "Ann"}, tc.args...)
			code := play.Play(ctx, args, pr, out)
			_ = pr.Close()
			cancel()
			<-typed
			text := out.String()
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, text)
			}
			for _, want := range []string{"your move:", "1) ", "game over"} {
				if !strings.Contains(text, want) {
					t.Fatalf("output lacks %q:\n%s", want, text)
				}
			}
			if views := strings.Count(text, "── view"); views < 2 {
				t.Fatalf("%d views shown, want the first and the one asked for:\n%s", views, text)
			}
			if n := counted.of("Act"); n == 0 {
				t.Fatalf("the client played no move:\n%s", text)
			}
			if n := counted.of("ListLegalActions"); n != 0 {
				t.Fatalf("the client called ListLegalActions %d times: it should play from the streamed lists", n)
			}
			t.Logf("%d moves listed, %d played (%d refused), %d lines of output", strings.Count(text, "your move:"),
				counted.of("Act"), strings.Count(text, "refused:"), strings.Count(text, "\n"))
		})
	}
	var out bytes.Buffer
	if code := play.Play(t.Context(), nil, strings.NewReader(""), &out); code != 2 {
		t.Fatalf("no game: exit %d", code)
	}
}
