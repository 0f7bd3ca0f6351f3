// Runs SQL statements with DuckDB in one connection, in the directory given, and prints each
// statement's rows as JSON: {"queries": [...]} on standard input, [[{column: value}, ...], ...] on
// standard output. The tests of cardroom events export use it (cmd/cardroom/export_test.go) where
// the duckdb Python package is absent.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const input = JSON.parse(readFileSync(0, 'utf8'));
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const out = [];
for (const [i, sql] of input.queries.entries()) {
  try {
    const reader = await conn.runAndReadAll(sql);
    out.push(reader.getRowObjectsJson());
  } catch (e) {
    process.stderr.write(`statement ${i + 1} failed: ${e.message}\n${sql}\n`);
    process.exit(1);
  }
}
process.stdout.write(JSON.stringify(out));
