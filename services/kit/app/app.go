// Package app is the lifecycle every cardroom process shares: configuration, telemetry, a gRPC
// server with health, reflection and tracing, background loops, and an orderly stop (health to
// NOT_SERVING, graceful stop with a deadline, background work ended, dependencies closed in reverse
// order of opening).
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/redisconn"
	"cardroom.dev/services/kit/telemetry"
	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
)

// App is one process.
type App struct {
	Name   string
	Config config.Config
	Log    *slog.Logger
	tel    *telemetry.Telemetry

	mu  sync.Mutex
	rdb redis.UniversalClient
	// rdbWait is what the Redis URL asks writes to wait for (wait_replicas, wait_timeout).
	rdbWait redisconn.Wait
	closers []func(context.Context) error
	loops   []func(context.Context) error
	servers []*server
	deps    []dependency
}

type server struct {
	addr   string
	lis    net.Listener
	grpc   *grpc.Server
	health *health.Server
	// web, when set, answers the port's HTTP requests that are not native gRPC (HandleHTTP).
	web http.Handler
}

// gcPercent is the garbage collector's target when GOGC is not set. The services keep small live
// heaps (tens of MB) and allocate fast, so Go's default (100) collects hundreds of times a second
// under load and spends a fifth of the CPU on it; four times the headroom costs a few tens of MB.
// The headroom is bounded by the soft memory limit New derives from the container's
// (setMemoryLimit): near it the collector runs as often as it must, so GOGC=400 cannot grow a
// heap past the pod's limit the way it did without one. GOGC and GOMEMLIMIT, when set, win.
const gcPercent = 400

// New sets up telemetry and logging for a process named name.
func New(ctx context.Context, name string, cfg config.Config) (*App, error) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	tel, err := telemetry.Setup(ctx, telemetry.Options{
		Service: name, OTLPEndpoint: cfg.OTLPEndpoint, TraceSample: cfg.TraceSample, LogLevel: cfg.LogLevel, LogFormat: cfg.LogFormat, LogOut: os.Stderr,
	})
	if err != nil {
		return nil, err
	}
	a := &App{Name: name, Config: cfg, Log: tel.Logger, tel: tel}
	slog.SetDefault(tel.Logger)
	setMemoryLimit(a.Log, memlimit.FromCgroup)
	a.OnClose(tel.Shutdown)
	return a, nil
}

// OnClose registers fn to run at stop; closers run in reverse order of registration.
func (a *App) OnClose(fn func(context.Context) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closers = append(a.closers, fn)
}

// Go registers a background loop that runs until the app stops.
func (a *App) Go(fn func(context.Context) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.loops = append(a.loops, fn)
}

// NewGRPCServer returns a gRPC server with tracing, metrics, panic recovery, health and
// reflection, listening on addr once Run starts; opts add to its options. Register services on it
// before Run.
func (a *App) NewGRPCServer(addr string, opts ...grpc.ServerOption) (*grpc.Server, *health.Server, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	gs := grpc.NewServer(append([]grpc.ServerOption{
		grpc.StatsHandler(newServerStats(otel.GetMeterProvider())),
		grpc.ChainUnaryInterceptor(a.recoverUnary),
		grpc.ChainStreamInterceptor(a.recoverStream),
		grpc.MaxRecvMsgSize(1 << 20),
		grpc.ForceServerCodecV2(Codec),
	}, opts...)...)
	hs := health.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
	reflection.Register(gs)
	a.mu.Lock()
	a.servers = append(a.servers, &server{addr: lis.Addr().String(), lis: lis, grpc: gs, health: hs})
	a.mu.Unlock()
	return gs, hs, nil
}

// HandleHTTP makes gs's port also answer HTTP/1.1 and h2c requests with h (browsers: gRPC-Web,
// Connect, static files). Native gRPC (HTTP/2 with content-type application/grpc or
// application/grpc+proto) still goes straight to gs's own transport, told apart once per
// connection by its first request; everything else goes to h. Call it before Run.
func (a *App) HandleHTTP(gs *grpc.Server, h http.Handler) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.servers {
		if s.grpc == gs {
			s.web = h
			return nil
		}
	}
	return errors.New("app: HandleHTTP with a gRPC server this app did not make")
}

// Addr is the address the i-th gRPC server listens on (useful with port 0).
func (a *App) Addr(i int) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.servers[i].addr
}

func (a *App) recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			a.Log.ErrorContext(ctx, "panic in handler", slog.String("method", info.FullMethod), slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			err = status.Error(codes.Internal, "internal error")
		}
	}()
	return h(ctx, req)
}

func (a *App) recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			a.Log.ErrorContext(ss.Context(), "panic in stream handler", slog.String("method", info.FullMethod), slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			err = status.Error(codes.Internal, "internal error")
		}
	}()
	return h(srv, ss)
}

func serviceNames(gs *grpc.Server) map[string]struct{} {
	out := map[string]struct{}{}
	for n := range gs.GetServiceInfo() {
		out[n] = struct{}{}
	}
	return out
}

// SignalContext is ctx ended by SIGINT or SIGTERM.
func SignalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// Run serves until ctx ends or a server fails, then stops in order and returns the first error.
func (a *App) Run(ctx context.Context) error {
	// The metrics port first: when it is taken, nothing has started and everything opened so far
	// is closed again.
	var metricsLis net.Listener
	if a.Config.MetricsListen != "" {
		lis, err := net.Listen("tcp", a.Config.MetricsListen)
		if err != nil {
			for _, s := range a.servers {
				_ = s.lis.Close()
			}
			for _, cerr := range a.Close(context.WithoutCancel(ctx)) {
				a.Log.Warn("closing failed", slog.Any("error", cerr))
			}
			return fmt.Errorf("listen metrics %s: %w (choose another address with --metrics-listen or CARDROOM_METRICS_LISTEN; empty turns metrics off)", a.Config.MetricsListen, err)
		}
		metricsLis = lis
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, len(a.servers)+len(a.loops)+1)
	var loops sync.WaitGroup
	for _, fn := range a.loops {
		loops.Add(1)
		go func() {
			defer loops.Done()
			if err := fn(ctx); err != nil && !errors.Is(err, context.Canceled) {
				errc <- err
			}
		}()
	}
	var metrics *http.Server
	if metricsLis != nil {
		lis := metricsLis
		mux := http.NewServeMux()
		mux.Handle("/metrics", a.tel.Metrics)
		// Profiles for operators, on the same internal port as the metrics (never the public one),
		// and only to callers on loopback (kubectl port-forward, a shell in the pod): the metrics
		// port listens on every interface in a container, for Prometheus.
		mux.Handle("/debug/pprof/", loopbackOnly(http.HandlerFunc(pprof.Index)))
		mux.Handle("/debug/pprof/profile", loopbackOnly(http.HandlerFunc(pprof.Profile)))
		mux.Handle("/debug/pprof/trace", loopbackOnly(http.HandlerFunc(pprof.Trace)))
		mux.Handle("/debug/pprof/symbol", loopbackOnly(http.HandlerFunc(pprof.Symbol)))
		mux.Handle("/debug/pprof/cmdline", loopbackOnly(http.HandlerFunc(pprof.Cmdline)))
		metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() {
			if err := metrics.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("metrics server: %w", err)
			}
		}()
		a.Log.Info("metrics listening", slog.String("addr", lis.Addr().String()))
	}
	var webs []*webServer
	for _, s := range a.servers {
		s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
		lis := s.lis
		if s.web != nil {
			w := newWebServer(s.lis, s.web)
			webs = append(webs, w)
			lis = w.grpcL
			go func() {
				if err := w.serve(); err != nil {
					errc <- fmt.Errorf("http server %s: %w", s.addr, err)
				}
			}()
		}
		go func() {
			if err := s.grpc.Serve(lis); err != nil {
				errc <- fmt.Errorf("grpc server %s: %w", s.addr, err)
			}
		}()
	}
	// Readiness follows the dependencies (Depend); liveness (service "") stays SERVING.
	hss := make([]*health.Server, len(a.servers))
	names := make([][]string, len(a.servers))
	for i, s := range a.servers {
		hss[i] = s.health
		names[i] = readinessServices(serviceNames(s.grpc))
	}
	loops.Add(1)
	go func() {
		defer loops.Done()
		a.watchDeps(ctx, hss, names)
	}()
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	a.Log.Info("stopping")
	stopCtx, stopCancel := context.WithTimeout(context.WithoutCancel(ctx), a.Config.ShutdownTimeout)
	defer stopCancel()
	for _, s := range a.servers {
		s.health.Shutdown()
	}
	var wg sync.WaitGroup
	for _, w := range webs {
		wg.Go(func() { w.stop(stopCtx) })
	}
	for _, s := range a.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := make(chan struct{})
			go func() { s.grpc.GracefulStop(); close(done) }()
			select {
			case <-done:
			case <-stopCtx.Done():
				s.grpc.Stop()
			}
		}()
	}
	wg.Wait()
	if metrics != nil {
		_ = metrics.Shutdown(stopCtx)
	}
	cancel()
	loops.Wait()
	for _, err := range a.Close(stopCtx) {
		a.Log.Warn("closing failed", slog.Any("error", err))
	}
	a.Log.Info("stopped")
	return runErr
}

// loopbackOnly answers 403 to a request that does not come from a loopback address.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ap, err := netip.ParseAddrPort(r.RemoteAddr); err != nil || !ap.Addr().Unmap().IsLoopback() {
			http.Error(w, "profiles are served to loopback only (kubectl port-forward)", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Close runs the closers in reverse order of registration, once, and returns their errors. Run
// calls it; a one-shot command that never runs calls it itself.
func (a *App) Close(ctx context.Context) []error {
	a.mu.Lock()
	closers := a.closers
	a.closers = nil
	a.mu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		if err := closers[i](ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
