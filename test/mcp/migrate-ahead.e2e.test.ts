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
import { ZERODB, tempDir } from "../helpers.ts";
import { mcpEnv, startMcp, textOf } from "./_client.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "progress-store", "data");

/** The schema version SQLite reads from the store (its WAL included). */
function userVersion(dataDir: string): number {
  const db = new Database(join(dataDir, "zerodb.sqlite"), { readonly: true });
  try {
    // The worker switching the old store to WAL holds it exclusively for a moment.
    db.run("PRAGMA busy_timeout = 10000");
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

  test("a client that never sends notifications/initialized: its first request after initialize starts the migration", async () => {
    using home = tempDir();
    const data = join(home.path, "data");
    cpSync(FIXTURE, data, { recursive: true });
    const proc = Bun.spawn([ZERODB, "mcp", "--data-dir", data], { cwd: home.path, env: mcpEnv(home.path), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    try {
      const lines = (async function* () {
        let buf = "";
        for await (const chunk of proc.stdout) {
          buf += new TextDecoder().decode(chunk);
          for (let i = buf.indexOf("\n"); i !== -1; i = buf.indexOf("\n")) {
            yield JSON.parse(buf.slice(0, i));
            buf = buf.slice(i + 1);
          }
        }
      })();
      const send = (id: number, method: string, params?: unknown) => {
        proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) })}\n`);
        proc.stdin.flush();
      };
      send(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
      expect((await lines.next()).value).toMatchObject({ id: 1, result: { serverInfo: { name: "zerodb" } } });
      // Initialize alone starts nothing.
      expect(userVersion(data)).toBe(6);
      send(2, "ping");
      expect((await lines.next()).value).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
      const deadline = Date.now() + 10_000;
      while (userVersion(data) < MIGRATIONS.length && Date.now() < deadline) await Bun.sleep(10);
      expect(userVersion(data)).toBe(MIGRATIONS.length);
      proc.stdin.end();
      expect(await proc.exited).toBe(0);
      expect(await new Response(proc.stderr).text()).toBe("");
    } finally {
      proc.kill();
    }
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
