package gateway

import (
	"context"
	"slices"
	"sync"
	"time"
)

// hashGate bounds the password hashes running at once and orders those waiting. Ordinary sign-ins
// go first come, first served, up to n at once. A suspect's (a sign-in from an address, or at a
// name, with failures counted against it, or with another try under way: throttle.go) waits until
// no ordinary one waits and no other suspect's runs, and then starts only while nothing runs or a
// hasher stays free beside it: however many guess at once, they hold one hasher at most, and a
// player's check shares the processor with one guess at most. Among suspects, the mild ones (at a
// name with failures, or with another try under way, from an address and for a name with no
// failures of their own: the player whose name is under attack, trying from home) go first.
//
// A semaphore alone (golang.org/x/sync/semaphore, first come, first served) would let guesses
// fill every hasher ahead of a player; this gate is that semaphore with the suspects' rule.
type hashGate struct {
	mu      sync.Mutex
	n       int
	running int
	suspect bool // a suspect's hash runs
	queue   []*hashWaiter

	// ordinary counts the ordinary hashes running; lastOrdinary is when the last one ended.
	ordinary     int
	lastOrdinary time.Time
	idleGap      time.Duration
	now          func() time.Time
	wake         *time.Timer // grants again when the gap has passed
}

// idleGap is how long the hashers must have had no ordinary hash before a suspect's starts: a
// player signing in again and again (a page that retries, a client reconnecting) is not cut in on.
const idleGap = 250 * time.Millisecond

type hashWaiter struct {
	suspect suspicion
	granted bool
	ready   chan struct{}
}

func newHashGate(n int) *hashGate { return &hashGate{n: max(1, n), idleGap: idleGap, now: time.Now} }

// suspicion grades a sign-in's try (throttle.go).
type suspicion int

const (
	ordinary suspicion = iota
	// mild: a name with failures from elsewhere, or tried from elsewhere at the same moment.
	mild
	// suspect: failures counted from this address, or for this name from it.
	suspect
)

// acquire waits for a turn to hash (or for ctx's end); release ends the turn.
func (g *hashGate) acquire(ctx context.Context, sus suspicion) (release func(), err error) {
	w := &hashWaiter{suspect: sus, ready: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, w)
	g.grant()
	g.mu.Unlock()
	select {
	case <-w.ready:
		return func() { g.release(w) }, nil
	case <-ctx.Done():
		g.mu.Lock()
		if w.granted {
			g.mu.Unlock()
			g.release(w)
		} else {
			g.queue = slices.DeleteFunc(g.queue, func(x *hashWaiter) bool { return x == w })
			g.grant() // a suspect behind this ordinary waiter may go now
			g.mu.Unlock()
		}
		return nil, ctx.Err()
	}
}

func (g *hashGate) release(w *hashWaiter) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	if w.suspect != ordinary {
		g.suspect = false
	} else {
		g.ordinary--
		g.lastOrdinary = g.now()
	}
	g.grant()
}

// grant starts the waiters whose turn it is. g.mu is held.
func (g *hashGate) grant() {
	for len(g.queue) > 0 {
		i := slices.IndexFunc(g.queue, func(w *hashWaiter) bool { return w.suspect == ordinary })
		switch {
		case i >= 0 && g.running < g.n:
		case i >= 0:
			return // ordinary ones wait for a hasher, and suspects behind them
		case !g.suspect && (g.running == 0 || g.running+1 < g.n):
			// Only suspects wait: the first of the mildest, once the ordinary ones have left the
			// hashers alone for the gap.
			if g.ordinary > 0 {
				return
			}
			if wait := g.lastOrdinary.Add(g.idleGap).Sub(g.now()); wait > 0 {
				if g.wake == nil {
					g.wake = time.AfterFunc(wait, func() {
						g.mu.Lock()
						defer g.mu.Unlock()
						g.wake = nil
						g.grant()
					})
				}
				return
			}
			if i = slices.IndexFunc(g.queue, func(w *hashWaiter) bool { return w.suspect == mild }); i < 0 {
				i = 0
			}
		default:
			return
		}
		w := g.queue[i]
		g.queue = slices.Delete(g.queue, i, i+1)
		w.granted = true
		g.running++
		if w.suspect != ordinary {
			g.suspect = true
		} else {
			g.ordinary++
		}
		close(w.ready)
	}
}
