package bus

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/services/kit/natsembed"
)

// stallProxy forwards a loopback port to target until stalled; then it keeps the connections
// open and forwards nothing, as a link that carries nothing and is not yet known dead.
type stallProxy struct {
	addr    string
	stalled atomic.Bool
}

func newStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{addr: lis.Addr().String()}
	var conns []net.Conn
	done := make(chan struct{})
	t.Cleanup(func() {
		lis.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		defer close(done)
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			conns = append(conns, c, u)
			go p.pipe(u, c)
			go p.pipe(c, u)
		}
	}()
	return p
}

// pipe copies src to dst while the proxy is not stalled, and drops what it reads once it is.
func (p *stallProxy) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		if !p.stalled.Load() {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
	}
}

// TestWatchStalledServer: a Watch the server does not confirm while the connection still seems up
// fails with ErrUnavailable (the gateway answers UNAVAILABLE, which clients retry), not an error
// of its own.
func TestWatchStalledServer(t *testing.T) {
	old := watchTimeout
	watchTimeout = 300 * time.Millisecond
	t.Cleanup(func() { watchTimeout = old })
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	p := newStallProxy(t, strings.TrimPrefix(ns.URL(), "nats://"))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	b, err := Connect(ctx, "nats://"+p.addr, "stall", Options{Prefix: "stall", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	feed := b.NewFeed(8)
	w, err := feed.Watch("t-1")
	if err != nil {
		t.Fatalf("watch before the stall: %v", err)
	}
	w.Stop()
	p.stalled.Store(true)
	if _, err := feed.Watch("t-2"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("watch through a stalled link: %v, want ErrUnavailable", err)
	}
}
