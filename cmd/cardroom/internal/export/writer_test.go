package export

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"github.com/parquet-go/parquet-go"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// game makes the messages of one Sapotagem table of three seats: TableCreated, moves card
// plays, TableFinished (seat 1 wins), the first at start. The stream sequences are given by the
// caller.
func game(t testing.TB, table string, start time.Time, moves int) [][]byte {
	t.Helper()
	seats := []*gamev1.Seat{
		{Index: 0, Player: &gamev1.PlayerRef{PlayerId: "p1", DisplayName: "Ana", Kind: gamev1.PlayerKind_PLAYER_KIND_HUMAN}},
		{Index: 1, Player: &gamev1.PlayerRef{PlayerId: "bot-1", DisplayName: "Bot", Kind: gamev1.PlayerKind_PLAYER_KIND_BOT, BotLevel: gamev1.BotLevel_BOT_LEVEL_STRONG}},
		{Index: 2, Player: &gamev1.PlayerRef{PlayerId: "p2", DisplayName: "Bo", Kind: gamev1.PlayerKind_PLAYER_KIND_HUMAN}},
	}
	opts, err := anypb.New(&sapotagemv1.Options{WildBomb: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &gamev1.TableConfig{Game: "sapotagem", Seats: seats, Options: opts}
	var out [][]byte
	seq := uint64(0)
	add := func(payload proto.Message, at time.Time) {
		seq++
		a, err := anypb.New(payload)
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.Marshal(&eventsv1.Event{TableId: table, Game: "sapotagem", Sequence: seq, Version: seq - 1,
			Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}, Time: timestamppb.New(at), Payload: a})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	add(&eventsv1.TableCreated{Config: cfg}, start)
	at := start
	for i := range moves {
		at = at.Add(time.Second)
		add(&sapotagemv1.Event{Kind: &sapotagemv1.Event_CardPlayed{CardPlayed: &sapotagemv1.CardPlayed{
			Seat: uint32(i % 3), Card: &sapotagemv1.Card{Colour: sapotagemv1.Colour_COLOUR_RED, Rank: uint32(1 + i%13)}, Owner: uint32(i % 3)}}}, at)
	}
	add(&eventsv1.TableFinished{Config: cfg, Actions: uint64(moves), StartedAt: timestamppb.New(start), FinishedAt: timestamppb.New(at),
		Outcome: &gamev1.Outcome{Results: []*gamev1.SeatResult{
			{Seat: 0, Score: 3, Rank: 2}, {Seat: 1, Score: 9, Rank: 1, Winner: true}, {Seat: 2, Score: 1, Rank: 3}}},
		SeatActions: []*eventsv1.SeatActions{{Seat: 0, Actions: 4, StandIn: 3}, {Seat: 1, Actions: 4}, {Seat: 2, Actions: 4}}}, at)
	return out
}

// stream interleaves games' messages and numbers them from 1.
func stream(t testing.TB, games, moves int) []Message {
	t.Helper()
	start := time.Date(2026, 11, 30, 23, 58, 0, 0, time.UTC) // games cross midnight
	var per [][][]byte
	for g := range games {
		per = append(per, game(t, fmt.Sprintf("t%03d", g), start.Add(time.Duration(g)*time.Second), moves))
	}
	var out []Message
	for i := 0; ; i++ {
		added := false
		for g, msgs := range per {
			if i < len(msgs) {
				out = append(out, Message{Seq: uint64(len(out) + 1), Subject: fmt.Sprintf("cardroom.table.t%03d.public", g), Data: msgs[i]})
				added = true
			}
		}
		if !added {
			return out
		}
	}
}

type key struct {
	TableID   string `parquet:"table_id"`
	Sequence  int64  `parquet:"sequence"`
	StreamSeq int64  `parquet:"stream_seq"`
	Kind      string `parquet:"kind"`
}

// readKeys reads every part file's keys, by kind, and the part files' paths.
func readKeys(t *testing.T, dir string) (map[string][]key, []string) {
	t.Helper()
	out := map[string][]key{}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files = append(files, rel)
		if !strings.HasSuffix(path, ".parquet") || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rows, err := parquet.ReadFile[key](path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, r := range rows {
			out[r.Kind] = append(out[r.Kind], r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, files
}

// checkOnce fails unless dir holds each of msgs' events once, in the right kind.
func checkOnce(t *testing.T, dir string, msgs []Message, games int) {
	t.Helper()
	keys, _ := readKeys(t, dir)
	seen := map[int64]bool{}
	for kind, ks := range keys {
		if kind == KindSeatResult {
			continue
		}
		for _, k := range ks {
			if seen[k.StreamSeq] {
				t.Errorf("stream sequence %d twice", k.StreamSeq)
			}
			seen[k.StreamSeq] = true
		}
	}
	if len(seen) != len(msgs) {
		t.Errorf("%d events exported, %d messages", len(seen), len(msgs))
	}
	if n := len(keys[KindTableCreated]); n != games {
		t.Errorf("%d table_created rows, want %d", n, games)
	}
	if n := len(keys[KindSeatResult]); n != 3*games {
		t.Errorf("%d seat_result rows, want %d", n, 3*games)
	}
}

// TestResume: runs that each export part of the stream, one restarted with overlapping
// messages, give every event once; what the directory holds is where the next run starts.
func TestResume(t *testing.T) {
	msgs := stream(t, 5, 40)
	dir := t.TempDir()
	w, found, err := Open(dir, "CARDROOM")
	if err != nil || found {
		t.Fatalf("open: %v, found %v", err, found)
	}
	for _, m := range msgs[:70] {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if st := w.State(); st.Next != 71 || st.Messages != 70 {
		t.Fatalf("state %+v", st)
	}
	w, found, err = Open(dir, "CARDROOM")
	if err != nil || !found || w.State().Next != 71 {
		t.Fatalf("reopen: %v, found %v, state %+v", err, found, w.State())
	}
	for _, m := range msgs[50:] { // 50..70 again: already exported
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if st := w.State(); st.Next != uint64(len(msgs))+1 || st.Messages != uint64(len(msgs)) || st.Skipped != 0 {
		t.Fatalf("state %+v", st)
	}
	checkOnce(t, dir, msgs, 5)
	if _, _, err := Open(dir, "BLUE"); err == nil {
		t.Error("a directory of stream CARDROOM opened for stream BLUE")
	}
}

// TestCrashedCommit: a commit that died after some of its files were made visible, but before
// the position was recorded, leaves files that the next Open removes; exported again, every event
// is there once.
func TestCrashedCommit(t *testing.T) {
	msgs := stream(t, 4, 30)
	dir := t.TempDir()
	w, _, err := Open(dir, "CARDROOM")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs[:40] {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs[40:] {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	// The crash: every part written and closed, half of them renamed, no state.
	i := 0
	for _, p := range w.parts {
		if err := p.close(); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := os.Rename(p.tmp, p.final); err != nil {
				t.Fatal(err)
			}
		}
		i++
	}
	_, files := readKeys(t, dir)
	if !slices.ContainsFunc(files, func(f string) bool { return strings.Contains(f, fmt.Sprintf("-%020d.parquet", 41)) }) {
		t.Fatalf("no visible file of the crashed commit in %v", files)
	}

	w, _, err = Open(dir, "CARDROOM")
	if err != nil {
		t.Fatal(err)
	}
	if w.State().Next != 41 {
		t.Fatalf("state %+v", w.State())
	}
	_, files = readKeys(t, dir)
	for _, f := range files {
		if strings.Contains(f, ".tmp-part-") || strings.Contains(f, fmt.Sprintf("-%020d.parquet", 41)) {
			t.Errorf("%s left by the crashed commit", f)
		}
	}
	for _, m := range msgs[40:] {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, dir, msgs, 4)

	// Abort drops an open commit: nothing of it stays.
	w.Abort()
	_, after := readKeys(t, dir)
	for _, m := range stream(t, 1, 2) {
		m.Seq += uint64(len(msgs))
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	_, files = readKeys(t, dir)
	if !slices.Equal(files, after) {
		t.Errorf("files after an aborted commit: %v, before %v", files, after)
	}
}

// TestPartitions: files go by game and UTC day, a game crossing midnight in both days' folders;
// messages that are no event are skipped and counted.
func TestPartitions(t *testing.T) {
	msgs := stream(t, 2, 150)
	msgs = append(msgs, Message{Seq: uint64(len(msgs) + 1), Data: []byte("not protobuf")})
	unknown, _ := proto.Marshal(&eventsv1.Event{TableId: "t9", Game: "chess", Payload: &anypb.Any{TypeUrl: "type.googleapis.com/chess.v1.Move"}})
	msgs = append(msgs, Message{Seq: uint64(len(msgs) + 1), Data: unknown})
	msgs = append(msgs, Message{Seq: uint64(len(msgs) + 1), Subject: "cardroom.table.t001.public", Data: msgs[0].Data}) // t000's
	dir := t.TempDir()
	w, _, err := Open(dir, "CARDROOM")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if st := w.State(); st.Skipped != 3 || st.Messages != uint64(len(msgs)) {
		t.Errorf("state %+v", st)
	}
	_, files := readKeys(t, dir)
	want := []string{
		StateFile,
		"game=sapotagem/day=2026-11-30/part-card_played-00000000000000000001.parquet",
		"game=sapotagem/day=2026-11-30/part-table_created-00000000000000000001.parquet",
		"game=sapotagem/day=2026-12-01/part-card_played-00000000000000000001.parquet",
		"game=sapotagem/day=2026-12-01/part-seat_result-00000000000000000001.parquet",
		"game=sapotagem/day=2026-12-01/part-table_finished-00000000000000000001.parquet",
	}
	if !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}

	type seatRow struct {
		Seat      *int32  `parquet:"seat"`
		PlayerID  string  `parquet:"player_id"`
		BotLevel  *string `parquet:"bot_level"`
		Winner    bool    `parquet:"winner"`
		Abandoned bool    `parquet:"abandoned"`
		Score     *int64  `parquet:"score"`
	}
	rows, err := parquet.ReadFile[seatRow](filepath.Join(dir, "game=sapotagem/day=2026-12-01/part-seat_result-00000000000000000001.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d seat rows", len(rows))
	}
	r0, r1 := rows[0], rows[1]
	if *r0.Seat != 0 || r0.PlayerID != "p1" || r0.BotLevel != nil || r0.Winner || !r0.Abandoned || *r0.Score != 3 {
		t.Errorf("seat 0: %+v", r0)
	}
	if *r1.Seat != 1 || r1.PlayerID != "bot-1" || *r1.BotLevel != "BOT_LEVEL_STRONG" || !r1.Winner || r1.Abandoned || *r1.Score != 9 {
		t.Errorf("seat 1: %+v", r1)
	}

	type playRow struct {
		Seat       *int32  `parquet:"seat"`
		CardColour *string `parquet:"card_colour"`
		CardRank   *int64  `parquet:"card_rank"`
		Owner      int64   `parquet:"owner"`
	}
	plays, err := parquet.ReadFile[playRow](filepath.Join(dir, "game=sapotagem/day=2026-11-30/part-card_played-00000000000000000001.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(plays) == 0 || *plays[0].Seat != 0 || *plays[0].CardColour != "COLOUR_RED" || *plays[0].CardRank != 1 {
		t.Errorf("card plays %d, first %+v", len(plays), plays[0])
	}
}
