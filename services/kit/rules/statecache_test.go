package rules_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func replica(st store.Store, retain time.Duration) *rules.Server {
	now := func() time.Time { return time.UnixMilli(1_800_000_000_000) }
	return rules.New(highcard.Engine("highcard"), st, nil, rules.Options{Now: now, Retain: retain})
}

type step struct {
	replica int // which server sends it
	seat    uint32
	action  string
	id      string
}

// play sends steps to servers and returns each reply (or error) as text, and the table's log.
func play(t *testing.T, servers []*rules.Server, table string, steps []step) ([]string, *rulesv1.GetLogResponse) {
	t.Helper()
	ctx := context.Background()
	if _, err := servers[0].CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: table, Config: tableConfig(3, 3, 0)}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range steps {
		resp, err := servers[s.replica].Act(ctx, &rulesv1.ActRequest{TableId: table, Seat: s.seat, Action: act(s.action), ActionId: s.id})
		if err != nil {
			code, rule := violation(err)
			out = append(out, fmt.Sprintf("error %v %s", code, rule))
			continue
		}
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
		out = append(out, fmt.Sprintf("%x", b))
	}
	log, err := servers[0].GetLog(ctx, &rulesv1.GetLogRequest{TableId: table})
	if err != nil {
		t.Fatal(err)
	}
	return out, log
}

// TestReplicasShareTables plays one table through two replicas of one store, each keeping the
// states it committed, with refusals and retries between them: every reply and the log are those
// of the same game played on a single replica.
func TestReplicasShareTables(t *testing.T) {
	steps := []step{
		{0, 0, "reveal", "a1"}, {0, 1, "pass", "a2"}, {1, 2, "reveal", "a3"}, // round 1 on replicas 0, 0, 1
		{0, 0, "pass", "a4"}, // replica 0 kept version 2; the table is at 3
		{1, 0, "pass", "a4"}, // a retry on the other replica
		{1, 2, "pass", "a5"}, // out of turn: refused
		{1, 1, "reveal", "a6"}, {1, 2, "pass", "a7"}, {0, 0, "reveal", "a8"},
		{0, 0, "reveal", "a8"},  // a retry on the same replica
		{0, 1, "reveal", "a1"},  // an action id another seat used
		{1, 1, "reveal", "a9"},  // replica 1 kept an older version
		{1, 2, "reveal", "a10"}, // finishes the game
		{0, 0, "pass", "a11"},   // game over
	}
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		got, gotLog := play(t, []*rules.Server{replica(st, time.Hour), replica(st, time.Hour)}, "shared", steps)
		mem := store.NewMemory()
		want, wantLog := play(t, []*rules.Server{replica(mem, time.Hour), replica(mem, time.Hour)}, "shared", onOneReplica(steps))
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("step %d: %s, want %s", i, got[i], want[i])
			}
		}
		if !proto.Equal(gotLog, wantLog) {
			t.Fatalf("logs differ:\n%v\n%v", gotLog, wantLog)
		}
		if !gotLog.GetTable().GetFinished() || len(gotLog.GetEntries()) != 9 {
			t.Fatalf("log: %v", gotLog)
		}
	})
}

func onOneReplica(steps []step) []step {
	out := make([]step, len(steps))
	for i, s := range steps {
		s.replica = 0
		out[i] = s
	}
	return out
}

// TestReusedTableID has a replica keep a table's state at version 1 while another replica finishes
// the table, which expires and is dealt again under the same id with another seed and brought to
// version 1: the first replica must not play the old state.
func TestReusedTableID(t *testing.T) {
	rulestest.Stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		a, b := replica(st, time.Millisecond), replica(st, time.Millisecond)
		deal := func(srv *rules.Server, seed uint64) {
			cfg := tableConfig(3, 1, 0)
			cfg.Seed = seed
			if _, err := srv.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: "again", Config: cfg}); err != nil {
				t.Fatal(err)
			}
		}
		do := func(srv *rules.Server, seat uint32, action, id string) *rulesv1.ActResponse {
			t.Helper()
			resp, err := srv.Act(ctx, &rulesv1.ActRequest{TableId: "again", Seat: seat, Action: act(action), ActionId: id})
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			return resp
		}
		reveal := func(resp *rulesv1.ActResponse) string {
			var s wrapperspb.StringValue
			if err := resp.GetEvents()[0].GetPayload().UnmarshalTo(&s); err != nil {
				t.Fatal(err)
			}
			return s.GetValue()
		}
		deal(a, 1)
		do(a, 0, "pass", "1")
		old := reveal(do(b, 1, "reveal", "2")) // a keeps version 1 of the first deal
		do(b, 2, "pass", "3")                  // finished: expires after a millisecond
		for {
			time.Sleep(5 * time.Millisecond)
			if _, _, err := st.Load(ctx, "again", ""); err == store.ErrNotFound {
				break
			}
		}
		deal(b, 2)
		do(b, 0, "pass", "4")
		got := reveal(do(a, 1, "reveal", "5"))
		// Seat 1's card in the second deal, on a replica that never saw the first.
		fresh := replica(store.NewMemory(), time.Hour)
		deal(fresh, 2)
		do(fresh, 0, "pass", "4")
		want := reveal(do(fresh, 1, "reveal", "5"))
		if old == want {
			t.Fatalf("the two deals give seat 1 the same card (%s): pick other seeds", old)
		}
		if got != want {
			t.Fatalf("replica a played %q, want %q", got, want)
		}
	})
}
