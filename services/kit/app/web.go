package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/soheilhy/cmux"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
)

// webServer splits one listener between the gRPC server's own transport (native gRPC) and an
// HTTP server (HTTP/1.1 and h2c) for everything else.
type webServer struct {
	mux   cmux.CMux
	grpcL net.Listener
	httpL net.Listener
	http  *http.Server
}

// matchTimeout bounds how long a new connection may take to show its first request.
const matchTimeout = 10 * time.Second

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
	w.http = &http.Server{
		Handler:           h2c.NewHandler(h, &http2.Server{}),
		ReadHeaderTimeout: matchTimeout,
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
