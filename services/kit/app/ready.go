package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// readyEvery is how often the dependencies are checked; a check gives up after readyTimeout.
var (
	readyEvery   = 2 * time.Second
	readyTimeout = time.Second
)

// dependency is something the process cannot serve without (Redis, NATS), and how to tell it is
// reachable.
type dependency struct {
	name  string
	check func(context.Context) error
}

// Depend makes the process's readiness depend on check: while it fails, every service its gRPC
// servers registered reports NOT_SERVING (so Kubernetes takes the pod out of its Services'
// endpoints), and SERVING again once it passes. The overall status (service "", what liveness
// probes ask) stays SERVING: restarting the process would not bring Redis or NATS back.
func (a *App) Depend(name string, check func(context.Context) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deps = append(a.deps, dependency{name: name, check: check})
}

// watchDeps checks the dependencies every readyEvery until ctx ends, setting the registered
// services' status on every health server hs from the outcome. It logs each change.
func (a *App) watchDeps(ctx context.Context, hs []*health.Server, services [][]string) {
	a.mu.Lock()
	deps := a.deps
	a.mu.Unlock()
	if len(deps) == 0 {
		return
	}
	var down string // the failing dependencies at the last check, "" when all passed
	t := time.NewTicker(readyEvery)
	defer t.Stop()
	for {
		var failed []string
		for _, d := range deps {
			cctx, cancel := context.WithTimeout(ctx, readyTimeout)
			err := d.check(cctx)
			cancel()
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", d.name, err))
			}
		}
		if ctx.Err() != nil {
			return
		}
		now := strings.Join(failed, "; ")
		if now != down {
			st := healthpb.HealthCheckResponse_SERVING
			if now != "" {
				st = healthpb.HealthCheckResponse_NOT_SERVING
				a.Log.Warn("not ready: a dependency is unreachable", slog.String("failed", now))
			} else {
				a.Log.Info("ready again: every dependency answers")
			}
			for i, h := range hs {
				for _, name := range services[i] {
					h.SetServingStatus(name, st)
				}
			}
			down = now
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// readinessServices are the services a server's readiness covers: every one registered on it but
// health and reflection.
func readinessServices(names map[string]struct{}) []string {
	var out []string
	for n := range names {
		if n == healthpb.Health_ServiceDesc.ServiceName || strings.HasPrefix(n, "grpc.reflection.") {
			continue
		}
		out = append(out, n)
	}
	return out
}
