/**
 * `zerodb mcp` on a store of an earlier release: once the client is
 * initialized, the migration runs in a worker, so the first tool call waits
 * for what is left of it, not all of it, and the server keeps answering
 * meanwhile. A store that needs no migration is still opened by the first
 * tool call, not before (lazy-open.e2e.test.ts).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/store/sqlite/migrate.ts";
import { tempDir } from "../helpers.ts";
import { startMcp, textOf } from "./_client.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "progress-store", "data");

/** The schema version SQLite reads from the store (its WAL included). */
function userVersion(dataDir: string): number {
  const db = new Database(join(dataDir, "zerodb.sqlite"), { readonly: true });
  try {
    return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
}

describe("zerodb mcp migrates an old store ahead of the first tool call", () => {
  test("after initialize the store is migrated without a tool call; the first call then serves the migrated store", async () => {
    using home = tempDir();
    const data = join(home.path, "data");
    cpSync(FIXTURE, data, { recursive: true });
    expect(userVersion(data)).toBe(6);
    await using mcp = await startMcp({ home: home.path, args: ["--data-dir", data] });
    // The server answers while the worker migrates.
    expect((await mcp.client.listTools()).tools.length).toBe(12);
    const deadline = Date.now() + 10_000;
    while (userVersion(data) < MIGRATIONS.length && Date.now() < deadline) await Bun.sleep(10);
    expect(userVersion(data)).toBe(MIGRATIONS.length);
    const r = await mcp.call("search", { query: "zqxbackoffcurve" });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("zqxbackoffcurve");
    expect(mcp.stderr()).toBe("");
  }, 60_000);

  test("the first tool call right after initialize waits for the migration and answers from the migrated store", async () => {
    using home = tempDir();
    const data = join(home.path, "data");
    cpSync(FIXTURE, data, { recursive: true });
    await using mcp = await startMcp({ home: home.path, args: ["--data-dir", data] });
    const r = await mcp.call("search", { query: "zqxbackoffcurve" });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("zqxbackoffcurve");
    expect(userVersion(data)).toBe(MIGRATIONS.length);
    expect(mcp.stderr()).toBe("");
  }, 60_000);

  test("a store that needs no migration is not opened by initialize or tools/list", async () => {
    using home = tempDir();
    const data = join(home.path, "data");
    await using mcp = await startMcp({ home: home.path, args: ["--data-dir", data] });
    expect((await mcp.client.listTools()).tools.length).toBe(12);
    expect(existsSync(join(data, "zerodb.sqlite"))).toBe(false);
    expect((await mcp.call("remember", { content: "opened by the first call" })).isError).toBeFalsy();
    expect(existsSync(join(data, "zerodb.sqlite"))).toBe(true);
  });
});
