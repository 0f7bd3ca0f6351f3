package app

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// shortTimeouts makes the HTTP side's bounds short for a test.
func shortTimeouts(t *testing.T) {
	m, b, w, i := matchTimeout, bodyTimeout, writeStall, idleTimeout
	matchTimeout, bodyTimeout, writeStall, idleTimeout = 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { matchTimeout, bodyTimeout, writeStall, idleTimeout = m, b, w, i })
}

// serveWeb serves h on a webServer (as HandleHTTP's port does) and returns its address.
func serveWeb(t *testing.T, h http.Handler) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := newWebServer(lis, h)
	go func() { _ = w.serve() }()
	go func() { // no native gRPC in these tests: drop any such connection
		for {
			c, err := w.grpcL.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = lis.Close(); _ = w.http.Close() })
	return lis.Addr().String()
}

// closedWithin reports whether the server closes c within d (a read ends with EOF or a reset).
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestHTTPTimeouts: on the HTTP side of a shared port, a connection that never finishes its
// headers, a body that stalls, and an idle keep-alive connection are each closed within a
// bound, while a stream that writes for longer than every one of those bounds is not cut.
func TestHTTPTimeouts(t *testing.T) {
	shortTimeouts(t)
	addr := serveWeb(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			for i := range 10 {
				fmt.Fprintf(w, "chunk %d\n", i)
				_ = http.NewResponseController(w).Flush()
				time.Sleep(100 * time.Millisecond) // the stream's pace: longer in all than every timeout
			}
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}))
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}

	slowHeaders := dial()
	_, _ = io.WriteString(slowHeaders, "POST / HTTP/1.1\r\nHost: x\r\n")
	if !closedWithin(slowHeaders, 5*time.Second) {
		t.Error("a request whose headers never end was not closed")
	}

	slowBody := dial()
	_, _ = io.WriteString(slowBody, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
	if !closedWithin(slowBody, 5*time.Second) {
		t.Error("a request whose body stalls was not closed")
	}

	idle := dial()
	_, _ = io.WriteString(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if !closedWithin(idle, 5*time.Second) {
		t.Error("an idle keep-alive connection was not closed")
	}

	resp, err = http.Post("http://"+addr+"/stream", "text/plain", strings.NewReader("a body, read to its end"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || strings.Count(string(got), "chunk") != 10 {
		t.Fatalf("a 1 s stream under 300 ms timeouts: %q %v", got, err)
	}
}

// TestHTTPSlowReaderDisconnected: a client that stops reading a stream is disconnected once its
// connection's buffers are full and a write has waited writeStall: the handler's write fails.
func TestHTTPSlowReaderDisconnected(t *testing.T) {
	shortTimeouts(t)
	ended := make(chan error, 1)
	addr := serveWeb(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				ended <- err
				return
			}
			if err := http.NewResponseController(w).Flush(); err != nil {
				ended <- err
				return
			}
		}
	}))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, "GET /watch HTTP/1.1\r\nHost: x\r\n\r\n")
	// Never read.
	select {
	case err := <-ended:
		t.Logf("the stream's write failed: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("a client that never reads still holds its stream")
	}
}

// TestH2C: the HTTP side's server speaks HTTP/2 over cleartext with prior knowledge, with the same
// bounds as HTTP/1.1: a stream longer than every timeout is not cut. It is served here on a
// listener of its own: on the shared port the gRPC matcher has sent its SETTINGS frame to any
// HTTP/2 connection before the HTTP server sees it, and the client's second acknowledgement is a
// protocol error to that server, so only gRPC's content types get through h2c there.
func TestH2C(t *testing.T) {
	shortTimeouts(t)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := newWebServer(lis, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		for i := range 10 {
			fmt.Fprintf(w, "%s chunk %d\n", r.Proto, i)
			_ = http.NewResponseController(w).Flush()
			time.Sleep(100 * time.Millisecond) // the stream's pace: longer in all than every timeout
		}
	}))
	go func() { _ = w.http.Serve(lis) }()
	t.Cleanup(func() { _ = w.http.Close() })
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &h2c}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Post("http://"+lis.Addr().String()+"/stream", "text/plain", strings.NewReader("a body"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || resp.ProtoMajor != 2 || strings.Count(string(got), "HTTP/2.0 chunk") != 10 {
		t.Fatalf("%s: %q %v", resp.Proto, got, err)
	}
}
