package app

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// rideOut is a client hook that carries a command across a Redis restart: a command that failed
// because its connection or the server went away is sent again, on a fresh connection, backing
// off from 10 ms up to maxBackoff, until it succeeds, fails otherwise, its context ends, or budget
// has passed since it was first sent.
//
// It replaces the client's own retries, which are off (MaxRetries -1) where it is installed. Those
// retry every command with the same budget, including the handshake (HELLO) of a new connection,
// which runs on that one connection: when a connection was accepted but is already dead — by a
// Redis being killed while its listener still accepts, or by a proxy in front of a Redis that is
// down — the handshake failed twenty times on it, for about 4 s, while Redis was back long
// before, and held up the command that needed the connection. Here the handshake is never
// retried: it fails at once, its connection is dropped, and the command's next try dials again.
//
// On a Redis Cluster, reroute is set: a primary's death shows only as refused connections, and the
// cluster client would go on sending that primary's slots to it until its next periodic reload of
// the slot map (a minute); reroute asks for a reload at each failed try, so that once a replica has
// taken the slots over the next try goes to it. There a redirection the cluster client stopped
// following (redirected) is tried again too.
type rideOut struct {
	budget     time.Duration
	maxBackoff time.Duration
	reroute    func(context.Context)
}

func (rideOut) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h rideOut) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if handshake(cmd) {
			return next(ctx, cmd)
		}
		return h.retry(ctx, func() error { return next(ctx, cmd) })
	}
}

func (h rideOut) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if handshake(c) {
				return next(ctx, cmds)
			}
		}
		return h.retry(ctx, func() error { return next(ctx, cmds) })
	}
}

func (h rideOut) retry(ctx context.Context, send func() error) error {
	end := time.Now().Add(h.budget)
	for attempt := 0; ; attempt++ {
		err := send()
		if err == nil || !(transient(err) || h.reroute != nil && redirected(err)) || ctx.Err() != nil {
			return err
		}
		if h.reroute != nil {
			h.reroute(ctx)
		}
		wait := min(10*time.Millisecond<<min(attempt, 10), h.maxBackoff)
		wait = wait/2 + rand.N(wait/2+1)
		if time.Now().Add(wait).After(end) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// redirected reports whether err is a cluster node's redirection (MOVED, ASK) that the cluster
// client gave up following: it follows a few, and while a failover changes the slot map, tries
// spent on the dead primary's refused connections can leave it holding the last redirection
// (seen in the chaos run: "load table: MOVED 7978 …" answered INTERNAL). A redirected command
// did not run, so it is sent again once the slot map is reloaded.
func redirected(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "MOVED ") || strings.HasPrefix(s, "ASK ")
}

// handshake reports whether cmd is one a new connection sends before it is used: those belong to
// the command that asked for the connection, and are not retried on their own.
func handshake(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "hello", "auth", "client", "select", "readonly":
		return true
	}
	return false
}

// transient reports whether err means the command may succeed if sent again on a new connection:
// the connection broke or could not be made, or Redis is loading its data or has no primary yet.
// A command whose connection broke after it was written may have run; the stores' commands are
// idempotent under a repeat (see retriesDefault). Timeouts are not repeated: the command may still
// be running.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	s := err.Error()
	for _, p := range []string{"LOADING ", "MASTERDOWN ", "TRYAGAIN ", "CLUSTERDOWN ", "READONLY "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
