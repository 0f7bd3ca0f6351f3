package export

import (
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Games are the games whose events this binary knows (their Event messages are
// cardroom.<game>.v1.Event).
var Games = []string{"sapotagem", "sponsio", "sabaisabai", "saboteur"}

// WriteSchemaDoc writes every table's columns as Markdown (docs/events-tables.md is its output).
func WriteSchemaDoc(w io.Writer) error {
	ts := newTables()
	var b strings.Builder
	b.WriteString("# Event tables\n\n")
	b.WriteString("The columns of every table `cardroom events export` writes, as DuckDB reads them: the output of\n")
	b.WriteString("`cardroom events schema`. [events.md](events.md#tables-for-analysts-cardroom-events-export) says how the tables are laid\n")
	b.WriteString("out and how to query them. Every table starts with the same envelope columns; DuckDB adds `day`\n")
	b.WriteString("(DATE) from the directory names (Hive partitioning). A list that would be empty is NULL.\n\n")
	b.WriteString("## The envelope\n\nThe first columns of every table.\n\n")
	writeColumns(&b, ts.created.cols[:len(envelopeNames)])
	b.WriteString("## Every game\n\n")
	for _, t := range []*table{ts.created, ts.finished, ts.seats} {
		writeTable(&b, t)
	}
	for _, g := range Games {
		md, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName("cardroom." + g + ".v1.Event"))
		if err != nil {
			return fmt.Errorf("events of %s: %w", g, err)
		}
		fmt.Fprintf(&b, "## %s\n\nThe cases of `cardroom.%s.v1.Event`, in the files `game=%s/day=*/part-<kind>-*.parquet`.\n\n", g, g, g)
		ev := md.(protoreflect.MessageDescriptor)
		cases := ev.Oneofs().Get(0).Fields()
		for i := range cases.Len() {
			t, err := gameTable(cases.Get(i))
			if err != nil {
				return err
			}
			writeTable(&b, t)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTable(b *strings.Builder, t *table) {
	fmt.Fprintf(b, "### %s\n\n", t.kind)
	own := t.cols[len(envelopeNames):]
	for _, c := range t.cols[:len(envelopeNames)] {
		if c.name == "seat" && c.doc != defaultSeatDoc {
			own = append([]column{c}, own...)
		}
	}
	if len(own) == 0 {
		b.WriteString("The envelope only.\n\n")
		return
	}
	b.WriteString("The envelope, and:\n\n")
	writeColumns(b, own)
}

func writeColumns(b *strings.Builder, cols []column) {
	b.WriteString("| column | type | null | what |\n|---|---|---|---|\n")
	for _, c := range cols {
		null := ""
		if c.node.Optional() || !c.node.Leaf() {
			null = "yes"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", c.name, sqlType(c.node), null, strings.ReplaceAll(c.doc, "|", "\\|"))
	}
	b.WriteString("\n")
}

// sqlType is the DuckDB type a column reads as.
func sqlType(n parquet.Node) string {
	if !n.Leaf() {
		// A LIST: list.element.
		return sqlType(n.Fields()[0].Fields()[0]) + "[]"
	}
	if lt := n.Type().LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *format.StringType:
			return "VARCHAR"
		case *format.JsonType:
			return "JSON"
		case *format.TimestampType:
			return "TIMESTAMPTZ"
		case *format.IntType:
			if v.BitWidth == 32 {
				return "INTEGER"
			}
			return "BIGINT"
		}
	}
	switch n.Type().Kind() {
	case parquet.Boolean:
		return "BOOLEAN"
	case parquet.Double:
		return "DOUBLE"
	case parquet.Int64:
		return "BIGINT"
	case parquet.Int32:
		return "INTEGER"
	}
	return "BLOB"
}
