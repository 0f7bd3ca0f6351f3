package gateway

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

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
// From o (as given to New) come the request limit, from which every body's reading and
// decompression is bounded (bodies.go), and the streams' maximum age: a Watch stream over HTTP
// ends UNAVAILABLE at o.MaxConnectionAge (±10 %), for the client to resume as after a native
// connection's age (HTTP/1.1 has no GOAWAY to do it for us).
func BrowserHandler(gs *grpc.Server, corsOrigins string, static http.Handler, o Options) (http.Handler, error) {
	if static == nil {
		static = http.NotFoundHandler()
	}
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
	return c.Handler(streamAge(emptyStreams(boundedBodies(tc, int64(browserBufferBytes(o.MaxRequestBytes)), o.MaxRequestBytes)), o.MaxConnectionAge)), nil
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
	h, err := BrowserHandler(gs, a.Config.CORSOrigins, static, OptionsFrom(a.Config))
	if err != nil {
		return err
	}
	return a.HandleHTTP(gs, h)
}

// streamEndKey is the context key of the time an HTTP stream must end by (streamAge).
type streamEndKey struct{}

// errStreamAge is the cause of a stream's end at its maximum age.
var errStreamAge = errors.New("the stream reached its maximum age")

// streamAge gives each request that may be a stream (Connect or gRPC-Web) its end, age from now
// ±10 %, which Watch keeps (streamDeadline).
func streamAge(h http.Handler, age time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if strings.HasPrefix(ct, "application/connect+") || strings.HasPrefix(ct, "application/grpc-web") {
			jittered := time.Duration(float64(age) * (0.9 + 0.2*rand.Float64()))
			r = r.WithContext(context.WithValue(r.Context(), streamEndKey{}, time.Now().Add(jittered)))
		}
		h.ServeHTTP(w, r)
	})
}

// streamDeadline is ctx ended at its HTTP stream's maximum age, if it has one (errStreamAge as
// the cause).
func streamDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	end, ok := ctx.Value(streamEndKey{}).(time.Time)
	if !ok {
		return ctx, func() {}
	}
	return context.WithDeadlineCause(ctx, end, errStreamAge)
}
