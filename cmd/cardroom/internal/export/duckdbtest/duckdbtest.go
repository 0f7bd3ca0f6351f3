// Package duckdbtest runs SQL with DuckDB for the tests of the Parquet export: with the duckdb
// Python package where `python3 -c 'import duckdb'` works, else with the Node package of
// tools/duckdb (`npm ci` there). Where neither is installed the test is skipped, saying so, or
// fails when CARDROOM_REQUIRE_SERVICES=1 (CI, whose .ci/run installs one).
package duckdbtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Missing is what a test says when DuckDB is absent.
const Missing = "DuckDB is not installed: `pip install duckdb==2.0.0` (Python), or `npm ci` in tools/duckdb (Node)"

const pythonRunner = `
import duckdb, json, sys
inp = json.load(sys.stdin)
con = duckdb.connect()
out = []
for i, sql in enumerate(inp["queries"]):
    try:
        cur = con.execute(sql)
    except Exception as e:
        sys.stderr.write("statement %d failed: %s\n%s\n" % (i + 1, e, sql))
        sys.exit(1)
    rows = []
    if cur.description:
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    out.append(rows)
json.dump(out, sys.stdout, default=str)
`

// DB runs statements in one DuckDB connection.
type DB struct {
	cmd  []string
	name string
}

// Name says which DuckDB it is (python or node).
func (db *DB) Name() string { return db.name }

// Open finds DuckDB, or skips (fails under CARDROOM_REQUIRE_SERVICES=1) the test.
func Open(t testing.TB) *DB {
	t.Helper()
	if exec.Command("python3", "-c", "import duckdb").Run() == nil {
		return &DB{cmd: []string{"python3", "-c", pythonRunner}, name: "python"}
	}
	if script, ok := nodeRunner(); ok {
		if _, err := exec.LookPath("node"); err == nil {
			return &DB{cmd: []string{"node", script}, name: "node"}
		}
	}
	if os.Getenv("CARDROOM_REQUIRE_SERVICES") == "1" {
		t.Fatal(Missing)
	}
	t.Skip(Missing)
	return nil
}

// nodeRunner is tools/duckdb/query.mjs when its node_modules are installed.
func nodeRunner() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		tools := filepath.Join(dir, "tools", "duckdb")
		if _, err := os.Stat(filepath.Join(tools, "node_modules", "@duckdb", "node-api")); err == nil {
			return filepath.Join(tools, "query.mjs"), true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Row is one row, each value as text (numbers in decimal, NULL as "NULL").
type Row map[string]string

// Query runs statements in order, in directory dir (relative paths in them start there), and
// returns each one's rows.
func (db *DB) Query(dir string, statements ...string) ([][]Row, error) {
	in, err := json.Marshal(map[string]any{"queries": statements})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(db.cmd[0], db.cmd[1:]...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("duckdb (%s): %w: %s", db.name, err, errOut.String())
	}
	var raw [][]map[string]any
	dec := json.NewDecoder(&out)
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("duckdb (%s) output: %w", db.name, err)
	}
	res := make([][]Row, len(raw))
	for i, rows := range raw {
		for _, r := range rows {
			row := Row{}
			for k, v := range r {
				row[k] = text(v)
			}
			res[i] = append(res[i], row)
		}
	}
	return res, nil
}

func text(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return fmt.Sprint(v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
