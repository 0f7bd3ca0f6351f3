package client

import (
	"context"
	"math/rand/v2"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Backoff is an exponential backoff: First, then each pause Factor times the last, at most Max,
// each shortened by up to Jitter of itself at random (so that many clients cut at once do not come
// back at once).
type Backoff struct {
	First, Max time.Duration
	Factor     float64
	Jitter     float64
}

// DefaultBackoff is 50 ms doubling up to 5 s, with a quarter of jitter.
var DefaultBackoff = Backoff{First: 50 * time.Millisecond, Max: 5 * time.Second, Factor: 2, Jitter: 0.25}

// pauses counts the pauses of one run of retries.
type pauses struct {
	b    Backoff
	next time.Duration
}

func (b Backoff) start() *pauses { return &pauses{b: b, next: b.First} }

// reset starts the pauses over (after a success).
func (p *pauses) reset() { p.next = p.b.First }

// wait pauses, or returns ctx's error when it ends first.
func (p *pauses) wait(ctx context.Context) error {
	d := p.next
	if p.b.Jitter > 0 {
		d -= time.Duration(rand.Float64() * p.b.Jitter * float64(d))
	}
	p.next = min(time.Duration(float64(p.next)*max(p.b.Factor, 1)), p.b.Max)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Retryable reports whether err leaves it unknown whether the call was applied, so that the same
// request may be sent again: UNAVAILABLE (the connection was lost, the gateway was going away) or
// DEADLINE_EXCEEDED (no answer in time).
func Retryable(err error) bool {
	c := status.Code(err)
	return c == codes.Unavailable || c == codes.DeadlineExceeded
}

// maxAttempts bounds the attempts of a call that is retried: with the default backoff, about 6 s
// of pauses (50 ms doubling, seven of them), besides the tries themselves.
const maxAttempts = 8

// retry makes call until it answers something other than a Retryable error, at most maxAttempts
// times, each attempt bounded by the client's call timeout. Only for calls that are safe to repeat
// (an action id, a request id, or nothing changed).
func (c *Client) retry(ctx context.Context, what string, call func(ctx context.Context) error) error {
	p := c.opt.retry.start()
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, c.opt.callTimeout)
		err := call(actx)
		cancel()
		if err == nil || !Retryable(err) || attempt >= maxAttempts || ctx.Err() != nil {
			return err
		}
		c.opt.log.InfoContext(ctx, "retrying", "call", what, "attempt", attempt, "error", err)
		if werr := p.wait(ctx); werr != nil {
			return err
		}
	}
}

// ViolationCode is the stable code of a refusal (the cardroom.game.v1.RuleViolation detail:
// "STALE_VERSION", "NOT_YOUR_TURN", …), or "" when err carries none.
func ViolationCode(err error) string {
	st, ok := status.FromError(err)
	if !ok {
		return ""
	}
	for _, d := range st.Details() {
		if v, ok := d.(*gamev1.RuleViolation); ok {
			return v.GetCode()
		}
	}
	return ""
}

// IsStale reports whether an action was refused because the table had moved on from the version it
// was chosen at (ABORTED, STALE_VERSION): nothing happened, and the Watch stream brings the new
// choices.
func IsStale(err error) bool {
	return status.Code(err) == codes.Aborted
}
