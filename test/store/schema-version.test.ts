/** The store file's schema version as its header says it (src/store/sqlite/schema-version.ts), read without SQLite. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/store/sqlite/migrate.ts";
import { SCHEMA_VERSION, fileSchemaVersion } from "../../src/store/sqlite/schema-version.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

describe("fileSchemaVersion", () => {
  test("SCHEMA_VERSION is the number of migrations", () => {
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  test("a store of an earlier release, a current one, no store file, a file that is not SQLite", () => {
    using dir = tempDir();
    const old = join(dir.path, "old");
    cpSync(join(import.meta.dir, "..", "fixtures", "progress-store", "data"), old, { recursive: true });
    expect(fileSchemaVersion(old)).toBe(6);
    openSqliteStore(old).close();
    expect(fileSchemaVersion(old)).toBe(SCHEMA_VERSION);
    const fresh = join(dir.path, "fresh");
    openSqliteStore(fresh).close();
    const db = new Database(join(fresh, "zerodb.sqlite"), { readonly: true });
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: fileSchemaVersion(fresh)! });
    db.close();
    expect(fileSchemaVersion(join(dir.path, "none"))).toBeUndefined();
    const text = join(dir.path, "text");
    cpSync(fresh, text, { recursive: true });
    writeFileSync(join(text, "zerodb.sqlite"), "not a database, just text\n");
    expect(fileSchemaVersion(text)).toBeUndefined();
  });
});
