package store

import (
	"context"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// groupCommit sends the commits that arrive together in one pipeline (group commit): one write
// and one read on a connection for the batch, which Redis reads, runs and answers in one go,
// instead of a round trip each. Under load, most of Redis's CPU per action is not the commit
// script but reading, parsing and answering requests one by one; the client spends its share
// waiting its turn for a pooled connection and in system calls.
//
// Nothing waits to fill a batch: a commit that finds fewer than maxCommitPipelines pipelines in
// flight is sent at once (a batch of one on a quiet store); the commits that arrive while those
// are in flight make the next batch. The batch is sent by one of its own callers, the leader: a
// caller whose batch is answered hands the lead to the first commit queued meanwhile, so no
// goroutine is kept, and every commit is answered by the batch that carried it.
type groupCommit struct {
	rdb redis.UniversalClient

	mu      sync.Mutex
	queue   []*pendingCommit
	spare   []*pendingCommit // the previous queue's array, reused
	leaders int
}

// maxCommitPipelines bounds the commit pipelines of one store in flight at once.
const maxCommitPipelines = 4

// maxCommitBatch bounds the commits of one pipeline.
const maxCommitBatch = 128

// pendingCommit is one commit script call waiting for its batch.
type pendingCommit struct {
	ctx  context.Context
	keys []string
	args []any
	n    int64
	err  error
	// leading is whether its caller leads a batch now (or is about to): guarded by the
	// groupCommit's mu.
	leading bool
	// turn gets true when the commit is answered, false when its caller is to lead; at most one
	// of each is ever outstanding, so sends never block.
	turn chan bool
}

var pendingCommits = sync.Pool{New: func() any { return &pendingCommit{turn: make(chan bool, 2)} }}

// run runs the commit script with keys and args in the next batch and returns its answer.
//
// A caller whose context ends while its commit is queued gets the context's error and the commit
// is not sent; once sent, the commit's answer is awaited (within the client's read timeout), as a
// single command's would be.
func (g *groupCommit) run(ctx context.Context, keys []string, args []any) (int64, error) {
	c := pendingCommits.Get().(*pendingCommit)
	c.ctx, c.keys, c.args = ctx, keys, args
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if g.leaders < maxCommitPipelines {
		g.leaders++
		c.leading = true
	}
	lead := c.leading
	g.mu.Unlock()
	for answered := false; !answered; {
		if lead {
			g.lead(ctx, c)
		}
		// The lead's batch may not have held this commit (another leader took the queue first):
		// its answer, or the lead handed over, comes on turn.
		answered = <-c.turn
		lead = !answered
	}
	n, err := c.n, c.err
	*c = pendingCommit{turn: c.turn}
	pendingCommits.Put(c)
	return n, err
}

// lead sends the queued commits (at most maxCommitBatch) in one pipeline, answers each, then hands
// the lead to the first commit queued meanwhile whose caller does not lead, or gives it up when
// there is none. self is the leader's own commit.
func (g *groupCommit) lead(ctx context.Context, self *pendingCommit) {
	g.mu.Lock()
	batch := g.queue
	if len(batch) > maxCommitBatch {
		batch = batch[:maxCommitBatch:maxCommitBatch]
		g.queue = g.queue[maxCommitBatch:]
	} else {
		g.queue = g.spare[:0]
		g.spare = nil
	}
	g.mu.Unlock()

	if len(batch) > 0 {
		g.send(context.WithoutCancel(ctx), batch)
		for _, c := range batch {
			c.turn <- true
		}
	}

	g.mu.Lock()
	if cap(batch) > cap(g.spare) && len(batch) < maxCommitBatch {
		clear(batch)
		g.spare = batch[:0]
	}
	self.leading = false
	var next *pendingCommit
	for _, c := range g.queue {
		if !c.leading {
			next = c
			break
		}
	}
	if next != nil {
		// The lead passes on (leaders is unchanged). Sent while next is queued, under mu: its
		// answer, sent once a batch has taken it from the queue, comes after.
		next.leading = true
		next.turn <- false
	} else {
		g.leaders--
	}
	g.mu.Unlock()
}

// send runs batch's commits in one pipeline (ctx: the leader's, without its cancellation, since
// the batch carries other callers' commits too) and records each one's answer. Commits whose
// caller's context has ended are left out. A server that lost the script (a restart, a failover)
// answers NOSCRIPT without running it: the script is loaded and those commits sent again.
func (g *groupCommit) send(ctx context.Context, batch []*pendingCommit) {
	todo := make([]*pendingCommit, 0, len(batch))
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			continue
		}
		todo = append(todo, c)
	}
	for attempt := 0; len(todo) > 0; attempt++ {
		cmds := make([]*redis.Cmd, len(todo))
		_, _ = g.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, c := range todo {
				cmds[i] = commitScript.EvalSha(ctx, p, c.keys, c.args...)
			}
			return nil
		})
		again := todo[:0]
		for i, c := range todo {
			c.n, c.err = cmds[i].Int64()
			if c.err != nil && attempt == 0 && strings.HasPrefix(c.err.Error(), "NOSCRIPT") {
				again = append(again, c)
			}
		}
		if len(again) == 0 {
			return
		}
		if err := commitScript.Load(ctx, g.rdb).Err(); err != nil {
			return // each keeps its NOSCRIPT error
		}
		todo = again
	}
}
