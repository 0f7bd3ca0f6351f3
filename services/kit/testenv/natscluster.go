package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cardroom.dev/services/kit/bus"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsNodeEnv, set in a test binary's environment, makes it run one NATS server with the
// configuration file it names instead of its tests. StartNATSCluster's servers are the test binary
// itself run so: the nats-server of go.mod (the version the embedded mode runs), in processes of
// their own that Kill ends as a crash would, with nothing to install.
const natsNodeEnv = "CARDROOM_TESTENV_NATS_NODE"

func init() {
	if conf := os.Getenv(natsNodeEnv); conf != "" {
		os.Exit(runNATSNode(conf))
	}
}

// runNATSNode runs a NATS server configured by the file conf until it is stopped.
func runNATSNode(conf string) int {
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s, err := server.NewServer(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s.ConfigureLogger()
	s.Start()
	s.WaitForShutdown()
	return 0
}

// NATSCluster is NATS server processes forming one JetStream cluster on loopback, each with its
// own client port, route port and storage directory. Kill ends one as a crash would (SIGKILL).
type NATSCluster struct {
	t     testing.TB
	nodes []*natsNode
	nc    *nats.Conn // to every node, for the cluster's own questions
	js    jetstream.JetStream
}

type natsNode struct {
	name string
	url  string
	cmd  *exec.Cmd
	log  *bytes.Buffer
	mu   *sync.Mutex // guards log, written by the process's output copier
	done chan struct{}
}

// lockedWriter appends to a buffer under a lock: exec copies the process's output from its own
// goroutine while a failing test may read it.
type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// clusterReadyTimeout bounds the start of the cluster: routes, the JetStream meta leader, and
// every server taking part in a replicated stream.
const clusterReadyTimeout = 60 * time.Second

// StartNATSCluster starts n NATS server processes as one JetStream cluster on loopback, ready for
// streams of n replicas, and stops them when the test ends.
func StartNATSCluster(t testing.TB, n int) *NATSCluster {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 2*n)
	client, route := ports[:n], ports[n:]
	var routes []string
	for _, p := range route {
		routes = append(routes, fmt.Sprintf("%q", fmt.Sprintf("nats-route://127.0.0.1:%d", p)))
	}
	dir := t.TempDir()
	c := &NATSCluster{t: t}
	t.Cleanup(c.stop)
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		store := filepath.Join(dir, name)
		conf := fmt.Sprintf(`server_name: %q
listen: "127.0.0.1:%d"
jetstream {
  store_dir: %q
}
cluster {
  name: "cardroomtest"
  listen: "127.0.0.1:%d"
  routes: [%s]
}
`, name, client[i], store, route[i], strings.Join(routes, ", "))
		path := filepath.Join(dir, name+".conf")
		if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		node := &natsNode{name: name, url: fmt.Sprintf("nats://127.0.0.1:%d", client[i]), log: &bytes.Buffer{}, mu: &sync.Mutex{}, done: make(chan struct{})}
		node.cmd = exec.Command(bin)
		node.cmd.Env = append(os.Environ(), natsNodeEnv+"="+path)
		node.cmd.Stdout = lockedWriter{node.mu, node.log}
		node.cmd.Stderr = node.cmd.Stdout
		if err := node.cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", bin, err)
		}
		go func() { _ = node.cmd.Wait(); close(node.done) }()
		c.nodes = append(c.nodes, node)
	}
	nc, err := nats.Connect(c.URLs(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond), nats.RetryOnFailedConnect(true))
	if err != nil {
		t.Fatal(err)
	}
	c.nc = nc
	if c.js, err = jetstream.New(nc); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), clusterReadyTimeout)
	defer cancel()
	if err := c.waitReady(ctx, n); err != nil {
		t.Fatalf("nats cluster not ready: %v\n%s", err, c.Logs())
	}
	return c
}

// freePorts reserves n loopback ports at once and frees them for the servers to take.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return ports
}

// waitReady waits until a stream of n replicas can be created: the meta leader is elected and
// knows every server.
func (c *NATSCluster) waitReady(ctx context.Context, n int) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, last = c.js.CreateStream(rctx, jetstream.StreamConfig{Name: "TESTENV_READY", Subjects: []string{"testenv.ready"}, Storage: jetstream.MemoryStorage, Replicas: n})
		if last == nil {
			last = c.js.DeleteStream(rctx, "TESTENV_READY")
		}
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// URLs are the client URLs of every server, comma-separated.
func (c *NATSCluster) URLs() string {
	var us []string
	for _, n := range c.nodes {
		us = append(us, n.url)
	}
	return strings.Join(us, ",")
}

// Name is server i's name.
func (c *NATSCluster) Name(i int) string { return c.nodes[i].name }

// Index is the index of the server named name, or -1.
func (c *NATSCluster) Index(name string) int {
	for i, n := range c.nodes {
		if n.name == name {
			return i
		}
	}
	return -1
}

// Kill ends server i at once (SIGKILL), as a crash would, and waits for it to be gone.
func (c *NATSCluster) Kill(i int) {
	n := c.nodes[i]
	_ = n.cmd.Process.Kill()
	<-n.done
}

// StreamLeader is the index of the server leading stream's group, waiting for one to be elected.
func (c *NATSCluster) StreamLeader(ctx context.Context, stream string) (int, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if i := c.streamLeader(ctx, stream); i >= 0 {
			return i, nil
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("no leader of stream %s: %w", stream, ctx.Err())
		case <-tick.C:
		}
	}
}

// streamLeader is the current leader's index, or -1 (none, or unknown).
func (c *NATSCluster) streamLeader(ctx context.Context, stream string) int {
	ictx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := c.js.Stream(ictx, stream)
	if err != nil {
		return -1
	}
	info, err := s.Info(ictx)
	if err != nil || info.Cluster == nil {
		return -1
	}
	i := c.Index(info.Cluster.Leader)
	if i < 0 {
		return -1
	}
	select {
	case <-c.nodes[i].done:
		return -1 // killed: the answer is older than its death
	default:
	}
	return i
}

// MoveStreamLeader makes server to lead stream's group, asking the leader to step down until the
// election falls on it.
func (c *NATSCluster) MoveStreamLeader(ctx context.Context, stream string, to int) error {
	for {
		l, err := c.StreamLeader(ctx, stream)
		if err != nil {
			return err
		}
		if l == to {
			return nil
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = c.nc.RequestWithContext(rctx, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, nil)
		cancel()
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("step down the leader of %s: %w", stream, err)
		}
		// Wait for the step-down to take effect before asking again.
		tick := time.NewTicker(20 * time.Millisecond)
		for c.streamLeader(ctx, stream) == l && ctx.Err() == nil {
			<-tick.C
		}
		tick.Stop()
	}
}

// StreamData is the data of every message stream holds, in stream order, read one by one from
// its leader (no consumer: an ephemeral consumer may be placed on a dead server and never answer).
// A leader elected moments ago may still answer "temporarily unavailable" or not at all; each
// request is asked again (bus.RetryAPI) until ctx ends. A message the stream no longer has is an
// error at once.
func (c *NATSCluster) StreamData(ctx context.Context, stream string) ([][]byte, error) {
	var s jetstream.Stream // the stream's handle, asked for again after a failed request
	handle := func(rctx context.Context) (jetstream.Stream, error) {
		if s != nil {
			return s, nil
		}
		var err error
		s, err = c.js.Stream(rctx, stream)
		return s, err
	}
	var info *jetstream.StreamInfo
	err := bus.RetryAPI(ctx, func(rctx context.Context) error {
		h, err := handle(rctx)
		if err == nil {
			info, err = h.Info(rctx)
		}
		if err != nil {
			s = nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", stream, err)
	}
	if info.State.FirstSeq > 1 && info.State.Msgs > 0 {
		return nil, fmt.Errorf("stream %s starts at %d: messages were removed", stream, info.State.FirstSeq)
	}
	out := make([][]byte, 0, info.State.LastSeq)
	for seq := uint64(1); seq <= info.State.LastSeq; seq++ {
		var m *jetstream.RawStreamMsg
		err := bus.RetryAPI(ctx, func(rctx context.Context) error {
			h, err := handle(rctx)
			if err == nil {
				m, err = h.GetMsg(rctx, seq)
			}
			if err != nil {
				s = nil
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("stream %s message %d: %w", stream, seq, err)
		}
		out = append(out, m.Data)
	}
	return out, nil
}

// Logs are every server's output so far.
func (c *NATSCluster) Logs() string {
	var b strings.Builder
	for _, n := range c.nodes {
		n.mu.Lock()
		fmt.Fprintf(&b, "--- %s (%s)\n%s", n.name, n.url, n.log.String())
		n.mu.Unlock()
	}
	return b.String()
}

func (c *NATSCluster) stop() {
	if c.nc != nil {
		c.nc.Close()
	}
	for _, n := range c.nodes {
		_ = n.cmd.Process.Kill()
		<-n.done
	}
	if c.t.Failed() {
		c.t.Logf("nats cluster output:\n%s", c.Logs())
	}
}
