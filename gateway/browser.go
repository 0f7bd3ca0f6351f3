package gateway

import (
	"fmt"
	"net/http"
	"strings"

	"cardroom.dev/services/kit/app"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"github.com/rs/cors"
	"google.golang.org/grpc"
)

// BrowserHandler answers, over HTTP/1.1 and h2c, the services registered on gs in the gRPC-Web
// and Connect protocols (binary and JSON, server streams included), transcoded to gs's handlers by
// vanguard: the same "authorization" header, the same codes and the same RuleViolation details.
// Register every service on gs first. Requests for other paths go to static (nil: 404).
//
// corsOrigins lists the other origins whose pages may call the API ("*": any); empty allows only
// pages of the gateway's own origin (browsers refuse a cross-origin answer without CORS headers).
// maxRequestBytes is the gateway's request limit (Options.MaxRequestBytes; 0: its default), from
// which every body's reading and decompression is bounded (bodies.go).
func BrowserHandler(gs *grpc.Server, corsOrigins string, static http.Handler, maxRequestBytes int) (http.Handler, error) {
	if static == nil {
		static = http.NotFoundHandler()
	}
	o := Options{MaxRequestBytes: maxRequestBytes}
	o.defaults()
	topts, bufferLimit := browserBodyOptions(o.MaxRequestBytes)
	// Bodies reach gRPC decompressed (by boundedGzip), never compressed: gRPC would inflate them
	// up to its own, larger limit.
	topts = append(topts, vanguard.WithUnknownHandler(static), vanguard.WithDefaultServiceOptions(bufferLimit, vanguard.WithNoTargetCompression()))
	tc, err := vanguardgrpc.NewTranscoder(gs, topts...)
	if err != nil {
		return nil, fmt.Errorf("gateway: browser protocols: %w", err)
	}
	allowed, any := parseOrigins(corsOrigins)
	c := cors.New(cors.Options{
		AllowOriginFunc: func(origin string) bool { return any || allowed[origin] },
		AllowedMethods:  []string{http.MethodGet, http.MethodPost},
		AllowedHeaders: []string{
			"Authorization", "Content-Type", "Connect-Protocol-Version", "Connect-Timeout-Ms",
			"Connect-Accept-Encoding", "Connect-Content-Encoding", "Grpc-Timeout", "Grpc-Accept-Encoding",
			"X-Grpc-Web", "X-User-Agent",
		},
		ExposedHeaders: []string{"Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin", "Content-Encoding", "Connect-Content-Encoding"},
		MaxAge:         7200,
	})
	return c.Handler(emptyStreams(tc)), nil
}

func parseOrigins(list string) (map[string]bool, bool) {
	m := map[string]bool{}
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "*" {
			return nil, true
		}
		if o != "" {
			m[o] = true
		}
	}
	return m, false
}

// ServeBrowsers makes gs's port also answer browsers (BrowserHandler with the configuration's CORS
// origins), with static for every other path.
func ServeBrowsers(a *app.App, gs *grpc.Server, static http.Handler) error {
	h, err := BrowserHandler(gs, a.Config.CORSOrigins, static, a.Config.MaxRequestBytes)
	if err != nil {
		return err
	}
	return a.HandleHTTP(gs, h)
}
