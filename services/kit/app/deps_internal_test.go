package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/telemetry"
	"cardroom.dev/services/kit/testenv"
	"github.com/redis/go-redis/v9"
)

func TestRideOutDefault(t *testing.T) {
	for _, c := range []struct {
		url     string
		hook    bool
		retries int
		backoff time.Duration
	}{
		{"redis://127.0.0.1:6379/0", true, -1, 250 * time.Millisecond},
		{"redis://127.0.0.1:6379/0?max_retry_backoff=1s", true, -1, time.Second},
		{"redis://127.0.0.1:6379/0?max_retries=2", false, 2, 0},
	} {
		opt, err := redis.ParseURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := rideOutDefault(opt, c.url)
		if ok != c.hook || opt.MaxRetries != c.retries || h.maxBackoff != c.backoff {
			t.Errorf("%s: hook %v, %d retries, backoff %v; want %v, %d, %v", c.url, ok, opt.MaxRetries, h.maxBackoff, c.hook, c.retries, c.backoff)
		}
	}
}

// flakyProxy stands in front of the test Redis. While down it accepts each connection and closes
// it at once, as a proxy whose Redis is gone does, or a killed Redis whose listener still accepts.
type flakyProxy struct {
	ln    net.Listener
	down  atomic.Bool
	wg    sync.WaitGroup
	conns sync.Map // client side → Redis side
}

func newFlakyProxy(t *testing.T, upstream string) *flakyProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.down.Load() {
				_ = c.Close()
				continue
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.conns.Store(c, u)
			p.wg.Add(2)
			pipe := func(dst, src net.Conn) {
				defer p.wg.Done()
				_, _ = io.Copy(dst, src)
				_ = dst.Close()
				_ = src.Close()
			}
			go pipe(u, c)
			go pipe(c, u)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		p.kill()
		p.wg.Wait()
	})
	return p
}

// kill breaks every connection, as Redis dying does, and from now on drops new ones.
func (p *flakyProxy) kill() {
	p.down.Store(true)
	p.conns.Range(func(c, u any) bool {
		_ = c.(net.Conn).Close()
		_ = u.(net.Conn).Close()
		p.conns.Delete(c)
		return true
	})
}

// TestRideOutDeadConnection: a command sent while every new connection is accepted and dropped
// goes through once connections work again, within a backoff of it, instead of after the
// handshake's own retries on the dead connection (about 4 s with the client's retries).
func TestRideOutDeadConnection(t *testing.T) {
	admin := testenv.Redis(t)
	prefix := testenv.Prefix(t, admin)
	p := newFlakyProxy(t, admin.Options().Addr)
	opt := &redis.Options{Addr: p.ln.Addr().String(), PoolSize: 4}
	ride, _ := rideOutDefault(opt, "redis://"+opt.Addr)
	rdb := redis.NewClient(opt)
	rdb.AddHook(ride)
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	p.kill()
	done := make(chan error, 1)
	go func() { done <- rdb.Incr(ctx, prefix+"n").Err() }()
	time.Sleep(300 * time.Millisecond) // the outage: the command is retrying through it
	select {
	case err := <-done:
		t.Fatalf("the command ended during the outage: %v", err)
	default:
	}
	back := time.Now()
	p.down.Store(false)
	if err := <-done; err != nil {
		t.Fatalf("the command failed after the outage: %v", err)
	}
	if d := time.Since(back); d > time.Second {
		t.Errorf("the command went through %v after connections worked again, want within a backoff (250 ms)", d.Round(time.Millisecond))
	}
	if n, err := admin.Get(ctx, prefix+"n").Int(); err != nil || n != 1 {
		t.Errorf("counter %d (%v), want 1", n, err)
	}
}

// TestRideOutGivesUp: commands fail after the budget while Redis stays away, and a server's
// refusal is not repeated.
func TestRideOutGivesUp(t *testing.T) {
	admin := testenv.Redis(t)
	prefix := testenv.Prefix(t, admin)
	p := newFlakyProxy(t, admin.Options().Addr)
	opt := &redis.Options{Addr: p.ln.Addr().String(), PoolSize: 4, MaxRetries: -1}
	rdb := redis.NewClient(opt)
	var sent atomic.Int32
	rdb.AddHook(rideOut{budget: 300 * time.Millisecond, maxBackoff: 50 * time.Millisecond})
	rdb.AddHook(counter{&sent})
	defer rdb.Close()
	ctx := context.Background()
	if err := admin.Set(ctx, prefix+"s", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Incr(ctx, prefix+"s").Err(); err == nil || sent.Load() != 1 {
		t.Errorf("INCR of a string: %v after %d sends, want a refusal sent once", err, sent.Load())
	}
	p.kill()
	sent.Store(0)
	start := time.Now()
	err := rdb.Incr(ctx, prefix+"n").Err()
	if d := time.Since(start); err == nil || d < 250*time.Millisecond || d > 2*time.Second {
		t.Errorf("INCR while Redis is away: %v after %v, want an error after about 300 ms", err, d.Round(time.Millisecond))
	}
	if sent.Load() < 3 {
		t.Errorf("sent %d times, want several tries", sent.Load())
	}
}

// counter counts the commands a client sends (the handshake's excluded).
type counter struct{ n *atomic.Int32 }

func (counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func TestTransient(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{io.EOF, true},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{errors.New("LOADING Redis is loading the dataset in memory"), true},
		{errors.New("ERR wrong number of arguments"), false},
		{context.DeadlineExceeded, false},
		{&net.OpError{Op: "read", Err: timeoutErr{}}, false},
	} {
		if got := transient(c.err); got != c.want {
			t.Errorf("transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestRideOutClusterFailover: on a Redis Cluster whose primary is killed (SIGKILL), a write to
// that primary's slots goes through, once its replica has taken them over, through the client the
// app opens from a cluster URL. Without the reload of the slot map at each failed try, the client
// would keep dialing the dead primary until its periodic reload (a minute), and the write would
// fail after the 4 s budget.
func TestRideOutClusterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster of its own")
	}
	c, err := testenv.StartRedisCluster(3, 1)
	if err != nil {
		t.Skipf("no Redis Cluster: %v", err)
	}
	defer c.Stop()
	a := &App{Config: config.Config{RedisURL: c.URL()}, Log: slog.New(slog.DiscardHandler), tel: &telemetry.Telemetry{}}
	ctx := context.Background()
	rdb, err := a.Redis(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	const key = "rideout:{failover}"
	if err := rdb.Set(ctx, key, 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	slot, err := rdb.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	// The slot's primary and its replica, once the replica is listed and copying the primary
	// (the cluster is ready before its replicas have attached).
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var primary, replica string
	var rep *redis.Client
	for start := time.Now(); ; <-tick.C {
		if time.Since(start) > time.Minute {
			t.Fatalf("no replica of slot %d's primary in sync after a minute", slot)
		}
		slots, err := rdb.ClusterSlots(ctx).Result()
		if err != nil {
			continue
		}
		for _, r := range slots {
			if int64(r.Start) <= slot && slot <= int64(r.End) && len(r.Nodes) > 1 {
				primary, replica = r.Nodes[0].Addr, r.Nodes[1].Addr
			}
		}
		if replica == "" {
			continue
		}
		if rep == nil {
			rep = redis.NewClient(&redis.Options{Addr: replica})
			defer rep.Close()
		}
		if role, err := rep.Do(ctx, "ROLE").Slice(); err == nil && len(role) > 3 && role[3] == "connected" {
			break
		}
	}
	if err := c.Kill(primary); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	// The replica takes over after the node timeout (2 s) and its election.
	for {
		role, err := rep.Do(ctx, "ROLE").Slice()
		if err == nil && len(role) > 0 && role[0] == "master" {
			break
		}
		if time.Since(killed) > time.Minute {
			t.Fatalf("replica %s not promoted a minute after its primary was killed (%v %v)", replica, role, err)
		}
		<-tick.C
	}
	promoted := time.Now()
	if err := rdb.Incr(ctx, key).Err(); err != nil {
		t.Fatalf("INCR %v after the replica took over: %v", time.Since(promoted).Round(time.Millisecond), err)
	}
	t.Logf("the replica took over %v after the kill; INCR went through %v later", promoted.Sub(killed).Round(time.Millisecond), time.Since(promoted).Round(time.Millisecond))
	if n, err := rdb.Get(ctx, key).Int(); err != nil || n != 2 {
		t.Errorf("counter %d (%v) on the promoted replica, want 2", n, err)
	}
}

// TestRideOutRedirected: on a cluster (reroute set) a redirection the cluster client stopped
// following is sent again after a reload of the slot map; on a single server it is an answer.
func TestRideOutRedirected(t *testing.T) {
	for _, msg := range []string{"MOVED 7978 127.0.0.1:17005", "ASK 7978 127.0.0.1:17005"} {
		var reloads, sends int
		h := rideOut{budget: time.Second, maxBackoff: time.Millisecond, reroute: func(context.Context) { reloads++ }}
		err := h.retry(context.Background(), func() error {
			sends++
			if sends < 3 {
				return errors.New(msg)
			}
			return nil
		})
		if err != nil || sends != 3 || reloads != 2 {
			t.Errorf("cluster, %s twice: %v after %d sends and %d reloads, want success after 3 and 2", msg, err, sends, reloads)
		}
		single := rideOut{budget: time.Second, maxBackoff: time.Millisecond}
		sends = 0
		err = single.retry(context.Background(), func() error { sends++; return errors.New(msg) })
		if err == nil || sends != 1 {
			t.Errorf("single server, %s: %v after %d sends, want it answered at once", msg, err, sends)
		}
	}
}
