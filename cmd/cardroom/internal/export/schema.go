package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/stats"
	"github.com/parquet-go/parquet-go"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	// The games' messages, decoded from the events' payloads and the tables' options.
	_ "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	_ "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	_ "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	_ "cardroom.dev/proto/gen/cardroom/sponsio/v1"
)

// The tables. Every row starts with the envelope (envelopeColumns); a kind adds its own columns.
// TableCreated and TableFinished have hand-made tables (table_created, table_finished, and
// seat_result: one row per seat of each TableFinished); a game's own events have a table per
// case of the game's Event oneof, named after the case (card_played), whose columns follow from
// the case's message by fixed rules (see kindColumns and docs/events.md).

// Kind names of the tables that are not a game's own.
const (
	KindTableCreated  = "table_created"
	KindTableFinished = "table_finished"
	KindSeatResult    = "seat_result"
)

// source is what a row is made of: the event, its stream sequence, and the message of its kind.
type source struct {
	seq uint64
	env *eventsv1.Event
	msg protoreflect.Message
	// seat is the seat of a seat_result row.
	seat int
	// fin is the TableFinished of a seat_result row, res its seat's result (nil: aborted) and
	// acts its seat's actions (nil: none).
	fin  *eventsv1.TableFinished
	res  *gamev1.SeatResult
	acts *eventsv1.SeatActions
}

// column is one column of a table: its name, its Parquet node, and how a row gets its value(s).
type column struct {
	name string
	node parquet.Node
	// doc says what the column holds (cardroom events schema).
	doc string
	put func(row parquet.Row, s *source, col int) parquet.Row
}

// table is the schema of one kind.
type table struct {
	kind   string
	schema *parquet.Schema
	// cols are the columns in the schema's order.
	cols []column
}

func newTable(kind string, cols []column) (*table, error) {
	g := orderedGroup{Group: parquet.Group{}}
	for _, c := range cols {
		if _, dup := g.Group[c.name]; dup {
			return nil, fmt.Errorf("table %s: two columns named %q", kind, c.name)
		}
		g.Group[c.name] = c.node
		g.fields = append(g.fields, field{Node: c.node, name: c.name})
	}
	return &table{kind: kind, schema: parquet.NewSchema(kind, g), cols: cols}, nil
}

// orderedGroup is a parquet.Group whose columns keep the order they were declared in (a
// parquet.Group sorts them by name): the envelope first, then the kind's own columns.
type orderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

func (g orderedGroup) Fields() []parquet.Field { return g.fields }

// field is one of an orderedGroup's fields.
type field struct {
	parquet.Node
	name string
}

func (f field) Name() string { return f.name }

// Value is not used: rows are made column by column (table.row), never from Go values.
func (f field) Value(reflect.Value) reflect.Value { return reflect.Value{} }

// row appends s's row(s) values, column by column.
func (t *table) row(row parquet.Row, s *source) parquet.Row {
	for i := range t.cols {
		row = t.cols[i].put(row, s, i)
	}
	return row
}

// Values of the column kinds.
func null(row parquet.Row, col int) parquet.Row {
	return append(row, parquet.Value{}.Level(0, 0, col))
}

// str is a string value. It shares s's bytes (a string's bytes never change, and the Parquet
// writer only reads them).
func str(s string) parquet.Value {
	if s == "" {
		return parquet.ByteArrayValue([]byte{})
	}
	return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s)))
}

var (
	nodeString    = parquet.String()
	nodeInt64     = parquet.Int(64)
	nodeInt32     = parquet.Int(32)
	nodeBool      = parquet.Leaf(parquet.BooleanType)
	nodeDouble    = parquet.Leaf(parquet.DoubleType)
	nodeTimestamp = parquet.Timestamp(parquet.Microsecond)
	nodeJSON      = parquet.JSON()
)

// required is a column always set, opt one that may be null.
func required(name string, node parquet.Node, doc string, v func(*source) parquet.Value) column {
	return column{name: name, node: node, doc: doc, put: func(row parquet.Row, s *source, col int) parquet.Row {
		return append(row, v(s).Level(0, 0, col))
	}}
}

func opt(name string, node parquet.Node, doc string, v func(*source) (parquet.Value, bool)) column {
	return column{name: name, node: parquet.Optional(node), doc: doc, put: func(row parquet.Row, s *source, col int) parquet.Row {
		x, ok := v(s)
		if !ok {
			return null(row, col)
		}
		return append(row, x.Level(0, 1, col))
	}}
}

// list is a LIST column of required elements (an empty list when there are none).
func list(name string, elem parquet.Node, doc string, v func(*source) []parquet.Value) column {
	return column{name: name, node: parquet.List(elem), doc: doc, put: func(row parquet.Row, s *source, col int) parquet.Row {
		xs := v(s)
		if len(xs) == 0 {
			return null(row, col)
		}
		for i, x := range xs {
			rep := 1
			if i == 0 {
				rep = 0
			}
			row = append(row, x.Level(rep, 1, col))
		}
		return row
	}}
}

// defaultSeatDoc describes the seat column of a kind that has no seat of its own.
const defaultSeatDoc = "the seat the event is about: its seat field, when the kind has one (null: none)"

// envelopeNames are the envelope's columns, which a kind's own columns do not take.
var envelopeNames = []string{"stream_seq", "table_id", "game", "sequence", "version", "time", "kind", "seat", "label"}

// envelopeColumns are every table's first columns. seat is the kind's seat (nil: none).
func envelopeColumns(kind string, seat *column) []column {
	kindValue := str(kind)
	cols := []column{
		required("stream_seq", nodeInt64, "the message's sequence in the stream (unique across the stream)", func(s *source) parquet.Value {
			return parquet.Int64Value(int64(s.seq))
		}),
		required("table_id", nodeString, "the table", func(s *source) parquet.Value { return str(s.env.GetTableId()) }),
		required("game", nodeString, "the game id", func(s *source) parquet.Value { return str(s.env.GetGame()) }),
		required("sequence", nodeInt64, "the event's sequence in its table, from 1: (table_id, sequence) is the event's key", func(s *source) parquet.Value {
			return parquet.Int64Value(int64(s.env.GetSequence()))
		}),
		required("version", nodeInt64, "actions applied to the table when the event happened", func(s *source) parquet.Value {
			return parquet.Int64Value(int64(s.env.GetVersion()))
		}),
		opt("time", nodeTimestamp, "when the action was applied (UTC)", func(s *source) (parquet.Value, bool) {
			if s.env.GetTime() == nil {
				return parquet.Value{}, false
			}
			return parquet.Int64Value(s.env.GetTime().AsTime().UnixMicro()), true
		}),
		required("kind", nodeString, "the table's kind", func(*source) parquet.Value { return kindValue }),
	}
	if seat != nil {
		cols = append(cols, *seat)
	} else {
		cols = append(cols, opt("seat", nodeInt32, defaultSeatDoc, func(*source) (parquet.Value, bool) {
			return parquet.Value{}, false
		}))
	}
	return append(cols, required("label", nodeString, "the event in words, seats as {seat:N} tokens", func(s *source) parquet.Value {
		return str(s.env.GetLabel())
	}))
}

// Tables of TableCreated and TableFinished.

func createdTable() *table {
	cfg := func(s *source) *gamev1.TableConfig { return s.msg.Interface().(*eventsv1.TableCreated).GetConfig() }
	cols := append(envelopeColumns(KindTableCreated, nil),
		required("players", nodeInt32, "seats at the table", func(s *source) parquet.Value {
			return parquet.Int32Value(int32(len(cfg(s).GetSeats())))
		}),
		list("options", nodeString, `the options set away from their defaults, as "path=value" ("(defaults)=" when none), as the stats service counts them`, func(s *source) []parquet.Value {
			return strValues(stats.OptionUsage(cfg(s).GetOptions(), protoregistry.GlobalTypes))
		}),
		required("config", nodeJSON, "the table's config (seats, players, options, time limits), JSON; the seed is 0 until the game is over", func(s *source) parquet.Value {
			return parquet.ByteArrayValue(protoJSON(cfg(s)))
		}),
	)
	t, err := newTable(KindTableCreated, cols)
	if err != nil {
		panic(err)
	}
	return t
}

func finishedTable() *table {
	fin := func(s *source) *eventsv1.TableFinished { return s.msg.Interface().(*eventsv1.TableFinished) }
	cols := append(envelopeColumns(KindTableFinished, nil),
		required("players", nodeInt32, "seats at the table", func(s *source) parquet.Value {
			return parquet.Int32Value(int32(len(fin(s).GetConfig().GetSeats())))
		}),
		required("aborted", nodeBool, "the table was aborted: no results", func(s *source) parquet.Value {
			return parquet.BooleanValue(fin(s).GetOutcome().GetAborted())
		}),
		required("summary", nodeString, "the outcome in words", func(s *source) parquet.Value {
			return str(fin(s).GetOutcome().GetSummary())
		}),
		required("actions", nodeInt64, "actions applied, timeouts included", func(s *source) parquet.Value {
			return parquet.Int64Value(int64(fin(s).GetActions()))
		}),
		opt("started_at", nodeTimestamp, "creation of the table", func(s *source) (parquet.Value, bool) {
			return timestamp(fin(s).GetStartedAt().AsTime().UnixMicro(), fin(s).GetStartedAt() != nil)
		}),
		opt("finished_at", nodeTimestamp, "the table's last action", func(s *source) (parquet.Value, bool) {
			return timestamp(fin(s).GetFinishedAt().AsTime().UnixMicro(), fin(s).GetFinishedAt() != nil)
		}),
		opt("duration_ms", nodeInt64, "finished_at - started_at, in milliseconds", func(s *source) (parquet.Value, bool) {
			f := fin(s)
			if f.GetStartedAt() == nil || f.GetFinishedAt() == nil {
				return parquet.Value{}, false
			}
			return parquet.Int64Value(f.GetFinishedAt().AsTime().Sub(f.GetStartedAt().AsTime()).Milliseconds()), true
		}),
		list("winners", nodeInt32, "the winning seats", func(s *source) []parquet.Value {
			var out []parquet.Value
			for _, r := range fin(s).GetOutcome().GetResults() {
				if r.GetWinner() {
					out = append(out, parquet.Int32Value(int32(r.GetSeat())))
				}
			}
			return out
		}),
		list("options", nodeString, `the options set away from their defaults, as "path=value" ("(defaults)=" when none)`, func(s *source) []parquet.Value {
			return strValues(stats.OptionUsage(fin(s).GetConfig().GetOptions(), protoregistry.GlobalTypes))
		}),
		required("config", nodeJSON, "the table's config, seed included (the game is over), JSON", func(s *source) parquet.Value {
			return parquet.ByteArrayValue(protoJSON(fin(s).GetConfig()))
		}),
	)
	t, err := newTable(KindTableFinished, cols)
	if err != nil {
		panic(err)
	}
	return t
}

func seatResultTable() *table {
	player := func(s *source) *gamev1.PlayerRef { return s.fin.GetConfig().GetSeats()[s.seat].GetPlayer() }
	seat := opt("seat", nodeInt32, "the seat", func(s *source) (parquet.Value, bool) { return parquet.Int32Value(int32(s.seat)), true })
	cols := append(envelopeColumns(KindSeatResult, &seat),
		required("players", nodeInt32, "seats at the table", func(s *source) parquet.Value {
			return parquet.Int32Value(int32(len(s.fin.GetConfig().GetSeats())))
		}),
		required("player_id", nodeString, "the seat's player", func(s *source) parquet.Value { return str(player(s).GetPlayerId()) }),
		required("display_name", nodeString, "the player's name", func(s *source) parquet.Value { return str(player(s).GetDisplayName()) }),
		required("player_kind", nodeString, "PLAYER_KIND_HUMAN or PLAYER_KIND_BOT", func(s *source) parquet.Value {
			return str(player(s).GetKind().String())
		}),
		opt("bot_level", nodeString, "a bot's level (BOT_LEVEL_EASY, _NORMAL, _STRONG; BOT_LEVEL_UNSPECIFIED plays as normal); null for a person", func(s *source) (parquet.Value, bool) {
			if player(s).GetKind() != gamev1.PlayerKind_PLAYER_KIND_BOT {
				return parquet.Value{}, false
			}
			return str(player(s).GetBotLevel().String()), true
		}),
		required("aborted", nodeBool, "the table was aborted: no result", func(s *source) parquet.Value {
			return parquet.BooleanValue(s.fin.GetOutcome().GetAborted())
		}),
		opt("score", nodeInt64, "the seat's score (null when aborted)", func(s *source) (parquet.Value, bool) {
			return parquet.Int64Value(s.res.GetScore()), s.res != nil
		}),
		opt("rank", nodeInt32, "1 best, ties share a rank (null when aborted)", func(s *source) (parquet.Value, bool) {
			return parquet.Int32Value(int32(s.res.GetRank())), s.res != nil
		}),
		required("winner", nodeBool, "the seat won", func(s *source) parquet.Value { return parquet.BooleanValue(s.res.GetWinner()) }),
		required("actions", nodeInt64, "moves applied for the seat", func(s *source) parquet.Value {
			return parquet.Int64Value(int64(s.acts.GetActions()))
		}),
		required("stand_in", nodeInt64, "of those, moves cardroom's bot played for the seat's absent player", func(s *source) parquet.Value {
			return parquet.Int64Value(int64(s.acts.GetStandIn()))
		}),
		required("abandoned", nodeBool, "a person's seat whose moves cardroom's bot mostly played (stand_in > actions/2): the stats service counts the game as abandoned by the player, not as theirs", func(s *source) parquet.Value {
			return parquet.BooleanValue(player(s).GetKind() != gamev1.PlayerKind_PLAYER_KIND_BOT && 2*uint64(s.acts.GetStandIn()) > uint64(s.acts.GetActions()))
		}),
	)
	t, err := newTable(KindSeatResult, cols)
	if err != nil {
		panic(err)
	}
	return t
}

func timestamp(us int64, ok bool) (parquet.Value, bool) { return parquet.Int64Value(us), ok }

func strValues(ss []string) []parquet.Value {
	out := make([]parquet.Value, len(ss))
	for i, s := range ss {
		out[i] = str(s)
	}
	return out
}

var jsonOptions = protojson.MarshalOptions{UseProtoNames: true}

// protoJSON is m in JSON, compact (protojson may add spaces at random; they are removed).
func protoJSON(m proto.Message) []byte {
	b, err := jsonOptions.Marshal(m)
	if err != nil {
		return []byte("null")
	}
	var c bytes.Buffer
	if json.Compact(&c, b) != nil {
		return b
	}
	return c.Bytes()
}

// A game's own events: the payload is the game's Event message, a oneof of one message per
// kind. Each case is a table named after the case.

// maxDepth bounds how deep nested messages are flattened into columns; deeper ones are JSON.
const maxDepth = 3

// kindColumns are the columns of a game event kind whose message is md, after the envelope.
// The rules:
//   - a field named seat (an integer, not repeated) is the envelope's seat column;
//   - a scalar is a column of its type: bool BOOLEAN, 32-bit integers INTEGER, 64-bit and
//     unsigned integers BIGINT, floating point DOUBLE, string VARCHAR, bytes BLOB; an enum is
//     its value's name (VARCHAR);
//   - proto3 scalars without presence are never null; `optional` ones and those inside a
//     message field are null when unset;
//   - a message field is flattened: its fields become columns named <field>_<subfield>, down to
//     maxDepth levels; google.protobuf.Timestamp is a TIMESTAMP column, Duration a BIGINT
//     <field>_ms, Any and deeper messages JSON;
//   - a repeated scalar or enum is a LIST of its type; a repeated message or a map is JSON.
//
// Names taken by the envelope get the prefix event_.
func kindColumns(md protoreflect.MessageDescriptor) (seat *column, cols []column) {
	taken := map[string]bool{}
	for _, n := range envelopeNames {
		taken[n] = true
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Name() == "seat" && isInteger(fd) && !fd.IsList() {
			c := opt("seat", nodeInt32, "the seat the event is about (its "+string(fd.Name())+" field)", func(s *source) (parquet.Value, bool) {
				if fd.HasPresence() && !s.msg.Has(fd) {
					return parquet.Value{}, false
				}
				v := s.msg.Get(fd)
				if fd.Kind() == protoreflect.Int32Kind || fd.Kind() == protoreflect.Sint32Kind || fd.Kind() == protoreflect.Sfixed32Kind ||
					fd.Kind() == protoreflect.Int64Kind || fd.Kind() == protoreflect.Sint64Kind || fd.Kind() == protoreflect.Sfixed64Kind {
					return parquet.Int32Value(int32(v.Int())), true
				}
				return parquet.Int32Value(int32(v.Uint())), true
			})
			seat = &c
			continue
		}
		cols = append(cols, fieldColumns("", nil, fd, 0)...)
	}
	for i := range cols {
		name := cols[i].name
		if taken[name] {
			name = "event_" + name
		}
		for n := 2; taken[name]; n++ {
			name = cols[i].name + "_" + strconv.Itoa(n)
		}
		taken[name] = true
		cols[i].name = name
	}
	return seat, cols
}

func isInteger(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	}
	return false
}

// fieldColumns are the columns of field fd reached through the message fields in path (a prefix
// of names joined by _).
func fieldColumns(prefix string, path []protoreflect.FieldDescriptor, fd protoreflect.FieldDescriptor, depth int) []column {
	name := prefix + string(fd.Name())
	full := append(slices.Clone(path), fd)
	nullable := len(path) > 0 || fd.HasPresence()
	switch {
	case fd.IsMap() || (fd.IsList() && fd.Message() != nil):
		return []column{jsonColumn(name, full)}
	case fd.IsList():
		return []column{listColumn(name, full)}
	case fd.Message() != nil:
		switch fd.Message().FullName() {
		case "google.protobuf.Timestamp":
			return []column{timeColumn(name, full)}
		case "google.protobuf.Duration":
			return []column{durationColumn(name+"_ms", full)}
		}
		if depth >= maxDepth || fd.Message().FullName() == "google.protobuf.Any" {
			return []column{jsonColumn(name, full)}
		}
		var cols []column
		sub := fd.Message().Fields()
		for i := range sub.Len() {
			cols = append(cols, fieldColumns(name+"_", full, sub.Get(i), depth+1)...)
		}
		return cols
	}
	return []column{scalarColumn(name, full, nullable)}
}

// reach follows path's message fields from m to the message holding the last field; ok is false
// when one of them is unset.
func reach(m protoreflect.Message, path []protoreflect.FieldDescriptor) (protoreflect.Message, bool) {
	for _, fd := range path[:len(path)-1] {
		if !m.Has(fd) {
			return nil, false
		}
		m = m.Get(fd).Message()
	}
	return m, true
}

// scalarOf converts a scalar or enum field's value, and its node.
func scalarOf(fd protoreflect.FieldDescriptor) (parquet.Node, func(protoreflect.Value) parquet.Value) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return nodeBool, func(v protoreflect.Value) parquet.Value { return parquet.BooleanValue(v.Bool()) }
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return nodeInt32, func(v protoreflect.Value) parquet.Value { return parquet.Int32Value(int32(v.Int())) }
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return nodeInt64, func(v protoreflect.Value) parquet.Value { return parquet.Int64Value(v.Int()) }
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return nodeInt64, func(v protoreflect.Value) parquet.Value { return parquet.Int64Value(int64(v.Uint())) }
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return nodeDouble, func(v protoreflect.Value) parquet.Value { return parquet.DoubleValue(v.Float()) }
	case protoreflect.StringKind:
		return nodeString, func(v protoreflect.Value) parquet.Value { return str(v.String()) }
	case protoreflect.BytesKind:
		return parquet.Leaf(parquet.ByteArrayType), func(v protoreflect.Value) parquet.Value { return parquet.ByteArrayValue(v.Bytes()) }
	case protoreflect.EnumKind:
		values := fd.Enum().Values()
		names := map[protoreflect.EnumNumber]parquet.Value{}
		for i := range values.Len() {
			names[values.Get(i).Number()] = str(string(values.Get(i).Name()))
		}
		return nodeString, func(v protoreflect.Value) parquet.Value {
			if n, ok := names[v.Enum()]; ok {
				return n
			}
			return str(strconv.Itoa(int(v.Enum())))
		}
	}
	panic(fmt.Sprintf("field %s: kind %v is no scalar", fd.FullName(), fd.Kind()))
}

func scalarColumn(name string, path []protoreflect.FieldDescriptor, nullable bool) column {
	fd := path[len(path)-1]
	node, conv := scalarOf(fd)
	doc := fieldDoc(fd)
	if !nullable {
		return column{name: name, node: node, doc: doc, put: func(row parquet.Row, s *source, col int) parquet.Row {
			return append(row, conv(s.msg.Get(fd)).Level(0, 0, col))
		}}
	}
	return opt(name, node, doc, func(s *source) (parquet.Value, bool) {
		m, ok := reach(s.msg, path)
		if !ok || (fd.HasPresence() && !m.Has(fd)) {
			return parquet.Value{}, false
		}
		return conv(m.Get(fd)), true
	})
}

func listColumn(name string, path []protoreflect.FieldDescriptor) column {
	fd := path[len(path)-1]
	elem, conv := scalarOf(fd)
	return list(name, elem, fieldDoc(fd), func(s *source) []parquet.Value {
		m, ok := reach(s.msg, path)
		if !ok {
			return nil
		}
		l := m.Get(fd).List()
		out := make([]parquet.Value, l.Len())
		for i := range out {
			out[i] = conv(l.Get(i))
		}
		return out
	})
}

func timeColumn(name string, path []protoreflect.FieldDescriptor) column {
	fd := path[len(path)-1]
	return opt(name, nodeTimestamp, fieldDoc(fd), func(s *source) (parquet.Value, bool) {
		m, ok := reach(s.msg, path)
		if !ok || !m.Has(fd) {
			return parquet.Value{}, false
		}
		sec, nanos := secondsNanos(m.Get(fd).Message())
		return parquet.Int64Value(sec*1_000_000 + nanos/1000), true
	})
}

func durationColumn(name string, path []protoreflect.FieldDescriptor) column {
	fd := path[len(path)-1]
	return opt(name, nodeInt64, strings.TrimSuffix(fieldDoc(fd), ")")+", in milliseconds)", func(s *source) (parquet.Value, bool) {
		m, ok := reach(s.msg, path)
		if !ok || !m.Has(fd) {
			return parquet.Value{}, false
		}
		sec, nanos := secondsNanos(m.Get(fd).Message())
		return parquet.Int64Value(sec*1000 + nanos/1_000_000), true
	})
}

func secondsNanos(m protoreflect.Message) (int64, int64) {
	f := m.Descriptor().Fields()
	return m.Get(f.ByName("seconds")).Int(), m.Get(f.ByName("nanos")).Int()
}

// jsonColumn holds a repeated message, a map or a message too deep to flatten, as JSON (protojson
// with the proto field names): an array, an object, or null when unset or empty.
func jsonColumn(name string, path []protoreflect.FieldDescriptor) column {
	fd := path[len(path)-1]
	return opt(name, nodeJSON, strings.TrimSuffix(fieldDoc(fd), ")")+", as JSON)", func(s *source) (parquet.Value, bool) {
		m, ok := reach(s.msg, path)
		if !ok || !m.Has(fd) {
			return parquet.Value{}, false
		}
		return parquet.ByteArrayValue(fieldJSON(m, fd)), true
	})
}

// fieldJSON is the JSON of m's field fd: protojson of a message holding that field alone.
func fieldJSON(m protoreflect.Message, fd protoreflect.FieldDescriptor) []byte {
	if fd.IsList() && fd.Message() != nil {
		l := m.Get(fd).List()
		var b bytes.Buffer
		b.WriteByte('[')
		for i := range l.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(protoJSON(l.Get(i).Message().Interface()))
		}
		b.WriteByte(']')
		return b.Bytes()
	}
	if !fd.IsMap() && fd.Message() != nil {
		return protoJSON(m.Get(fd).Message().Interface())
	}
	one := m.Type().New()
	one.Set(fd, m.Get(fd))
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(protoJSON(one.Interface()), &obj); err != nil {
		return []byte("null")
	}
	if v, ok := obj[fd.TextName()]; ok {
		return v
	}
	return []byte("null")
}

func fieldDoc(fd protoreflect.FieldDescriptor) string {
	kind := fd.Kind().String()
	switch {
	case fd.Enum() != nil:
		kind = string(fd.Enum().Name())
	case fd.Message() != nil:
		kind = string(fd.Message().Name())
	}
	if fd.IsList() {
		kind = "repeated " + kind
	}
	return string(fd.FullName()) + " (" + kind + ")"
}

// gameKind is the table of one case of a game's Event oneof.
type gameKind struct {
	t *table
}

// tables holds every table, made on first use.
type tables struct {
	mu       sync.Mutex
	created  *table
	finished *table
	seats    *table
	// games are the tables of each payload message by full name: for a oneof wrapper, one per
	// case (by the case's field number).
	games map[protoreflect.FullName]map[protoreflect.FieldNumber]*gameKind
}

func newTables() *tables {
	return &tables{created: createdTable(), finished: finishedTable(), seats: seatResultTable(),
		games: map[protoreflect.FullName]map[protoreflect.FieldNumber]*gameKind{}}
}

// gameEvent returns the kind of a game's event message m (a message with one oneof, one of
// whose cases is set), and the case's message. ok is false for anything else.
func (ts *tables) gameEvent(m protoreflect.Message) (*gameKind, protoreflect.Message, bool) {
	md := m.Descriptor()
	if md.Oneofs().Len() != 1 {
		return nil, nil, false
	}
	fd := m.WhichOneof(md.Oneofs().Get(0))
	if fd == nil || fd.Message() == nil {
		return nil, nil, false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	kinds := ts.games[md.FullName()]
	if kinds == nil {
		kinds = map[protoreflect.FieldNumber]*gameKind{}
		ts.games[md.FullName()] = kinds
	}
	k := kinds[fd.Number()]
	if k == nil {
		t, err := gameTable(fd)
		if err != nil {
			return nil, nil, false
		}
		k = &gameKind{t: t}
		kinds[fd.Number()] = k
	}
	return k, m.Get(fd).Message(), true
}

// gameTable is the table of the case fd of a game's Event oneof.
func gameTable(fd protoreflect.FieldDescriptor) (*table, error) {
	kind := string(fd.Name())
	seat, own := kindColumns(fd.Message())
	return newTable(kind, append(envelopeColumns(kind, seat), own...))
}
