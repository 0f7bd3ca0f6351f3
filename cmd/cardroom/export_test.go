package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cardroom.dev/cmd/cardroom/internal/export"
	"cardroom.dev/cmd/cardroom/internal/export/duckdbtest"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/stats"
	"cardroom.dev/services/stats/storetest"
)

// TestEventsExport plays 1,000 seeded games of the four games through the real event stream (an
// embedded NATS server), exports the stream with `cardroom events export` in two runs (the second
// continues where the first stopped, while more games were published), and reads the Parquet
// files back with DuckDB: every message is there once, and the per-game counts, seat advantage,
// options and every player's games and wins equal what the stats service's consumer made of the
// same stream. The queries of docs/events.md then run verbatim on the export.
func TestEventsExport(t *testing.T) {
	db := duckdbtest.Open(t)
	ctx := t.Context()
	quiet := slog.New(slog.DiscardHandler)
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	b, err := bus.Connect(ctx, ns.URL(), "export-test", bus.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)

	w := gamesPool.NewWorkload(41, storetest.WorkloadOptions{Games: 1000, Players: 150, GameEvents: 1 << 20})
	half := len(w.Msgs) / 2
	publish := func(msgs []bus.Message) {
		for i := 0; i < len(msgs); i += 1000 {
			if err := b.Publish(ctx, msgs[i:min(i+1000, len(msgs))]); err != nil {
				t.Fatal(err)
			}
		}
	}

	// The stats service's consumer reads the same stream.
	st := stats.NewMemory()
	prog := newPositions()
	agg := statsAggregator()
	cons := stats.NewConsumer(b, st, stats.ConsumerOptions{Logger: quiet, AfterApply: prog.hook, Aggregator: &agg})
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cons.Run(cctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stats consumer: %v", err)
		}
	})

	root := t.TempDir()
	dir := filepath.Join(root, "cardroom-events")
	exportRun := func(want string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := run(ctx, []string{"events", "export", "--dir", dir, "--nats-url", ns.URL(), "--log-level", "warn"}, &out, &errOut)
		if code != 0 || !strings.Contains(out.String(), want) {
			t.Fatalf("export: exit %d, output %q, stderr %q; want %q", code, out.String(), errOut.String(), want)
		}
		t.Log(strings.TrimSpace(out.String()))
	}
	publish(w.Msgs[:half])
	exportRun(fmt.Sprintf("sequences 1 to %d: %d messages", half, half))
	publish(w.Msgs[half:])
	exportRun(fmt.Sprintf("sequences %d to %d: %d messages", half+1, len(w.Msgs), len(w.Msgs)-half))
	exportRun(fmt.Sprintf("nothing new on stream CARDROOM from sequence %d", len(w.Msgs)+1))
	// A few TableFinished published again after the stream's de-duplication window (new message
	// ids), as the rules services' outbox may: the stats service counts each game once, and so do
	// docs/events.md's views.
	var again []bus.Message
	for i := len(w.Msgs) - 1; i >= 0 && len(again) < 3; i-- {
		if m := w.Msgs[i]; strings.Contains(string(m.Data), "TableFinished") {
			m.ID += ":republished"
			again = append(again, m)
		}
	}
	publish(again)
	exportRun(fmt.Sprintf("sequences %d to %d: 3 messages", len(w.Msgs)+1, len(w.Msgs)+3))
	published := append(slices.Clone(w.Msgs), again...)
	prog.wait(t, uint64(len(published)), 2*time.Minute)

	// Every message once: per table, as many rows as messages published, each stream sequence
	// once, the table's event sequences from 1.
	perTable, perTableSeqs := map[string]int{}, map[string]map[string]bool{}
	for _, m := range published {
		parts := strings.Split(m.ID, ":")
		perTable[parts[0]]++
		if perTableSeqs[parts[0]] == nil {
			perTableSeqs[parts[0]] = map[string]bool{}
		}
		perTableSeqs[parts[0]][parts[1]] = true
	}
	views := docQueries(t)[:3] // CREATE VIEW created, finished, seats
	res, err := db.Query(root, append(views,
		`SELECT table_id, count(*) AS n, count(DISTINCT stream_seq) AS distinct_msgs, count(DISTINCT sequence) AS distinct_seqs, min(sequence) AS lo
		 FROM read_parquet('cardroom-events/*/*/part-*.parquet', union_by_name = true)
		 WHERE kind <> 'seat_result' GROUP BY table_id`,
		`SELECT game, count(*) FILTER (WHERE NOT aborted) AS finished, count(*) FILTER (WHERE aborted) AS aborted
		 FROM finished GROUP BY game`,
		`SELECT game, count(*) AS created FROM created GROUP BY game`,
		`SELECT game, players, seat, count(*) AS games, count(*) FILTER (WHERE winner) AS wins
		 FROM seats WHERE NOT aborted GROUP BY ALL`,
		`SELECT game, player_id, count(*) FILTER (WHERE NOT aborted AND NOT abandoned) AS games,
		        count(*) FILTER (WHERE winner AND NOT abandoned) AS wins, count(*) FILTER (WHERE aborted) AS aborted
		 FROM seats GROUP BY ALL`,
		`SELECT game, o AS option, count(*) AS games
		 FROM (SELECT game, unnest(options) AS o FROM finished WHERE NOT aborted)
		 GROUP BY ALL`,
		`SELECT count(*) AS n FROM read_parquet('cardroom-events/*/*/part-table_finished-*.parquet')`,
	)...)
	if err != nil {
		t.Fatal(err)
	}
	res = res[len(views):]
	t.Logf("read back with DuckDB (%s)", db.Name())

	got := map[string]int{}
	for _, r := range res[0] {
		n := atoi(t, r["n"])
		if r["distinct_msgs"] != r["n"] || atoi(t, r["distinct_seqs"]) != len(perTableSeqs[r["table_id"]]) || r["lo"] != "1" {
			t.Errorf("table %s: %v", r["table_id"], r)
		}
		got[r["table_id"]] = n
	}
	if !maps.Equal(got, perTable) {
		t.Errorf("events per table: %d tables exported, %d published", len(got), len(perTable))
		for id, n := range perTable {
			if got[id] != n {
				t.Errorf("table %s: %d rows, %d messages", id, got[id], n)
				break
			}
		}
	}
	if raw, want := atoi(t, res[6][0]["n"]), len(w.Tables)-countInPlay(w)+len(again); raw != want {
		t.Errorf("%d table_finished rows, want %d (3 republished)", raw, want)
	}

	srv := stats.NewServer(st, quiet)
	games, err := st.Games(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 4 {
		t.Fatalf("stats has games %v", games)
	}
	// The stats service's figures, in the rows DuckDB gives.
	var wantCounts, wantCreated, wantSeats, wantOptions []string
	for _, g := range games {
		resp, err := srv.GetGameStats(ctx, &statsv1.GetGameStatsRequest{Game: g})
		if err != nil {
			t.Fatal(err)
		}
		gs := resp.GetStats()
		wantCounts = append(wantCounts, fmt.Sprintf("%s finished=%d aborted=%d", g, gs.GetGamesFinished(), gs.GetGamesAborted()))
		wantCreated = append(wantCreated, fmt.Sprintf("%s created=%d", g, gs.GetTablesCreated()))
		for _, sp := range gs.GetSeatPositions() {
			wantSeats = append(wantSeats, fmt.Sprintf("%s %d-seat seat %d: %d games %d wins", g, sp.GetPlayerCount(), sp.GetSeat(), sp.GetGames(), sp.GetWins()))
		}
		for _, o := range gs.GetOptions() {
			wantOptions = append(wantOptions, fmt.Sprintf("%s %s=%s: %d", g, o.GetOption(), o.GetValue(), o.GetGames()))
		}
	}
	var gotCounts, gotCreated, gotSeats, gotOptions []string
	for _, r := range res[1] {
		gotCounts = append(gotCounts, fmt.Sprintf("%s finished=%s aborted=%s", r["game"], r["finished"], r["aborted"]))
	}
	for _, r := range res[2] {
		gotCreated = append(gotCreated, fmt.Sprintf("%s created=%s", r["game"], r["created"]))
	}
	for _, r := range res[3] {
		gotSeats = append(gotSeats, fmt.Sprintf("%s %s-seat seat %s: %s games %s wins", r["game"], r["players"], r["seat"], r["games"], r["wins"]))
	}
	for _, r := range res[5] {
		gotOptions = append(gotOptions, fmt.Sprintf("%s %s: %s", r["game"], r["option"], r["games"]))
	}
	sameSet(t, "tables finished and aborted per game", gotCounts, wantCounts)
	sameSet(t, "tables created per game", gotCreated, wantCreated)
	sameSet(t, "seat advantage (games and wins per seat and table size)", gotSeats, wantSeats)
	sameSet(t, "options of finished games", gotOptions, wantOptions)
	var total int
	for _, r := range res[1] {
		total += atoi(t, r["finished"])
	}
	if total < 1000 {
		t.Errorf("%d finished games exported, want at least 1,000", total)
	}

	// Every player's games and wins.
	players := map[string][]duckdbtest.Row{}
	for _, r := range res[4] {
		players[r["player_id"]] = append(players[r["player_id"]], r)
	}
	if len(players) < 100 {
		t.Fatalf("%d players", len(players))
	}
	for p, rows := range players {
		recs, err := st.PlayerRecords(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, r := range recs {
			want = append(want, fmt.Sprintf("%s games=%d wins=%d aborted=%d", r.GetGame(), r.GetGames(), r.GetWins(), r.GetAborted()))
		}
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%s games=%s wins=%s aborted=%s", r["game"], r["games"], r["wins"], r["aborted"]))
		}
		sameSet(t, "player "+p, got, want)
	}

	// docs/events.md's queries, verbatim (a block's statements one by one), in the directory its examples start in.
	queries := docQueries(t)
	res, err = db.Query(root, queries...)
	if err != nil {
		t.Fatalf("docs/events.md: %v", err)
	}
	for i, rows := range res {
		if strings.HasPrefix(strings.TrimSpace(queries[i]), "SELECT") && len(rows) == 0 {
			t.Errorf("docs/events.md query %d gives no rows:\n%s", i+1, queries[i])
		}
	}
}

// countInPlay is how many of w's tables are left in play (no TableFinished).
func countInPlay(w *storetest.Workload) int {
	n := 0
	for _, t := range w.Tables {
		if t.Finished == nil {
			n++
		}
	}
	return n
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: DuckDB gives\n  %s\nthe stats service\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// docQueries are the SQL blocks of docs/events.md, in order.
func docQueries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		// A block may hold several statements, each ending a line with ";".
		for _, st := range regexp.MustCompile(`;\s*\n`).Split(m[1], -1) {
			if st = strings.TrimSpace(st); st != "" {
				out = append(out, strings.TrimSuffix(st, ";")+";")
			}
		}
	}
	if len(out) < 8 {
		t.Fatalf("docs/events.md has %d SQL blocks", len(out))
	}
	return out
}

// positions follows the stats consumer's position through its AfterApply hook.
type positions struct {
	mu      sync.Mutex
	pos     uint64
	changed chan struct{}
}

func newPositions() *positions { return &positions{changed: make(chan struct{})} }

func (p *positions) hook(_ context.Context, pos uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pos = pos
	close(p.changed)
	p.changed = make(chan struct{})
	return nil
}

func (p *positions) wait(t *testing.T, target uint64, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		p.mu.Lock()
		pos, ch := p.pos, p.changed
		p.mu.Unlock()
		if pos >= target {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("stats consumer at %d after %v, want %d", pos, d, target)
		}
	}
}

// BenchmarkEventsExport measures the export from messages already fetched from the stream to
// Parquet files on disk (decoding, rows, Parquet encoding with snappy, the commit's fsyncs and
// renames): the events of 1,000 seeded games of the four games (the deal, up to 32 public events of
// each game's moves, the end), exported into a new directory per iteration. Run it on one core:
//
//	go test -run '^$' -bench EventsExport -cpu 1 -benchtime 10x ./cmd/cardroom
func BenchmarkEventsExport(b *testing.B) {
	w := gamesPool.NewWorkload(41, storetest.WorkloadOptions{Games: 1000, Players: 150, GameEvents: 1 << 20})
	msgs := make([]export.Message, len(w.Msgs))
	for i, m := range w.Msgs {
		msgs[i] = export.Message{Seq: uint64(i + 1), Subject: m.Subject, Data: m.Data}
	}
	root := b.TempDir()
	b.ReportAllocs()
	var commit time.Duration
	cpu0 := cpuTime(b)
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		wr, _, err := export.Open(filepath.Join(root, strconv.Itoa(i)), "CARDROOM")
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range msgs {
			if err := wr.Add(m); err != nil {
				b.Fatal(err)
			}
		}
		c0 := time.Now()
		if err := wr.Commit(); err != nil {
			b.Fatal(err)
		}
		commit += time.Since(c0)
		if st := wr.State(); st.Messages != uint64(len(msgs)) || st.Skipped != 0 {
			b.Fatalf("state %+v after %d messages", st, len(msgs))
		}
	}
	elapsed, cpu := time.Since(start), cpuTime(b)-cpu0
	events := float64(b.N * len(msgs))
	b.ReportMetric(events/elapsed.Seconds(), "events/s")
	b.ReportMetric(events/cpu.Seconds(), "events/cpu-s")
	b.ReportMetric(commit.Seconds()/float64(b.N), "commit-s/op")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestEventsExportUsage: a bad command line exits with 2 and says what is wrong, before any
// connection.
func TestEventsExportUsage(t *testing.T) {
	env := func(string) string { return "" }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"events"}, "usage: cardroom events export"},
		{[]string{"events", "import"}, "usage: cardroom events export"},
		{[]string{"events", "export", "--nats-url", "nats://127.0.0.1:1"}, "--dir is required"},
		{[]string{"events", "export", "--dir", "x"}, "set --nats-url"},
		{[]string{"events", "export", "--dir", "x", "--nats-url", "nats://127.0.0.1:1", "--since", "yesterday"}, "neither an RFC 3339 time nor a positive duration"},
		{[]string{"events", "export", "--dir=x", "--nats-url", "nats://127.0.0.1:1", "--since=24h", "--from-seq", "3"}, "not both"},
		{[]string{"events", "export", "--dir", "x", "--batch", "many"}, "invalid value"},
	} {
		var out, errOut bytes.Buffer
		if code := eventsCommand(t.Context(), tc.args[1:], env, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-12-01T00:00:00Z": time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"36h":                  now.Add(-36 * time.Hour),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("since %q: %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseSince("-5m", now); err == nil {
		t.Error("a negative duration accepted")
	}
}
