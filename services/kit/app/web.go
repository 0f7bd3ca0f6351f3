package app

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/soheilhy/cmux"
)

// webServer splits one listener between the gRPC server's own transport (native gRPC) and an
// HTTP server (HTTP/1.1 and h2c, HTTP/2 over cleartext with prior knowledge) for everything else.
// An h2c connection meets the gRPC matcher first, which sends it a SETTINGS frame: the HTTP
// server then sees a second acknowledgement and ends the connection, so on the shared port h2c
// is for gRPC's content types (browsers speak HTTP/1.1, or HTTP/2 over TLS in front).
type webServer struct {
	mux   cmux.CMux
	grpcL net.Listener
	httpL net.Listener
	http  *http.Server
}

// matchTimeout bounds how long a new connection may take to show its first request, and a
// request its headers.
var matchTimeout = 10 * time.Second

// The HTTP side's other bounds (HTTP/1.1 and h2c alike; native gRPC has its own keepalive and
// connection age). Variables for the tests only.
var (
	// bodyTimeout bounds reading a request's body (http.Server.ReadTimeout); once a body is read
	// to its end, the connection's read deadline is lifted (deadlines), so that a stream's
	// connection is not cut while the server writes to it.
	bodyTimeout = 30 * time.Second
	// writeStall bounds one write of a response: a client that stops reading is disconnected
	// once its connection's buffers are full and a write has waited this long.
	writeStall = 30 * time.Second
	// responseLimit bounds a whole response, streams included (the gateway ends its Watch
	// streams earlier, at their maximum age, for clients to resume).
	responseLimit = time.Hour
	// idleTimeout closes a keep-alive connection with no request for this long.
	idleTimeout = 2 * time.Minute
)

func newWebServer(lis net.Listener, h http.Handler) *webServer {
	m := cmux.New(lis)
	m.SetReadTimeout(matchTimeout)
	w := &webServer{mux: m}
	// The grpc-go server answers HTTP/2's SETTINGS only after reading the client's headers, and
	// grpc-go clients wait for it before sending them: the matcher sends the settings itself.
	w.grpcL = m.MatchWithWriters(
		cmux.HTTP2MatchHeaderFieldSendSettings("content-type", "application/grpc"),
		cmux.HTTP2MatchHeaderFieldSendSettings("content-type", "application/grpc+proto"),
	)
	w.httpL = m.Match(cmux.Any())
	// net/http serves h2c itself (Server.Protocols); the server's bounds apply to both protocols.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	w.http = &http.Server{
		Handler:           deadlines(h),
		Protocols:         &protocols,
		ReadHeaderTimeout: matchTimeout,
		ReadTimeout:       bodyTimeout,
		WriteTimeout:      writeStall,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
	return w
}

func (w *webServer) serve() error {
	go func() { _ = w.http.Serve(w.httpL) }()
	err := w.mux.Serve()
	if err == nil || errors.Is(err, net.ErrClosed) || errors.Is(err, cmux.ErrListenerClosed) || errors.Is(err, cmux.ErrServerClosed) {
		return nil
	}
	return err
}

// stop ends the HTTP side gracefully (streams are cut at ctx's end); the gRPC side is stopped with
// its server.
func (w *webServer) stop(ctx context.Context) {
	if err := w.http.Shutdown(ctx); err != nil {
		_ = w.http.Close()
	}
}

// deadlines sets each request's deadlines beyond the server's whole-request ones, which would cut
// every long stream: the read deadline is lifted once the body is read (an HTTP/1.1 server reads
// on in the background to see the client leave, and a deadline there would end the stream); each
// write must finish within writeStall, and the response within responseLimit.
func deadlines(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		dw := &deadlineWriter{ResponseWriter: w, rc: rc, end: time.Now().Add(responseLimit)}
		_ = rc.SetWriteDeadline(dw.end)
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &liftAtEOF{ReadCloser: r.Body, rc: rc}
		} else {
			_ = rc.SetReadDeadline(time.Time{})
		}
		h.ServeHTTP(dw, r)
	})
}

// liftAtEOF lifts the read deadline once the body has been read to its end.
type liftAtEOF struct {
	io.ReadCloser
	rc     *http.ResponseController
	lifted bool
}

func (b *liftAtEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.lifted {
		b.lifted = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// deadlineWriter gives each write and flush writeStall to finish, then puts the response's
// deadline back (an idle stream between writes is not a stalled one).
type deadlineWriter struct {
	http.ResponseWriter
	rc  *http.ResponseController
	end time.Time
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(w.stallDeadline())
	n, err := w.ResponseWriter.Write(p)
	_ = w.rc.SetWriteDeadline(w.end)
	return n, err
}

func (w *deadlineWriter) Flush() {
	_ = w.rc.SetWriteDeadline(w.stallDeadline())
	_ = w.rc.Flush()
	_ = w.rc.SetWriteDeadline(w.end)
}

func (w *deadlineWriter) stallDeadline() time.Time {
	if d := time.Now().Add(writeStall); d.Before(w.end) {
		return d
	}
	return w.end
}

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
