import type { Database } from "bun:sqlite";
import { ZeroDbError } from "../../errors.ts";
// Migrations are imported as text so they ship inside the compiled binary.
import m001 from "./migrations/001_init.sql" with { type: "text" };
import m002 from "./migrations/002_objects.sql" with { type: "text" };
import m003 from "./migrations/003_capture.sql" with { type: "text" };
import m004 from "./migrations/004_search.sql" with { type: "text" };
import m005 from "./migrations/005_forget_traces.sql" with { type: "text" };
import m006 from "./migrations/006_index_writes.sql" with { type: "text" };
import m007 from "./migrations/007_index_tenants.sql" with { type: "text" };
import m008 from "./migrations/008_agent_progress.sql" with { type: "text" };
import m009 from "./migrations/009_index_pages.sql" with { type: "text" };
import m010 from "./migrations/010_codex_commands.sql" with { type: "text" };
import { scrubForgotten } from "./forget/record.ts";
import { rerenderCaptured } from "./migrate-captured.ts";
import { type RebuildProgress, rebuildIndex, secureDeletes } from "./search/word-index.ts";

/** One numbered migration: its SQL, then, where SQL cannot do it, a step in code. */
export interface Migration {
  sql: string;
  after?: (db: Database, onProgress?: RebuildProgress) => void;
  /** What its progress reports name (`search index` when unset). */
  progress?: string;
}

/** Numbered migrations; index i brings the schema to user_version i + 1. */
export const MIGRATIONS: readonly Migration[] = [
  { sql: m001 },
  { sql: m002 },
  { sql: m003 },
  // The word index, built from each row's text by src/search/text.ts (DESIGN.md 11), without secure deletes
  // (migration 006 leaves them off for every write after). Its rows are written by migration 007, which
  // rebuilds it with each row's tenant: the rows and classes are made once whichever version a store is at.
  { sql: m004, after: (db) => secureDeletes(db, false) },
  // Earlier forgets' traces: op_hash, idem_key, selectors (issue 14 item 4).
  { sql: m005, after: (db) => scrubForgotten(db) },
  // Secure deletes in the word index only while forget deletes (forget.ts purge).
  { sql: m006 },
  // The word index keeps each row's tenant, so a search's lists and counts are the caller's alone (I5).
  { sql: m007, after: (db, onProgress) => rebuildIndex(db, onProgress) },
  // Claude Code's subagent progress lines as the messages they carry, stored once; compaction as kind summary.
  { sql: m008, after: (db, onProgress) => rerenderCaptured(db, onProgress), progress: "subagent messages and summaries" },
  // Word index leaves of at most 2000 bytes: a commit's new segment no longer rebalances full pages (issue 32).
  { sql: m009 },
  // Codex's exec_command_end lines of the unified exec tool as the tool results holding the whole output.
  { sql: m010, after: (db, onProgress) => rerenderCaptured(db, onProgress, { commandsOnly: true }), progress: "Codex command output" },
];

/** What opening a store reports while a migration rebuilds the search index. */
export interface MigrateOptions {
  onProgress?: (what: string, done: number, total: number) => void;
}

/**
 * Brings the store to the newest schema under a write lock, so two processes
 * opening a new data dir at once migrate it once. Refuses a newer schema.
 * All steps run in one transaction: a crash mid-way leaves the old schema.
 */
export function migrate(db: Database, opts: MigrateOptions = {}): void {
  const current = userVersion(db);
  if (current > MIGRATIONS.length) throw newerSchema(current);
  if (current === MIGRATIONS.length) return;
  db.transaction(() => {
    const now = userVersion(db);
    if (now > MIGRATIONS.length) throw newerSchema(now);
    for (let v = now; v < MIGRATIONS.length; v++) {
      const m = MIGRATIONS[v]!;
      db.run(m.sql);
      // A new store has nothing to rebuild: only an existing one reports progress.
      const what = `migration ${v + 1}: ${m.progress ?? "search index"}`;
      m.after?.(db, now > 0 && opts.onProgress ? (done, total) => opts.onProgress!(what, done, total) : undefined);
      db.run(`PRAGMA user_version = ${v + 1}`);
    }
  }).immediate();
}

function userVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}

function newerSchema(version: number): ZeroDbError {
  return new ZeroDbError("incompatible", `this store was written by a newer zerodb (schema ${version}, this build knows ${MIGRATIONS.length}): upgrade zerodb`);
}
