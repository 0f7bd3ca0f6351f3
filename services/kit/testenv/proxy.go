package testenv

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy passes loopback TCP connections to a target, for tests of lost and stalled links: Cut
// closes the connections open (a lost connection; new ones are still accepted), Stall makes it
// forward nothing while keeping them open (a link that carries nothing and is not yet known dead).
type Proxy struct {
	ln      net.Listener
	mu      sync.Mutex
	conns   []net.Conn
	stalled atomic.Bool
}

// NewProxy listens on a free loopback port until t ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			wg.Go(func() { p.pipe(u, c) })
			wg.Go(func() { p.pipe(c, u) })
		}
	})
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every connection open.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Stall makes the proxy drop what it reads (on) or forward it again (off).
func (p *Proxy) Stall(on bool) { p.stalled.Store(on) }

// pipe copies src to dst, dropping what it reads while stalled, and closes both at the end.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		if p.stalled.Load() {
			continue
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}
