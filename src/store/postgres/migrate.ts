/**
 * Schema migrations of the PostgreSQL engine: numbered text files, imported as
 * text so they ship inside the compiled binary, applied in one transaction
 * under an advisory lock so that several `serve` processes starting at once
 * migrate a database once. A database written by a newer zerodb is refused.
 */
import type { SQL } from "bun";
import { ZeroDbError } from "../../errors.ts";
import m001 from "./migrations/001_init.sql" with { type: "text" };
import m002 from "./migrations/002_blobs.sql" with { type: "text" };
import m003 from "./migrations/003_postings.sql" with { type: "text" };
import m004 from "./migrations/004_agent_progress.sql" with { type: "text" };
import m005 from "./migrations/005_nul.sql" with { type: "text" };
import m006 from "./migrations/006_no_value_statistics.sql" with { type: "text" };
import m007 from "./migrations/007_codex_commands.sql" with { type: "text" };
import { rerenderCaptured } from "./migrate-captured.ts";

/** One numbered migration: its SQL, then, where SQL cannot do it, a step in code in the same transaction. */
export interface Migration {
  sql: string;
  after?: (tx: SQL, onProgress?: (done: number, total: number) => void) => Promise<unknown>;
  /** What its step does, as its progress names it. */
  progress?: string;
}

/** Numbered migrations; index i brings the schema to version i + 1. */
export const MIGRATIONS: readonly Migration[] = [
  { sql: m001 },
  { sql: m002 },
  { sql: m003 },
  // Claude Code's subagent progress lines as the messages they carry, stored once; compaction as kind summary.
  { sql: m004, after: rerenderCaptured, progress: "subagent messages and summaries" },
  // Text and data hold U+0000 encoded (nul.ts): the noncharacters the encoding uses, escaped in older rows.
  { sql: m005 },
  // No value statistics of columns holding user text: pg_stats would show them, forgotten ones too.
  { sql: m006 },
  // Codex's exec_command_end lines of the unified exec tool as the tool results holding the whole output;
  // after migration 5, on text and data stored NUL-encoded.
  { sql: m007, after: (tx, onProgress) => rerenderCaptured(tx, onProgress, { encoded: true, commandsOnly: true }), progress: "Codex command output" },
];

/** The advisory lock key migrations hold (any constant; "zerodb" in ASCII). */
const MIGRATE_LOCK = 0x7a65726f6462;

/**
 * Brings the database to the newest schema, or throws `incompatible` when it
 * is newer than this build. A long step reports its progress, as the SQLite
 * engine's do (what, how far, out of how many).
 */
export async function migrate(sql: SQL, onProgress?: (what: string, done: number, total: number) => void): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS zerodb_schema (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL)`;
    const rows = await tx`SELECT version FROM zerodb_schema WHERE id = 1`;
    const current = rows.length === 0 ? 0 : Number(rows[0].version);
    if (current > MIGRATIONS.length) throw newerSchema(current);
    if (current === MIGRATIONS.length) return;
    // pg_trgm backs the trigram index (search); creating it needs the right once per database.
    await tx`CREATE EXTENSION IF NOT EXISTS pg_trgm`;
    for (let v = current; v < MIGRATIONS.length; v++) {
      const m = MIGRATIONS[v]!;
      await tx.unsafe(m.sql);
      const what = `migration ${v + 1}: ${m.progress ?? "schema"}`;
      await m.after?.(tx, onProgress ? (done, total) => onProgress(what, done, total) : undefined);
    }
    await tx`INSERT INTO zerodb_schema (id, version) VALUES (1, ${MIGRATIONS.length}) ON CONFLICT (id) DO UPDATE SET version = excluded.version`;
  });
}

function newerSchema(version: number): ZeroDbError {
  return new ZeroDbError(
    "incompatible",
    `this database was written by a newer zerodb (schema ${version}, this build knows ${MIGRATIONS.length}): upgrade zerodb`,
  );
}
