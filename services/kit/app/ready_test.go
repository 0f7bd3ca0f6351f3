package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/testenv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// cutProxy forwards a loopback port to target until cut, which closes the port and every
// connection through it (a dependency that became unreachable); restore opens the same port again.
type cutProxy struct {
	t      *testing.T
	target string
	addr   string
	mu     sync.Mutex
	lis    net.Listener
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	p := &cutProxy{t: t, target: target, addr: "127.0.0.1:0"}
	p.restore()
	t.Cleanup(func() { p.cut(); p.wg.Wait() })
	return p
}

func (p *cutProxy) restore() {
	lis, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.lis, p.addr = lis, lis.Addr().String()
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", p.target)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			p.wg.Add(2)
			go func() { defer p.wg.Done(); _, _ = io.Copy(u, c); _ = u.Close() }()
			go func() { defer p.wg.Done(); _, _ = io.Copy(c, u); _ = c.Close() }()
		}
	}()
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lis != nil {
		_ = p.lis.Close()
		p.lis = nil
	}
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// TestReadinessFollowsDependencies: while Redis or NATS is unreachable, the services a process
// registered report NOT_SERVING (readiness) while the overall status (liveness) stays SERVING;
// once the dependency answers again, so do they.
func TestReadinessFollowsDependencies(t *testing.T) {
	testenv.Redis(t)
	natsURL := testenv.ExternalNATS(t)
	defer func(e, o time.Duration) { readyEvery, readyTimeout = e, o }(readyEvery, readyTimeout)
	readyEvery, readyTimeout = 50*time.Millisecond, 500*time.Millisecond

	redisProxy := newCutProxy(t, strings.TrimSuffix(strings.TrimPrefix(testenv.RedisURL(), "redis://"), "/0"))
	natsProxy := newCutProxy(t, strings.TrimPrefix(natsURL, "nats://"))
	x := make([]byte, 6)
	_, _ = rand.Read(x)
	env := map[string]string{
		// Few retries: a command to an unreachable Redis gives up within the check's timeout.
		"CARDROOM_REDIS_URL":   "redis://" + redisProxy.addr + "/0?max_retries=1&dial_timeout=200ms",
		"CARDROOM_NATS_URL":    "nats://" + natsProxy.addr,
		"CARDROOM_NATS_PREFIX": "test-" + hex.EncodeToString(x),
	}
	cfg, err := config.Parse("ready", []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "error"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), "ready", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Redis(t.Context()); err != nil {
		t.Fatal(err)
	}
	b, err := a.Bus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.DeleteStream(context.Background()) })
	gs, hs, err := a.NewGRPCServer(cfg.Listen)
	if err != nil {
		t.Fatal(err)
	}
	const svc = "cardroom.test.v1.Probe"
	gs.RegisterService(&grpc.ServiceDesc{ServiceName: svc, HandlerType: (*any)(nil)}, struct{}{})
	hs.SetServingStatus(svc, healthpb.HealthCheckResponse_SERVING)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	cc, err := grpc.NewClient(a.Addr(0), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	hc := healthpb.NewHealthClient(cc)
	status := func(service string) healthpb.HealthCheckResponse_ServingStatus {
		// A process that failed to start never answers: the check has its own deadline.
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		r, err := hc.Check(cctx, &healthpb.HealthCheckRequest{Service: service}, grpc.WaitForReady(true))
		if err != nil {
			t.Fatalf("health check %q: %v", service, err)
		}
		return r.GetStatus()
	}
	// await waits until the readiness service reports want, checking liveness at every step.
	await := func(what string, want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for status(svc) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: readiness still not %v", what, want)
			}
			if live := status(""); live != healthpb.HealthCheckResponse_SERVING {
				t.Fatalf("%s: liveness %v", what, live)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if live := status(""); live != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("%s: liveness %v", what, live)
		}
	}
	await("both reachable", healthpb.HealthCheckResponse_SERVING)

	redisProxy.cut()
	await("Redis cut", healthpb.HealthCheckResponse_NOT_SERVING)
	redisProxy.restore()
	await("Redis back", healthpb.HealthCheckResponse_SERVING)

	natsProxy.cut()
	await("NATS cut", healthpb.HealthCheckResponse_NOT_SERVING)
	natsProxy.restore()
	await("NATS back", healthpb.HealthCheckResponse_SERVING)
}

// TestReadinessTolerates: a tolerated dependency that fails leaves readiness SERVING (checked after
// the watcher has seen it fail, twice), while a required one that fails takes it down, and the
// checks come every readyRetry while anything fails.
func TestReadinessTolerates(t *testing.T) {
	defer func(e, r time.Duration) { readyEvery, readyRetry = e, r }(readyEvery, readyRetry)
	readyEvery, readyRetry = time.Hour, time.Millisecond // only the retries pace the test
	var mu sync.Mutex
	fail := map[string]bool{}
	seen := map[string]int{} // failed checks per dependency
	changed := make(chan struct{}, 1)
	check := func(name string) func(context.Context) error {
		return func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			if !fail[name] {
				return nil
			}
			seen[name]++
			select {
			case changed <- struct{}{}:
			default:
			}
			return io.ErrUnexpectedEOF
		}
	}
	a := &App{Log: slog.New(slog.DiscardHandler)}
	a.Depend("redis", check("redis"))
	a.Depend("nats", check("nats"))
	a.Tolerate("nats", "actions commit without it")
	const svc = "cardroom.test.v1.Probe"
	hs := health.NewServer()
	hs.SetServingStatus(svc, healthpb.HealthCheckResponse_SERVING)
	status := func() healthpb.HealthCheckResponse_ServingStatus {
		r, err := hs.Check(t.Context(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetStatus()
	}
	// failedTwice waits until name's check has failed twice more: the watcher acted on a failure.
	failedTwice := func(name string) {
		mu.Lock()
		from := seen[name]
		mu.Unlock()
		for {
			mu.Lock()
			n := seen[name]
			mu.Unlock()
			if n >= from+2 {
				return
			}
			select {
			case <-changed:
			case <-t.Context().Done():
				t.Fatal(t.Context().Err())
			}
		}
	}
	// NATS fails from the watcher's first check: a first check that passed would set the next one
	// an hour away (readyEvery), and the test would wait for it.
	mu.Lock()
	fail["nats"] = true
	mu.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); a.watchDeps(ctx, []*health.Server{hs}, [][]string{{svc}}) }()
	defer func() { cancel(); <-done }()

	failedTwice("nats")
	if st := status(); st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("a tolerated dependency down: %v, want SERVING", st)
	}
	mu.Lock()
	fail["redis"] = true
	mu.Unlock()
	failedTwice("redis")
	if st := status(); st != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("a required dependency down: %v, want NOT_SERVING", st)
	}
}
