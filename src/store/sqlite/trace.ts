/**
 * Counting the SQL work a process does on one handle (for
 * `ZERODB_CAPTURE_TRACE`, and the test that 10,000 turns elsewhere do not
 * make a hook do more): statements run, rows they returned, and every
 * full-table scan in their query plans (https://sqlite.org/eqp.html; a
 * multi-row VALUES list is not a table).
 */
import type { Database, Statement } from "bun:sqlite";
import type { WorkTrace } from "../types.ts";

/** What the traced handle saw; `scans` are the `SCAN <table>` steps of the plans, each statement once. */
export type SqlTrace = WorkTrace;

const COUNTED = new Set(["get", "all", "run", "values"]);

/**
 * Starts counting on `db` itself: its `query` and `run` (what the engine
 * uses) are shadowed on the instance, so every module using the handle is
 * counted and the handle stays the same object (the engine keys state by
 * it). `prepare` is left alone: transaction control runs through it.
 */
export function traceDatabase(db: Database): SqlTrace {
  const trace: SqlTrace = { statements: 0, rows: 0, scans: [] };
  const planned = new Set<string>();
  const query = db.query.bind(db);
  const run = db.run.bind(db);
  const plan = (sql: string) => {
    if (planned.has(sql)) return;
    planned.add(sql);
    try {
      // A prepared statement finalized at once: a cached EXPLAIN left unreset keeps the transaction from committing.
      const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
      const steps = stmt.all() as { detail: string }[];
      stmt.finalize();
      for (const s of steps) {
        // A VALUES list (a multi-row INSERT's rows) is read through, but it is the statement's own parameters, no table.
        if (/^SCAN /.test(s.detail) && !/CONSTANT ROW|^SCAN \d+-ROW VALUES CLAUSE$/.test(s.detail))
          trace.scans.push(`${s.detail} in: ${sql.replace(/\s+/g, " ").trim()}`);
      }
    } catch {
      // What EXPLAIN cannot plan (pragmas, transaction control) scans no table.
    }
  };
  const wrap = (stmt: Statement, sql: string): Statement =>
    new Proxy(stmt, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (!COUNTED.has(String(prop))) return value.bind(target);
        return (...args: unknown[]) => {
          plan(sql);
          trace.statements++;
          const result = value.apply(target, args);
          trace.rows += Array.isArray(result) ? result.length : prop !== "run" && result !== null && result !== undefined ? 1 : 0;
          return result;
        };
      },
    });
  Object.assign(db, {
    query: (sql: string) => wrap(query(sql), sql),
    run: (sql: string, ...args: unknown[]) => {
      trace.statements++;
      return (run as (s: string, ...a: unknown[]) => unknown)(sql, ...args);
    },
  });
  return trace;
}
