package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A test package's Redis Cluster: six redis-server processes on loopback (three primaries, each
// with a replica), started by the first test that asks for it and stopped when the package's
// tests end (see Main).
var cluster struct {
	once sync.Once
	c    *RedisCluster
	err  error
}

// RedisCluster is a Redis Cluster of processes this package started.
type RedisCluster struct {
	// Addrs are the nodes' addresses, the primaries first as created.
	Addrs []string
	dir   string
	procs []*exec.Cmd
}

// URL is the cluster's URL in the form redisconn reads.
func (c *RedisCluster) URL() string {
	u := "redis+cluster://" + c.Addrs[0]
	for i, a := range c.Addrs[1:] {
		if i == 0 {
			u += "?addr=" + a
		} else {
			u += "&addr=" + a
		}
	}
	return u
}

// Client returns a new client of the cluster.
func (c *RedisCluster) Client() *redis.ClusterClient {
	return redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs})
}

// persistence is how every redis-server started here keeps its data: as production must run it
// (docs/operations.md, "Durability"), an append-only file fsynced before each round of replies, so
// that a node killed and started again comes back with what it answered, as a real one would.
var persistence = []string{"--save", "", "--appendonly", "yes", "--appendfsync", "always"}

// Kill ends the node at addr at once (SIGKILL), as a crash would, and waits for it to be gone; its
// replica then takes its slots over after the cluster node timeout (2 s).
func (c *RedisCluster) Kill(addr string) error {
	for i, a := range c.Addrs {
		if a == addr {
			_ = c.procs[i].Process.Kill()
			_ = c.procs[i].Wait()
			return nil
		}
	}
	return fmt.Errorf("no node %s in the cluster", addr)
}

// Restart starts the node at addr again, after Kill, as it was started (same port, directory,
// append-only file and cluster configuration), and waits until it answers. A cluster node whose
// replica took over in the meantime rejoins as that replica's replica.
func (c *RedisCluster) Restart(ctx context.Context, addr string) error {
	for i, a := range c.Addrs {
		if a != addr {
			continue
		}
		old := c.procs[i]
		cmd := exec.Command(old.Path, old.Args[1:]...)
		killWithParent(cmd)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start redis-server %s again: %w", addr, err)
		}
		c.procs[i] = cmd
		return untilNode(ctx, addr, func(ctx context.Context, rdb *redis.Client) error { return rdb.Ping(ctx).Err() })
	}
	return fmt.Errorf("no node %s in the cluster", addr)
}

// Stop kills the nodes and removes their directory.
func (c *RedisCluster) Stop() {
	for _, p := range c.procs {
		_ = p.Process.Kill()
		_ = p.Wait()
	}
	_ = os.RemoveAll(c.dir)
}

// Main wraps a test package's m so that the Redis Cluster its tests started is stopped when they
// end: func TestMain(m *testing.M) { os.Exit(testenv.Main(m).Run()) } (or give the wrapper to
// goleak.VerifyTestMain).
func Main(m interface{ Run() int }) interface{ Run() int } { return mainRunner{m} }

type mainRunner struct{ m interface{ Run() int } }

func (r mainRunner) Run() int {
	code := r.m.Run()
	if cluster.c != nil {
		cluster.c.Stop()
	}
	return code
}

// RedisClusterClient returns a client of the package's Redis Cluster (started on first use, see
// Main), closed when the test ends, or skips (fails under CARDROOM_REQUIRE_SERVICES=1) when
// redis-server or redis-cli is not installed or the cluster does not start.
func RedisClusterClient(t testing.TB) *redis.ClusterClient {
	t.Helper()
	cluster.once.Do(func() { cluster.c, cluster.err = StartRedisCluster(3, 1) })
	if cluster.err != nil {
		unavailable(t, "Redis Cluster", "127.0.0.1", cluster.err)
	}
	rdb := cluster.c.Client()
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// StartRedisCluster starts primaries*(1+replicas) redis-server processes on free loopback ports
// in a temporary directory and joins them into one cluster with redis-cli, waiting until every
// node reports cluster_state:ok. The caller stops it.
func StartRedisCluster(primaries, replicas int) (*RedisCluster, error) {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is not installed: %w", err)
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("redis-cli is not installed (Debian: redis-tools): %w", err)
	}
	dir, err := os.MkdirTemp("", "cardroom-redis-cluster-")
	if err != nil {
		return nil, err
	}
	c := &RedisCluster{dir: dir}
	ok := false
	defer func() {
		if !ok {
			c.Stop()
		}
	}()
	n := primaries * (1 + replicas)
	ports, err := clusterPorts(n)
	if err != nil {
		return nil, err
	}
	for _, p := range ports {
		ps := strconv.Itoa(p)
		args := []string{"--port", ps, "--bind", "127.0.0.1", "--cluster-enabled", "yes",
			"--cluster-config-file", "nodes-" + ps + ".conf", "--cluster-node-timeout", "2000",
			"--dir", dir, "--appendfilename", "appendonly-" + ps + ".aof", "--appenddirname", "aof-" + ps,
			"--daemonize", "no", "--logfile", filepath.Join(dir, "redis-"+ps+".log"), "--repl-diskless-sync-delay", "0"}
		cmd := exec.Command(server, append(args, persistence...)...)
		killWithParent(cmd)
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start redis-server on %d: %w", p, err)
		}
		c.procs = append(c.procs, cmd)
		c.Addrs = append(c.Addrs, "127.0.0.1:"+ps)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, a := range c.Addrs {
		if err := untilNode(ctx, a, func(ctx context.Context, rdb *redis.Client) error { return rdb.Ping(ctx).Err() }); err != nil {
			return nil, fmt.Errorf("redis-server %s did not answer: %w (log in %s)", a, err, dir)
		}
	}
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	var out bytes.Buffer
	create := exec.CommandContext(ctx, cli, args...)
	create.Stdout, create.Stderr = &out, &out
	if err := create.Run(); err != nil {
		return nil, fmt.Errorf("redis-cli --cluster create: %w: %s", err, out.String())
	}
	for _, a := range c.Addrs {
		err := untilNode(ctx, a, func(ctx context.Context, rdb *redis.Client) error {
			info, err := rdb.ClusterInfo(ctx).Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "cluster_state:ok") {
				return errors.New("cluster_state not ok")
			}
			if !strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(n)+"\r") {
				return errors.New("not every node known")
			}
			// A replica is ready once it has copied its primary (writes that wait for a replica
			// count only those).
			repl, err := rdb.Info(ctx, "replication").Result()
			if err != nil {
				return err
			}
			if strings.Contains(repl, "role:slave") && !strings.Contains(repl, "master_link_status:up") {
				return errors.New("replica not linked to its primary")
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("redis cluster node %s: %w", a, err)
		}
	}
	ok = true
	return c, nil
}

// untilNode retries check on the node at addr until it passes or ctx ends, every 20 ms.
func untilNode(ctx context.Context, addr string, check func(context.Context, *redis.Client) error) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	defer rdb.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check(ctx, rdb)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// clusterPorts finds n free loopback ports p whose cluster bus port, p+10000, is free as well.
func clusterPorts(n int) ([]int, error) {
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	for tries := 0; len(ports) < n && tries < 200; tries++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		if p+10000 > 65535 {
			_ = l.Close()
			continue
		}
		bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+10000))
		if err != nil {
			_ = l.Close()
			continue
		}
		held = append(held, l, bus)
		ports = append(ports, p)
	}
	if len(ports) < n {
		return nil, errors.New("no free ports for a redis cluster")
	}
	return ports, nil
}

// StartRedis starts one plain redis-server on a free loopback port, for comparisons with a
// cluster on the same machine; the caller stops it.
func StartRedis() (*RedisCluster, error) {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is not installed: %w", err)
	}
	dir, err := os.MkdirTemp("", "cardroom-redis-")
	if err != nil {
		return nil, err
	}
	c := &RedisCluster{dir: dir}
	ports, err := clusterPorts(1)
	if err != nil {
		c.Stop()
		return nil, err
	}
	ps := strconv.Itoa(ports[0])
	cmd := exec.Command(server, append([]string{"--port", ps, "--bind", "127.0.0.1", "--dir", dir,
		"--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log")}, persistence...)...)
	killWithParent(cmd)
	if err := cmd.Start(); err != nil {
		c.Stop()
		return nil, fmt.Errorf("start redis-server on %s: %w", ps, err)
	}
	c.procs = append(c.procs, cmd)
	c.Addrs = []string{"127.0.0.1:" + ps}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := untilNode(ctx, c.Addrs[0], func(ctx context.Context, rdb *redis.Client) error { return rdb.Ping(ctx).Err() }); err != nil {
		c.Stop()
		return nil, fmt.Errorf("redis-server %s did not answer: %w", c.Addrs[0], err)
	}
	return c, nil
}

// StartRedisPair starts a primary and one replica of it (redis-server processes on free loopback
// ports, Addrs[0] the primary, Addrs[1] the replica) and waits until the replica has synchronised;
// the caller stops them. It is what writes that wait for a replica (WAIT) are tested on.
func StartRedisPair() (*RedisCluster, error) {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is not installed: %w", err)
	}
	dir, err := os.MkdirTemp("", "cardroom-redis-pair-")
	if err != nil {
		return nil, err
	}
	c := &RedisCluster{dir: dir}
	ok := false
	defer func() {
		if !ok {
			c.Stop()
		}
	}()
	ports, err := clusterPorts(2)
	if err != nil {
		return nil, err
	}
	for i, p := range ports {
		ps := strconv.Itoa(p)
		args := []string{"--port", ps, "--bind", "127.0.0.1", "--dir", dir, "--dbfilename", "dump-" + ps + ".rdb",
			"--appenddirname", "aof-" + ps, "--daemonize", "no", "--logfile", filepath.Join(dir, "redis-"+ps+".log"),
			// A replica's full copy starts at once, not after the default 5 s wait for others.
			"--repl-diskless-sync-delay", "0"}
		args = append(args, persistence...)
		if i == 1 {
			args = append(args, "--replicaof", "127.0.0.1", strconv.Itoa(ports[0]))
		}
		cmd := exec.Command(server, args...)
		killWithParent(cmd)
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start redis-server on %d: %w", p, err)
		}
		c.procs = append(c.procs, cmd)
		c.Addrs = append(c.Addrs, "127.0.0.1:"+ps)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.UntilReplicated(ctx); err != nil {
		return nil, fmt.Errorf("%w (logs in %s)", err, dir)
	}
	ok = true
	return c, nil
}

// UntilReplicated waits until the pair's replica (Addrs[1]) is linked to its primary and the
// primary counts it online.
func (c *RedisCluster) UntilReplicated(ctx context.Context) error {
	if err := untilNode(ctx, c.Addrs[1], func(ctx context.Context, rdb *redis.Client) error {
		info, err := rdb.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "master_link_status:up") {
			return errors.New("replica not linked to its primary")
		}
		return nil
	}); err != nil {
		return fmt.Errorf("redis replica %s: %w", c.Addrs[1], err)
	}
	return untilNode(ctx, c.Addrs[0], func(ctx context.Context, rdb *redis.Client) error {
		info, err := rdb.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "connected_slaves:1") || !strings.Contains(info, "state=online") {
			return errors.New("primary has no online replica")
		}
		return nil
	})
}

// RedisPair starts a primary with a replica for this test (StartRedisPair), stopped when the test
// ends, or skips (fails under CARDROOM_REQUIRE_SERVICES=1) when redis-server is not installed or
// the pair does not start.
func RedisPair(t testing.TB) *RedisCluster {
	t.Helper()
	c, err := StartRedisPair()
	if err != nil {
		unavailable(t, "a Redis primary with a replica", "127.0.0.1", err)
	}
	t.Cleanup(c.Stop)
	return c
}
