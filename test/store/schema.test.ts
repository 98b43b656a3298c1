/** The SQLite file's schema version and pragmas (DESIGN.md 4a). Export and import run on every engine: test/store/contract/_transfer.ts. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

describe("schema versions (section 4a)", () => {
  test("a store written by a newer schema is refused with a clear error", async () => {
    using a = tempDir();
    openSqliteStore(a.path).close();
    const db = new Database(join(a.path, "zerodb.sqlite"));
    db.run("PRAGMA user_version = 999");
    db.close();
    let err: any;
    try {
      openSqliteStore(a.path);
    } catch (e) {
      err = e;
    }
    expect(err.code).toBe("incompatible");
    expect(err.message).toContain("newer zerodb");
  });

  test("a fresh store gets every pragma of section 4a", async () => {
    using a = tempDir();
    const s = openSqliteStore(a.path) as ReturnType<typeof openSqliteStore>;
    const get = (p: string) => Object.values(s.db.query(`PRAGMA ${p}`).get() as object)[0];
    expect([get("journal_mode"), get("synchronous"), get("foreign_keys"), get("secure_delete")]).toEqual(["wal", 2, 1, 1]);
    expect(get("busy_timeout") as number).toBeGreaterThanOrEqual(5000);
    s.close();
  });
});
