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

// readyEvery is how often the dependencies are checked while they answer, readyRetry how often
// while one does not (so that readiness comes back soon after the dependency does: the gateways
// route tables back to a replica only once it reports SERVING); a check gives up after
// readyTimeout.
var (
	readyEvery   = 2 * time.Second
	readyRetry   = 200 * time.Millisecond
	readyTimeout = time.Second
)

// dependency is something the process cannot serve without (Redis, NATS), and how to tell it is
// reachable.
type dependency struct {
	name  string
	check func(context.Context) error
	// tolerated: the process serves while it fails (see Tolerate), so a failure is logged but
	// leaves readiness alone.
	tolerated string
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

// Tolerate keeps the dependency name out of readiness: the process serves without it, for the
// reason why (logged when the dependency fails). A rules service tolerates NATS: an action commits
// to Redis without it, and its events wait in the outbox until NATS is back, so taking every
// replica out of service (and out of the gateways' routing) would turn a NATS restart into an
// outage of play.
func (a *App) Tolerate(name, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range a.deps {
		if a.deps[i].name == name {
			a.deps[i].tolerated = why
		}
	}
}

// watchDeps checks the dependencies every readyEvery (readyRetry while one fails) until ctx ends,
// setting the registered services' status on every health server hs from the outcome. It logs
// each change.
func (a *App) watchDeps(ctx context.Context, hs []*health.Server, services [][]string) {
	a.mu.Lock()
	deps := a.deps
	a.mu.Unlock()
	if len(deps) == 0 {
		return
	}
	var down string     // the failing dependencies at the last check, "" when all passed
	var degraded string // the failing tolerated ones
	t := time.NewTimer(readyEvery)
	defer t.Stop()
	for {
		var failed, tolerated []string
		for _, d := range deps {
			cctx, cancel := context.WithTimeout(ctx, readyTimeout)
			err := d.check(cctx)
			cancel()
			switch {
			case err == nil:
			case d.tolerated != "":
				tolerated = append(tolerated, fmt.Sprintf("%s: %v (%s)", d.name, err, d.tolerated))
			default:
				failed = append(failed, fmt.Sprintf("%s: %v", d.name, err))
			}
		}
		if ctx.Err() != nil {
			return
		}
		if now := strings.Join(tolerated, "; "); now != degraded {
			if now != "" {
				a.Log.Warn("degraded, still serving: a dependency is unreachable", slog.String("failed", now))
			} else {
				a.Log.Info("no longer degraded: every tolerated dependency answers")
			}
			degraded = now
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
		if down != "" || degraded != "" {
			t.Reset(readyRetry)
		} else {
			t.Reset(readyEvery)
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
