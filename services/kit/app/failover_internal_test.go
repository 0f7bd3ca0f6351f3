package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/telemetry"
	"cardroom.dev/services/kit/testenv"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// answered is one Act's final answer: its code and, when OK, the version it gave.
type answered struct {
	code    codes.Code
	version uint64
	// sent is when its first attempt went out, done when its final answer came.
	sent, done time.Time
}

// TestFailoverWithPlayInFlight: tables are played through a rules server on a Redis Cluster whose
// nodes keep an append-only file fsynced before every answer and whose answers wait for a replica
// (wait_replicas=1, as docs/operations.md asks of a replicated Redis), through the client the app
// opens from the URL. While every table is being played, the primary serving one of the table
// shards is killed (SIGKILL); its replica takes its slots over, and the killed node is started
// again on its append-only file (it rejoins as a replica, which the waits need). The players do what
// a client does: an Act answered UNAVAILABLE is sent again with the same action id until it is
// answered otherwise. Then every table's log is audited: versions 1..n once each; every action
// answered OK in it exactly once, at the version answered; none answered with a refusal in it; no
// action in it that no player sent. So 0 lost and 0 doubled, with writes in flight at the kill.
func TestFailoverWithPlayInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster of its own")
	}
	c, err := testenv.StartRedisCluster(3, 1)
	if err != nil {
		if testenv.Required() {
			t.Fatalf("no Redis Cluster: %v", err)
		}
		t.Skipf("no Redis Cluster: %v", err)
	}
	defer c.Stop()
	ctx := context.Background()
	a := &App{Config: config.Config{RedisURL: c.URL() + "&wait_replicas=1&wait_timeout=1s"}, Log: slog.New(slog.DiscardHandler), tel: &telemetry.Telemetry{}}
	rdb, err := a.Redis(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	st, err := a.Store(ctx, "highcard")
	if err != nil {
		t.Fatal(err)
	}
	srv := rules.New(highcard.Engine("highcard"), st, nil, rules.Options{Retain: time.Hour, Logger: slog.New(slog.DiscardHandler)})

	// Every replica in sync first (a cluster is ready before its replicas have copied): a write
	// waits for one.
	cc := rdb.(*redis.ClusterClient)
	nodes := make([]*redis.Client, len(c.Addrs))
	for i, addr := range c.Addrs {
		nodes[i] = redis.NewClient(&redis.Options{Addr: addr})
		defer nodes[i].Close()
	}
	until(t, time.Minute, "every replica linked to its primary", func() bool {
		linked := 0
		for _, n := range nodes {
			if role, err := n.Do(ctx, "ROLE").Slice(); err == nil && len(role) > 3 && role[0] == "slave" && role[3] == "connected" {
				linked++
			}
		}
		return linked == 3
	})

	const tables, seats = 12, 2
	rounds, _ := anypb.New(wrapperspb.UInt32(1000)) // longer than the test: every table stays in play
	ids := make([]string, tables)
	for i := range ids {
		ids[i] = fmt.Sprintf("fo-%d-%s", i, randomID())
		cfg := &gamev1.TableConfig{Game: "highcard", SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_FIXED, Seed: uint64(i + 1), Options: rounds}
		for s := range seats {
			cfg.Seats = append(cfg.Seats, &gamev1.Seat{Index: uint32(s), Player: &gamev1.PlayerRef{PlayerId: fmt.Sprint("p", s)}})
		}
		if _, err := srv.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: ids[i], Config: cfg}); err != nil {
			t.Fatalf("create %s: %v", ids[i], err)
		}
	}

	var (
		mu        sync.Mutex
		answers   = make([]map[string]answered, tables) // by table, by action id
		okCount   atomic.Int64
		retried   atomic.Int64
		failures  []error
		playCtx   context.Context
		stopPlay  context.CancelFunc
		wg        sync.WaitGroup
		lastOK    = make([]atomic.Int64, tables) // Unix nanoseconds of each table's last Act answered OK
		stallLong atomic.Int64                   // the longest any table went without an Act answered OK
	)
	playCtx, stopPlay = context.WithCancel(ctx)
	defer stopPlay()
	for i := range tables {
		answers[i] = map[string]answered{}
		lastOK[i].Store(time.Now().UnixNano())
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := play(playCtx, srv, ids[i], seats, func(id string, a answered) {
				mu.Lock()
				answers[i][id] = a
				mu.Unlock()
				if a.code == codes.OK {
					okCount.Add(1)
					prev := lastOK[i].Swap(a.done.UnixNano())
					if gap := a.done.UnixNano() - prev; gap > stallLong.Load() {
						stallLong.Store(gap)
					}
				}
			}, &retried); err != nil {
				mu.Lock()
				failures = append(failures, fmt.Errorf("table %s: %w", ids[i], err))
				mu.Unlock()
			}
		}()
	}
	atLeast := func(n int64, what string) {
		until(t, 2*time.Minute, what, func() bool { return okCount.Load() >= n })
	}
	atLeast(200, "200 actions answered before the kill")

	// The primary of the first table's shard, and its replica, as the cluster reports them once
	// the client's view lists the replica.
	slot := slotOfTable(t, ctx, cc, ids[0])
	var primary, replica string
	until(t, time.Minute, fmt.Sprintf("slot %d's primary and replica listed", slot), func() bool {
		shards, err := cc.ClusterShards(ctx).Result()
		for _, sh := range shards {
			if !slices.ContainsFunc(sh.Slots, func(r redis.SlotRange) bool { return r.Start <= slot && slot <= r.End }) {
				continue
			}
			for _, n := range sh.Nodes {
				addr := net.JoinHostPort(n.IP, strconv.FormatInt(n.Port, 10))
				switch {
				case n.Role == "master":
					primary = addr
				case n.Role == "replica" && n.Health == "online":
					replica = addr
				}
			}
		}
		return err == nil && primary != "" && replica != ""
	})
	rep := redis.NewClient(&redis.Options{Addr: replica})
	defer rep.Close()

	before := okCount.Load()
	stallLong.Store(0)
	killed := time.Now()
	if err := c.Kill(primary); err != nil {
		t.Fatal(err)
	}
	until(t, time.Minute, "the replica promoted", func() bool {
		role, err := rep.Do(ctx, "ROLE").Slice()
		return err == nil && len(role) > 0 && role[0] == "master"
	})
	promoted := time.Now()
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.Restart(rctx, primary); err != nil {
		t.Fatal(err)
	}
	old := redis.NewClient(&redis.Options{Addr: primary})
	defer old.Close()
	until(t, time.Minute, "the killed node back as a linked replica", func() bool {
		role, err := old.Do(ctx, "ROLE").Slice()
		return err == nil && len(role) > 3 && role[0] == "slave" && role[3] == "connected"
	})
	rejoined := time.Now()
	// Play goes on past the failover: every table answered again.
	for i := range tables {
		until(t, time.Minute, fmt.Sprintf("table %s played after the failover", ids[i]), func() bool {
			return lastOK[i].Load() > rejoined.UnixNano()
		})
	}
	atLeast(okCount.Load()+100, "100 more actions after the failover")
	stopPlay()
	wg.Wait()
	for _, err := range failures {
		t.Error(err)
	}

	inFlight, ok := 0, 0
	for i, id := range ids {
		l, err := srv.GetLog(ctx, &rulesv1.GetLogRequest{TableId: id})
		if err != nil {
			t.Fatalf("log of %s: %v", id, err)
		}
		if err := auditLog(l.GetEntries(), answers[i]); err != nil {
			t.Errorf("table %s: %v", id, err)
		}
		for _, a := range answers[i] {
			if a.sent.Before(killed) && a.done.After(killed) {
				inFlight++
			}
			if a.code == codes.OK {
				ok++
			}
		}
	}
	t.Logf("%d tables, %d actions answered OK (%d before the kill), %d Acts in flight at the kill, %d attempts answered UNAVAILABLE and sent again; "+
		"replica promoted %v after the kill, killed node a linked replica again %v after it; longest a table waited for an answered Act after the kill %v",
		tables, ok, before, inFlight, retried.Load(), promoted.Sub(killed).Round(time.Millisecond), rejoined.Sub(killed).Round(time.Millisecond),
		time.Duration(stallLong.Load()).Round(time.Millisecond))
	if inFlight == 0 {
		t.Error("no Act was in flight at the kill: the test proves nothing about writes in flight")
	}
	if !t.Failed() {
		t.Log("audit: every action answered OK is in its table's log once, at its version, and no other: 0 lost, 0 doubled")
	}
}

// play plays table id's seats in turn, each with its first legal action, until ctx ends (or the
// game does), reporting each Act's final answer. An Act answered UNAVAILABLE is sent again with the
// same action id (counted in retried), as a client would; an Act interrupted by ctx's end is not
// reported (its outcome is unknown to the player, as to a client that went away).
func play(ctx context.Context, srv *rules.Server, id string, seats int, report func(string, answered), retried *atomic.Int64) error {
	for ctx.Err() == nil {
		for seat := range seats {
			var legal *rulesv1.ListLegalActionsResponse
			err := untilAvailable(ctx, retried, func() (err error) {
				legal, err = srv.ListLegalActions(ctx, &rulesv1.ListLegalActionsRequest{TableId: id, Seat: uint32(seat)})
				return err
			})
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return fmt.Errorf("legal actions: %w", err)
			}
			if len(legal.GetActions()) == 0 {
				continue
			}
			v := legal.GetVersion()
			req := &rulesv1.ActRequest{TableId: id, Seat: uint32(seat), Action: legal.GetActions()[0], ActionId: randomID(), ExpectedVersion: &v}
			a := answered{sent: time.Now()}
			var resp *rulesv1.ActResponse
			err = untilAvailable(ctx, retried, func() (err error) {
				resp, err = srv.Act(ctx, req)
				return err
			})
			if ctx.Err() != nil {
				return nil
			}
			a.done, a.code, a.version = time.Now(), status.Code(err), resp.GetVersion()
			report(req.GetActionId(), a)
			switch a.code {
			case codes.OK, codes.Aborted, codes.FailedPrecondition:
			default:
				return fmt.Errorf("act: %w", err)
			}
			if resp.GetFinished() {
				return nil
			}
		}
	}
	return nil
}

// untilAvailable calls fn again while it is answered UNAVAILABLE, 20 ms apart, for up to 30 s.
func untilAvailable(ctx context.Context, retried *atomic.Int64, fn func() error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := fn()
		if status.Code(err) != codes.Unavailable || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		retried.Add(1)
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// auditLog checks a table's log (its entries from version 1) against the answers its players
// were given.
func auditLog(entries []*rulesv1.LogEntry, answers map[string]answered) error {
	if len(entries) == 0 {
		return fmt.Errorf("an empty log")
	}
	at := map[string][]uint64{}
	for i, e := range entries {
		if e.GetVersion() != uint64(i+1) {
			return fmt.Errorf("log entry %d has version %d: an action lost or applied twice", i, e.GetVersion())
		}
		if id := e.GetActionId(); id != "" {
			at[id] = append(at[id], e.GetVersion())
		}
	}
	for id, a := range answers {
		vs := at[id]
		switch {
		case a.code == codes.OK && len(vs) != 1:
			return fmt.Errorf("action %s answered OK at version %d is in the log %d times (%v): lost or doubled", id, a.version, len(vs), vs)
		case a.code == codes.OK && vs[0] != a.version:
			return fmt.Errorf("action %s answered OK at version %d is in the log at version %d", id, a.version, vs[0])
		case a.code != codes.OK && len(vs) > 0:
			return fmt.Errorf("action %s answered %s is in the log at %v", id, a.code, vs)
		}
	}
	for id, vs := range at {
		if _, ok := answers[id]; !ok && !slices.Equal(vs, []uint64{entries[len(entries)-1].GetVersion()}) {
			// The one action a player may not have been told of is its last, cut short by the
			// test's end.
			return fmt.Errorf("log versions %v carry action %s, which no player was answered", vs, id)
		}
	}
	return nil
}

// slotOfTable is the cluster slot of table id's keys (all in one slot: the store's shard).
func slotOfTable(t *testing.T, ctx context.Context, cc *redis.ClusterClient, id string) int64 {
	t.Helper()
	var (
		mu   sync.Mutex
		keys []string
	)
	_ = cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		k, err := n.Keys(ctx, "*t:"+id).Result()
		mu.Lock()
		keys = append(keys, k...)
		mu.Unlock()
		return err
	})
	if len(keys) == 0 {
		t.Fatalf("no key of table %s", id)
	}
	slot, err := cc.ClusterKeySlot(ctx, keys[0]).Result()
	if err != nil {
		t.Fatal(err)
	}
	return slot
}

// until checks ok every 20 ms until it holds, or fails the test after d.
func until(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(d)
	for !ok() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: not after %v", what, d)
		}
	}
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// TestAuditLog: the failover test's audit fails on an answered action lost, doubled or at another
// version, on a refused action applied, and on an action nobody was answered for.
func TestAuditLog(t *testing.T) {
	ok := func(v uint64) answered { return answered{code: codes.OK, version: v} }
	entry := func(v uint64, id string) *rulesv1.LogEntry { return &rulesv1.LogEntry{Version: v, ActionId: id} }
	for _, c := range []struct {
		name    string
		entries []*rulesv1.LogEntry
		answers map[string]answered
		bad     bool
	}{
		{"whole", []*rulesv1.LogEntry{entry(1, "a"), entry(2, "b")}, map[string]answered{"a": ok(1), "b": ok(2), "c": {code: codes.Aborted}}, false},
		{"the last, unanswered", []*rulesv1.LogEntry{entry(1, "a"), entry(2, "b")}, map[string]answered{"a": ok(1)}, false},
		{"lost", []*rulesv1.LogEntry{entry(1, "a")}, map[string]answered{"a": ok(1), "b": ok(2)}, true},
		{"doubled", []*rulesv1.LogEntry{entry(1, "a"), entry(2, "a")}, map[string]answered{"a": ok(1)}, true},
		{"elsewhere", []*rulesv1.LogEntry{entry(1, "b"), entry(2, "a")}, map[string]answered{"a": ok(1), "b": ok(2)}, true},
		{"refused yet applied", []*rulesv1.LogEntry{entry(1, "a"), entry(2, "b")}, map[string]answered{"a": {code: codes.Unavailable}, "b": ok(2)}, true},
		{"a gap", []*rulesv1.LogEntry{entry(1, "a"), entry(3, "b")}, map[string]answered{"a": ok(1), "b": ok(3)}, true},
		{"unknown", []*rulesv1.LogEntry{entry(1, "x"), entry(2, "b")}, map[string]answered{"b": ok(2)}, true},
	} {
		if err := auditLog(c.entries, c.answers); (err != nil) != c.bad {
			t.Errorf("%s: %v, want an error: %v", c.name, err, c.bad)
		}
	}
}
