package rules_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// countingStore counts the calls a server makes to its store.
type countingStore struct {
	store.Store
	loads, commits, conflicts atomic.Int64
}

func (c *countingStore) Load(ctx context.Context, id, actionID string) (store.Table, *store.Entry, error) {
	c.loads.Add(1)
	return c.Store.Load(ctx, id, actionID)
}

func (c *countingStore) Commit(ctx context.Context, cm store.Commit) error {
	c.commits.Add(1)
	err := c.Store.Commit(ctx, cm)
	if errors.Is(err, store.ErrConflict) {
		c.conflicts.Add(1)
	}
	return err
}

var (
	keptMetricsOnce sync.Once
	keptMetrics     *sdkmetric.ManualReader
)

// metricReader makes the global meter provider one the tests can read (once: servers made
// afterwards record there; earlier ones too, through the global delegate).
func metricReader() *sdkmetric.ManualReader {
	keptMetricsOnce.Do(func() {
		keptMetrics = sdkmetric.NewManualReader()
		otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(keptMetrics)))
	})
	return keptMetrics
}

// keptCounts reads cardroom.rules.kept_state_acts of game by result.
func keptCounts(t *testing.T, game string) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := metricReader().Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if m.Name != "cardroom.rules.kept_state_acts" || !ok {
				continue
			}
			for _, p := range sum.DataPoints {
				if g, _ := p.Attributes.Value("game"); g != attribute.StringValue(game) {
					continue
				}
				r, _ := p.Attributes.Value("result")
				out[r.AsString()] += p.Value
			}
		}
	}
	return out
}

// gameReplica is a server of highcard named game on st, with the fixed clock of replica.
func gameReplica(st store.Store, game string) *rules.Server {
	now := func() time.Time { return time.UnixMilli(1_800_000_000_000) }
	return rules.New(highcard.Engine(game), st, nil, rules.Options{Now: now, Retain: time.Hour})
}

func gameConfig(game string, seats int, rounds uint32) *gamev1.TableConfig {
	cfg := tableConfig(seats, rounds, 0)
	cfg.Game = game
	return cfg
}

// answer is a reply as comparable text: the deterministic encoding of the response, or of the
// status (code, message and details).
func answer(resp *rulesv1.ActResponse, err error) string {
	if err != nil {
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(status.Convert(err).Proto())
		return fmt.Sprintf("error %x", b)
	}
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
	return fmt.Sprintf("%x", b)
}

// TestKeptStateOneRoundTrip plays a whole game on one replica: from the creation on (which keeps
// the state it wrote), every action is one commit and no load, and every answer — legal
// actions, expected versions and the finishing move included — is the one a replica without kept
// states gives.
func TestKeptStateOneRoundTrip(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		game := "kept-hot-" + t.Name()[len(t.Name())-5:]
		before := keptCounts(t, game)
		cs := &countingStore{Store: st}
		srv := gameReplica(cs, game)
		ref := store.NewMemory() // each action on a new replica: the load path every time
		cfg := gameConfig(game, 2, 4)
		for _, s := range []*rules.Server{srv, gameReplica(ref, game)} {
			if _, err := s.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: "hot", Config: cfg}); err != nil {
				t.Fatal(err)
			}
		}
		const acts = 8 // 4 rounds of 2 seats: the last finishes the game
		reqs := make([]*rulesv1.ActRequest, acts)
		got := make([]string, acts)
		for i := range acts {
			reqs[i] = &rulesv1.ActRequest{TableId: "hot", Seat: uint32(i % 2), Action: act([]string{"reveal", "pass"}[i/2%2]),
				ActionId: fmt.Sprint("a", i), IncludeLegalActions: i%3 != 2}
			if i%2 == 1 {
				reqs[i].ExpectedVersion = proto.Uint64(uint64(i))
			}
			got[i] = answer(srv.Act(ctx, reqs[i]))
			if loads := cs.loads.Load(); loads != 0 {
				t.Fatalf("after action %d: %d loads, want none", i, loads)
			}
			if commits := cs.commits.Load(); commits != int64(i+1) {
				t.Fatalf("after action %d: %d commits", i, commits)
			}
		}
		after := keptCounts(t, game)
		if hits, misses := after["hit"]-before["hit"], after["miss"]-before["miss"]; hits != acts || misses != 0 || after["fallback"] != before["fallback"] {
			t.Fatalf("kept-state results %v, before %v; want %d hits", after, before, acts)
		}
		for i, r := range reqs {
			if want := answer(gameReplica(ref, game).Act(ctx, r)); got[i] != want {
				t.Fatalf("action %d: %s, want %s", i, got[i], want)
			}
		}
	})
}

// TestKeptStateReplicasAlternate has two replicas over one store take turns, one action or several,
// at one table: each falls back to loading when the other moved the table on, and the replies and
// the log are those of the same game on one replica, with every action applied once, in order.
func TestKeptStateReplicasAlternate(t *testing.T) {
	var steps []step
	for i, r := range []int{0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1} { // 4 rounds of 3 seats
		steps = append(steps, step{r, uint32(i % 3), []string{"reveal", "pass"}[i%2], fmt.Sprint("x", i)})
	}
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		game := "kept-alt-" + t.Name()[len(t.Name())-5:]
		before := keptCounts(t, game)
		cs := &countingStore{Store: st}
		servers := []*rules.Server{gameReplica(cs, game), gameReplica(cs, game)}
		got, gotLog := playGame(t, servers, game, steps)
		after := keptCounts(t, game)
		mem := store.NewMemory()
		want, wantLog := playGame(t, []*rules.Server{gameReplica(mem, game)}, game, onOneReplica(steps))
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("step %d: %s, want %s", i, got[i], want[i])
			}
		}
		if !proto.Equal(gotLog, wantLog) {
			t.Fatalf("logs differ:\n%v\n%v", gotLog, wantLog)
		}
		if !gotLog.GetTable().GetFinished() || len(gotLog.GetEntries()) != len(steps) {
			t.Fatalf("log: %v", gotLog)
		}
		for i, e := range gotLog.GetEntries() {
			if e.GetVersion() != uint64(i+1) || e.GetActionId() != steps[i].id {
				t.Fatalf("entry %d: version %d, action %s", i, e.GetVersion(), e.GetActionId())
			}
		}
		hits, misses, fallbacks := after["hit"]-before["hit"], after["miss"]-before["miss"], after["fallback"]-before["fallback"]
		// Replica 1's first action loads (1 miss); replica 0 created the table and kept its state. A
		// replica whose creation or last action made the table's latest version commits from its
		// kept state (steps 0, 5, 6, 8 and 11); one the other replica overtook loads instead (the
		// other 6), after its kept state refused the action (another seat was on turn there) or its
		// commit conflicted.
		if hits != 5 || misses != 1 || fallbacks != 6 || cs.conflicts.Load() == 0 {
			t.Fatalf("hits %d, misses %d, fallbacks %d, conflicts %d", hits, misses, fallbacks, cs.conflicts.Load())
		}
	})
}

// playGame is play for a table of game: it sends steps to servers and returns each reply as text,
// and the table's log.
func playGame(t *testing.T, servers []*rules.Server, game string, steps []step) ([]string, *rulesv1.GetLogResponse) {
	t.Helper()
	ctx := context.Background()
	if _, err := servers[0].CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: "shared", Config: gameConfig(game, 3, 4)}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range steps {
		out = append(out, answer(servers[s.replica].Act(ctx, &rulesv1.ActRequest{TableId: "shared", Seat: s.seat, Action: act(s.action), ActionId: s.id})))
	}
	log, err := servers[0].GetLog(ctx, &rulesv1.GetLogRequest{TableId: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	return out, log
}

// TestKeptStateRetry retries action ids after commits from the kept state: a retry the kept state
// refuses (out of turn) and one it would accept (the seat is on turn again) are both answered
// replayed, with the version they made, and nothing is applied twice.
func TestKeptStateRetry(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		cs := &countingStore{Store: st}
		srv := gameReplica(cs, "highcard")
		if _, err := srv.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: "retry", Config: tableConfig(2, 3, 0)}); err != nil {
			t.Fatal(err)
		}
		do := func(seat uint32, action, id string) *rulesv1.ActResponse {
			t.Helper()
			resp, err := srv.Act(ctx, &rulesv1.ActRequest{TableId: "retry", Seat: seat, Action: act(action), ActionId: id})
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			return resp
		}
		do(0, "reveal", "r1") // from the state the creation kept
		first := do(1, "pass", "r2")
		if first.GetReplayed() || first.GetVersion() != 2 || cs.loads.Load() != 0 {
			t.Fatalf("r2 from the kept state: %v, %d loads", first, cs.loads.Load())
		}
		// r2 again: seat 0 is on turn, so the kept state refuses it; the log answers.
		again := do(1, "pass", "r2")
		if !again.GetReplayed() || again.GetVersion() != 2 {
			t.Fatalf("retry of r2: %v", again)
		}
		do(0, "pass", "r3")
		do(1, "reveal", "r4") // kept at version 4, seat 0 on turn
		// r3 again: seat 0 is on turn, so the kept state accepts it; the commit finds the id applied.
		replayed := do(0, "pass", "r3")
		if !replayed.GetReplayed() || replayed.GetVersion() != 3 {
			t.Fatalf("retry of r3: %v", replayed)
		}
		if next := do(0, "reveal", "r5"); next.GetReplayed() || next.GetVersion() != 5 {
			t.Fatalf("r5: %v", next)
		}
		log, err := srv.GetLog(ctx, &rulesv1.GetLogRequest{TableId: "retry"})
		if err != nil || len(log.GetEntries()) != 5 {
			t.Fatalf("log: %v, %d entries, want 5", err, len(log.GetEntries()))
		}
	})
}

// TestKeptStateJudgesAgainstStore sends replica a, which keeps a table at version 1, actions after
// replica b moved the table to version 2: one legal only at version 2 is accepted and one legal only
// at version 1 refused, as on a replica that keeps nothing; the refused one writes nothing.
func TestKeptStateJudgesAgainstStore(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		a, b := gameReplica(st, "highcard"), gameReplica(st, "highcard")
		mem := store.NewMemory()
		for _, tc := range []struct {
			table string
			seat  uint32
		}{
			{"legal-now", 2},    // on turn at version 2; out of turn at the kept version 1
			{"legal-before", 1}, // on turn at the kept version 1; out of turn at version 2
		} {
			setupStale(t, a, b, tc.table)
			setupStale(t, gameReplica(mem, "highcard"), gameReplica(mem, "highcard"), tc.table)
			req := &rulesv1.ActRequest{TableId: tc.table, Seat: tc.seat, Action: act("reveal"), ActionId: "late"}
			got := answer(a.Act(ctx, req))
			want := answer(gameReplica(mem, "highcard").Act(ctx, req))
			if got != want {
				t.Fatalf("%s: %s, want %s", tc.table, got, want)
			}
			tb, prior, err := st.Load(ctx, tc.table, "late")
			if err != nil {
				t.Fatal(err)
			}
			accepted := tc.seat == 2
			if accepted != (prior != nil) || accepted && tb.Version != 3 || !accepted && tb.Version != 2 {
				t.Fatalf("%s: version %d, applied %v", tc.table, tb.Version, prior != nil)
			}
		}
	})
}

// setupStale creates a 3-seat table through a, whose seat 0 passes there (a keeps version 1), and
// has b pass for seat 1 (version 2, seat 2 on turn).
func setupStale(t *testing.T, a, b *rules.Server, id string) {
	t.Helper()
	ctx := context.Background()
	if _, err := a.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: id, Config: tableConfig(3, 1, 0)}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		srv  *rules.Server
		seat uint32
		id   string
	}{{a, 0, "s0"}, {b, 1, "s1"}} {
		if _, err := s.srv.Act(ctx, &rulesv1.ActRequest{TableId: id, Seat: s.seat, Action: act("pass"), ActionId: s.id}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKeptStateExpectedVersion sends expected versions to a replica that keeps a table: one older
// than the kept version, and the kept one after another replica moved the table on, are answered
// exactly as a replica that keeps nothing answers them; an expected version the kept state cannot
// confirm leaves it kept when the game never saw the action.
func TestKeptStateExpectedVersion(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		cs := &countingStore{Store: st}
		a, b := gameReplica(cs, "highcard"), gameReplica(st, "highcard")
		if _, err := a.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: "ev", Config: tableConfig(3, 2, 0)}); err != nil {
			t.Fatal(err)
		}
		req := func(seat uint32, id string, expected uint64) *rulesv1.ActRequest {
			return &rulesv1.ActRequest{TableId: "ev", Seat: seat, Action: act("pass"), ActionId: id, ExpectedVersion: proto.Uint64(expected)}
		}
		if _, err := a.Act(ctx, req(0, "e0", 0)); err != nil { // a keeps version 1
			t.Fatal(err)
		}
		// Older than the kept version: ABORTED as today, and the state stays kept.
		check := func(r *rulesv1.ActRequest) {
			t.Helper()
			_, err := a.Act(ctx, r)
			if err == nil {
				t.Fatalf("%s accepted", r.GetActionId())
			}
			if got, want := answer(nil, err), answer(gameReplica(st, "highcard").Act(ctx, r)); got != want {
				t.Fatalf("%s: %v, want %s", r.GetActionId(), err, want)
			}
		}
		check(req(1, "e1", 0))
		loads := cs.loads.Load()
		if resp, err := a.Act(ctx, req(1, "e1", 1)); err != nil || resp.GetVersion() != 2 || cs.loads.Load() != loads {
			t.Fatalf("from the kept state after a stale expected version: %v %v, %d loads more", resp, err, cs.loads.Load()-loads)
		}
		// a keeps version 2; b moves the table to 3. The kept version expected: the commit conflicts.
		if _, err := b.Act(ctx, req(2, "e2", 2)); err != nil {
			t.Fatal(err)
		}
		check(req(0, "e3", 2))
		if resp, err := a.Act(ctx, req(0, "e3", 3)); err != nil || resp.GetVersion() != 4 {
			t.Fatalf("at the store's version: %v %v", resp, err)
		}
	})
}
