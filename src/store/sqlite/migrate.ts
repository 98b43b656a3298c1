import type { Database } from "bun:sqlite";
import { ZeroDbError } from "../../errors.ts";
// Migrations are imported as text so they ship inside the compiled binary.
import m001 from "./migrations/001_init.sql" with { type: "text" };
import m002 from "./migrations/002_objects.sql" with { type: "text" };
import m003 from "./migrations/003_capture.sql" with { type: "text" };

/** Numbered migrations; index i brings the schema to user_version i + 1. */
export const MIGRATIONS: readonly string[] = [m001, m002, m003];

/**
 * Brings the store to the newest schema under a write lock, so two processes
 * opening a new data dir at once migrate it once. Refuses a newer schema.
 */
export function migrate(db: Database): void {
  const current = userVersion(db);
  if (current > MIGRATIONS.length) throw newerSchema(current);
  if (current === MIGRATIONS.length) return;
  db.transaction(() => {
    const now = userVersion(db);
    if (now > MIGRATIONS.length) throw newerSchema(now);
    for (let v = now; v < MIGRATIONS.length; v++) {
      db.run(MIGRATIONS[v]!);
      db.run(`PRAGMA user_version = ${v + 1}`);
    }
  }).immediate();
}

function userVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}

function newerSchema(version: number): ZeroDbError {
  return new ZeroDbError(
    "incompatible",
    `this store was written by a newer zerodb (schema ${version}, this build knows ${MIGRATIONS.length}): upgrade zerodb`,
  );
}
