package export

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Message is one message read from the stream.
type Message struct {
	// Seq is the message's stream sequence.
	Seq     uint64
	Subject string
	Data    []byte
}

// StateFile is the name of the file, in the export directory, that says where the export stopped.
const StateFile = "_export.json"

// State is what the export directory's StateFile holds.
type State struct {
	// Stream is the stream exported (its name: CARDROOM, or another prefix's).
	Stream string `json:"stream"`
	// Next is the stream sequence the next run starts from: every message before it is in the
	// directory's part files, once.
	Next uint64 `json:"next"`
	// Messages counts the messages exported so far, Rows the rows written, Skipped the messages
	// that are no event a table can hold (undecodable, or of an unknown payload type).
	Messages uint64 `json:"messages"`
	Rows     uint64 `json:"rows"`
	Skipped  uint64 `json:"skipped"`
	Updated  string `json:"updated"`
}

// Writer writes messages into the Parquet part files of an export directory, by game, day and
// kind: <dir>/game=<game>/day=<YYYY-MM-DD>/part-<kind>-<batch>.parquet, where batch is the
// stream sequence of the first message of the commit that wrote it. A commit makes its part
// files visible (written under temporary names, then renamed) and then records the next stream
// sequence in the StateFile. Open removes what a commit that did not finish left behind (part
// files of a batch at or after the recorded sequence), so that a crash at any point neither
// loses a message nor writes one twice: the next run exports it again from the state.
type Writer struct {
	dir   string
	state State
	ts    *tables
	// batch is the open commit's first stream sequence (0: nothing added since the last commit).
	batch uint64
	parts map[partKey]*part
	// pending counts the open commit's messages, rows and skipped ones.
	pending State
	days    map[int64]string
	games   map[string]bool
	env     eventsv1.Event
}

type partKey struct{ game, day, kind string }

// part is one part file being written.
type part struct {
	tmp, final string
	f          *os.File
	bw         *bufio.Writer
	w          *parquet.GenericWriter[any]
	t          *table
	buf        []parquet.Row
	n          int
}

// partRows is how many rows a part buffers before handing them to its Parquet writer.
const partRows = 256

// Open opens (creating it when needed) the export directory dir of stream and returns a writer
// positioned after what it holds. found says whether dir already held an export.
func Open(dir, stream string) (w *Writer, found bool, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, fmt.Errorf("export directory: %w", err)
	}
	w = &Writer{dir: dir, ts: newTables(), parts: map[partKey]*part{}, days: map[int64]string{}, games: map[string]bool{}}
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &w.state); err != nil {
			return nil, false, fmt.Errorf("export state %s: %w", filepath.Join(dir, StateFile), err)
		}
		if w.state.Stream != stream {
			return nil, false, fmt.Errorf("export directory %s holds the stream %s, not %s", dir, w.state.Stream, stream)
		}
		found = true
	case errors.Is(err, fs.ErrNotExist):
		w.state.Stream = stream
	default:
		return nil, false, fmt.Errorf("export state: %w", err)
	}
	if err := w.removeUncommitted(); err != nil {
		return nil, false, err
	}
	return w, found, nil
}

// State is where the directory's export stands (as of the last commit).
func (w *Writer) State() State { return w.state }

var partName = regexp.MustCompile(`^part-[a-z0-9_]+-([0-9]+)\.parquet$`)

// removeUncommitted removes temporary files and the part files of batches that were never
// committed (at or after the state's next sequence).
func (w *Writer) removeUncommitted() error {
	return filepath.WalkDir(w.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if strings.HasPrefix(name, ".tmp-part-") {
			return os.Remove(path)
		}
		m := partName.FindStringSubmatch(name)
		if m == nil {
			return nil
		}
		batch, err := strconv.ParseUint(m[1], 10, 64)
		if err == nil && batch >= w.state.Next {
			return os.Remove(path)
		}
		return nil
	})
}

var gameName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// validGame says whether game can name a directory (game=<game>).
func (w *Writer) validGame(game string) bool {
	ok, seen := w.games[game]
	if !seen {
		ok = gameName.MatchString(game)
		if len(w.games) < 1000 {
			w.games[game] = ok
		}
	}
	return ok
}

// Add writes m's rows into the open commit. Messages before the state's next sequence (or an
// earlier message of this commit) are already exported and skipped.
func (w *Writer) Add(m Message) error {
	if m.Seq < w.state.Next || (w.batch != 0 && m.Seq < w.pending.Next) {
		return nil
	}
	if w.batch == 0 {
		w.batch = m.Seq
	}
	w.pending.Messages++
	w.pending.Next = m.Seq + 1
	env := &w.env
	if err := proto.Unmarshal(m.Data, env); err != nil || env.GetTableId() == "" || !w.validGame(env.GetGame()) || env.GetPayload() == nil {
		w.pending.Skipped++
		return nil
	}
	if m.Subject != "" && !subjectOf(m.Subject, env.GetTableId()) {
		w.pending.Skipped++ // a table's event on another table's subject: as the stats service, not kept
		return nil
	}
	payload, err := unmarshalPayload(env)
	if err != nil {
		w.pending.Skipped++
		return nil
	}
	s := &source{seq: m.Seq, env: env, msg: payload.ProtoReflect()}
	day := w.day(env)
	switch p := payload.(type) {
	case *eventsv1.TableCreated:
		return w.write(env.GetGame(), day, w.ts.created, s)
	case *eventsv1.TableFinished:
		if err := w.write(env.GetGame(), day, w.ts.finished, s); err != nil {
			return err
		}
		seats := p.GetConfig().GetSeats()
		s.fin = p
		for i := range seats {
			s.seat, s.res, s.acts = i, nil, nil
			for _, r := range p.GetOutcome().GetResults() {
				if int(r.GetSeat()) == i {
					s.res = r
				}
			}
			for _, a := range p.GetSeatActions() {
				if int(a.GetSeat()) == i {
					s.acts = a
				}
			}
			if err := w.write(env.GetGame(), day, w.ts.seats, s); err != nil {
				return err
			}
		}
		return nil
	}
	k, msg, ok := w.ts.gameEvent(s.msg)
	if !ok {
		w.pending.Skipped++
		return nil
	}
	s.msg = msg
	return w.write(env.GetGame(), day, k.t, s)
}

// subjectOf says whether subject is table's public subject (<prefix>.table.<table>.public).
func subjectOf(subject, table string) bool {
	rest, ok := strings.CutSuffix(subject, ".table."+table+".public")
	return ok && rest != "" && !strings.Contains(rest, ".")
}

// unmarshalPayload decodes env's payload with the message types this binary knows.
func unmarshalPayload(env *eventsv1.Event) (proto.Message, error) {
	a := env.GetPayload()
	var m proto.Message
	switch a.GetTypeUrl() {
	case createdURL:
		m = &eventsv1.TableCreated{}
	case finishedURL:
		m = &eventsv1.TableFinished{}
	default:
		mt, err := protoregistry.GlobalTypes.FindMessageByURL(a.GetTypeUrl())
		if err != nil {
			return nil, err
		}
		m = mt.New().Interface()
	}
	if err := proto.Unmarshal(a.GetValue(), m); err != nil {
		return nil, err
	}
	return m, nil
}

var (
	createdURL  = "type.googleapis.com/" + string((&eventsv1.TableCreated{}).ProtoReflect().Descriptor().FullName())
	finishedURL = "type.googleapis.com/" + string((&eventsv1.TableFinished{}).ProtoReflect().Descriptor().FullName())
)

// day is the UTC day of env's time (YYYY-MM-DD).
func (w *Writer) day(env *eventsv1.Event) string {
	d := env.GetTime().GetSeconds()
	if d < 0 {
		d -= 86399
	}
	d /= 86400
	s, ok := w.days[d]
	if !ok {
		s = time.Unix(d*86400, 0).UTC().Format(time.DateOnly)
		w.days[d] = s
	}
	return s
}

// write adds s's row to the part file of game, day and t's kind.
func (w *Writer) write(game, day string, t *table, s *source) error {
	k := partKey{game, day, t.kind}
	p := w.parts[k]
	if p == nil {
		var err error
		if p, err = w.newPart(k, t); err != nil {
			return err
		}
		w.parts[k] = p
	}
	if p.n == len(p.buf) {
		p.buf = append(p.buf, make(parquet.Row, 0, len(t.cols)))
	}
	p.buf[p.n] = t.row(p.buf[p.n][:0], s)
	p.n++
	w.pending.Rows++
	if p.n == partRows {
		return p.flushRows()
	}
	return nil
}

func (w *Writer) newPart(k partKey, t *table) (*part, error) {
	dir := filepath.Join(w.dir, "game="+k.game, "day="+k.day)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	name := fmt.Sprintf("part-%s-%020d.parquet", k.kind, w.batch)
	p := &part{tmp: filepath.Join(dir, ".tmp-"+name), final: filepath.Join(dir, name), t: t}
	f, err := os.Create(p.tmp)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	p.f, p.bw = f, bufio.NewWriterSize(f, 64<<10)
	p.w = parquet.NewGenericWriter[any](p.bw, t.schema, parquet.Compression(&snappy.Codec{}), parquet.PageBufferSize(64<<10),
		parquet.CreatedBy("cardroom events export", "", ""))
	return p, nil
}

func (p *part) flushRows() error {
	if p.n == 0 {
		return nil
	}
	if _, err := p.w.WriteRows(p.buf[:p.n]); err != nil {
		return fmt.Errorf("export %s: %w", p.final, err)
	}
	p.n = 0
	return nil
}

// close finishes the part file under its temporary name (Commit makes it durable).
func (p *part) close() error {
	err := p.flushRows()
	if err == nil {
		err = p.w.Close()
	}
	if err == nil {
		err = p.bw.Flush()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export %s: %w", p.final, err)
	}
	return nil
}

// Commit makes the open commit's part files visible and records the next stream sequence. With
// nothing added since the last commit it does nothing.
func (w *Writer) Commit() error {
	if w.batch == 0 {
		return nil
	}
	for _, p := range w.parts {
		if err := p.close(); err != nil {
			return err
		}
	}
	files := make([]string, 0, len(w.parts))
	for _, p := range w.parts {
		files = append(files, p.tmp)
	}
	if err := syncFiles(w.dir, files); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	dirs := map[string]bool{}
	for _, p := range w.parts {
		if err := os.Rename(p.tmp, p.final); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		dirs[filepath.Dir(p.final)] = true
	}
	// The renames are durable before the position is: a state that says the commit is done never
	// stands beside its files under temporary names.
	if err := syncFiles(w.dir, slices.Collect(maps.Keys(dirs))); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	next := w.state
	next.Next = w.pending.Next
	next.Messages += w.pending.Messages
	next.Rows += w.pending.Rows
	next.Skipped += w.pending.Skipped
	next.Updated = time.Now().UTC().Format(time.RFC3339)
	b, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(w.dir, ".tmp-"+StateFile)
	if err := writeSync(tmp, append(b, '\n')); err != nil {
		return fmt.Errorf("export state: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(w.dir, StateFile)); err != nil {
		return fmt.Errorf("export state: %w", err)
	}
	w.state, w.pending, w.batch = next, State{}, 0
	clear(w.parts)
	return nil
}

func writeSync(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Abort drops the open commit: its part files are removed, the state stays.
func (w *Writer) Abort() {
	for _, p := range w.parts {
		_ = p.f.Close()
		_ = os.Remove(p.tmp)
	}
	clear(w.parts)
	w.pending, w.batch = State{}, 0
}
