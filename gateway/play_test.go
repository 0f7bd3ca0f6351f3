package gateway_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"cardroom.dev/gateway/play"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPlay drives the terminal client through a private table with a bot, to the end.
func TestPlay(t *testing.T) {
	e := newEnv(t, envOptions{})
	in := "bots 1\nstart\n" + strings.Repeat("1\n", 200)
	var out syncBuffer
	code := play.Play(t.Context(), []string{game, "--addr", e.gwAddrs[0], "--name", "Ann", "--create", "--seats", "2"},
		strings.NewReader(in), &out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	for _, want := range []string{"invite code", "your move:", "1) StringValue", "game over"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	if code := play.Play(t.Context(), nil, strings.NewReader(""), &out); code != 2 {
		t.Fatalf("no game: exit %d", code)
	}
}
