/**
 * Each command loads only what it uses (DESIGN.md section 10: start-up is a
 * feature). Checked on the bundle `bun build` makes from src/main.ts, the
 * same bundler and module graph the compiled binary holds, instrumented by
 * scripts/bundle-loads.ts to list the modules a run evaluates.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type InstrumentedBundle, instrumentedBundle, loadedModules, packagesOf } from "../../scripts/bundle-loads.ts";
import { tempDir } from "../helpers.ts";

let bundle: InstrumentedBundle;
const home = tempDir();

beforeAll(async () => {
  bundle = await instrumentedBundle();
});

afterAll(() => {
  bundle?.[Symbol.dispose]();
  home[Symbol.dispose]();
});

/** The packages and source files `zerodb <args>` evaluates. */
async function loads(args: string[], stdin?: string): Promise<string[]> {
  return packagesOf(await loadedModules(bundle, args, { home: home.path, stdin }));
}

const HEAVY = ["zod", "hono", "@modelcontextprotocol/sdk", "consola"];

describe("lazy loading per command", () => {
  test("the instrumentation sees modules load: a store command evaluates zod and the SQLite store", async () => {
    expect(bundle.wrapped).toBeGreaterThan(50);
    const stats = await loads(["stats"]);
    expect(stats).toContain("zod");
    expect(stats).toContain("src/store/sqlite/store.ts");
    expect(stats).toContain("src/cli/commands/stats.ts");
  });

  test("`zerodb version` evaluates no zod, hono, MCP SDK, consola or store", async () => {
    const version = await loads(["version"]);
    expect(version).toContain("src/cli/commands/version.ts");
    expect(version.filter((p) => HEAVY.includes(p) || p.startsWith("src/store/") || p.startsWith("src/mcp/"))).toEqual([]);
  });

  test("a store command runs without citty (its parser loads node:util): `stats` and `search`", async () => {
    for (const args of [["stats"], ["search", "anything"]]) {
      const mods = await loads(args);
      expect(mods).toContain("src/store/sqlite/store.ts");
      expect({ args, citty: mods.includes("citty") }).toEqual({ args, citty: false });
    }
  });

  test("`zerodb mcp` answers initialize without the MCP SDK (its schemas were half a cold start, issue 32), zod or the HTTP server", async () => {
    const init = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`;
    const mcp = await loads(["mcp"], init);
    expect(mcp).toContain("src/mcp/server.ts");
    expect(mcp.filter((p) => p === "hono" || p === "@modelcontextprotocol/sdk" || p === "zod" || p.startsWith("src/http/"))).toEqual([]);
  });

  test("`zerodb mcp` answers initialize without the store, the tool table, the redaction rules or citty", async () => {
    const init = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`;
    const mcp = await loads(["mcp"], init);
    expect(mcp).toContain("src/mcp/server.ts");
    // The data dir's file names (sqlite/paths.ts) are loaded: its paths are checked at start (issue 14, item 3).
    const engine = ["src/store/sqlite/store.ts", "src/store/sqlite/open.ts", "src/store/sqlite/migrate.ts"];
    const early = mcp.filter((p) => p === "citty" || engine.includes(p) || p.startsWith("src/mcp/tools") || p.startsWith("src/redact"));
    expect(early).toEqual([]);
  });

  test("`zerodb mcp` loads the store and the tool table on the first tool call", async () => {
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "stats", arguments: {} } },
    ];
    const mcp = await loads(["mcp"], lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    expect(mcp).toContain("src/store/sqlite/store.ts");
    expect(mcp).toContain("src/mcp/tools.ts");
    // The tools import the SDK's types only: serving a call evaluates none of it either.
    expect(mcp).not.toContain("@modelcontextprotocol/sdk");
  });

  test("`zerodb hook claude-code` evaluates neither the MCP SDK nor the HTTP server", async () => {
    const event = JSON.stringify({ session_id: "s1", transcript_path: `${home.path}/none.jsonl`, cwd: home.path, hook_event_name: "Stop" });
    const hook = await loads(["hook", "claude-code"], event);
    expect(hook).toContain("src/capture/hook.ts");
    expect(hook.filter((p) => ["hono", "@modelcontextprotocol/sdk"].includes(p) || p.startsWith("src/http/") || p.startsWith("src/mcp/"))).toEqual([]);
  });

  test("`zerodb hook claude-code` loads no citty and opens the store without building the operations' schemas or loading the remote sink", async () => {
    const event = JSON.stringify({ session_id: "s2", transcript_path: `${home.path}/none.jsonl`, cwd: home.path, hook_event_name: "Stop" });
    const hook = await loads(["hook", "claude-code"], event);
    expect(hook).toContain("src/store/sqlite/store.ts");
    expect(hook.filter((p) => ["citty", "src/schema/ops.ts", "src/store/import-check.ts", "src/capture/remote-sink.ts"].includes(p))).toEqual([]);
  });

  test("`zerodb hook claude-code` capturing a line builds none of the shared schemas (common.ts, entry.ts, as-of.ts, ops.ts)", async () => {
    const dir = join(home.path, "schemas");
    mkdirSync(dir, { recursive: true });
    const transcript = join(dir, "s3.jsonl");
    const line = { type: "user", uuid: "u1", sessionId: "s3", cwd: dir, timestamp: "2026-12-02T08:00:00.000Z", message: { role: "user", content: "hello" } };
    writeFileSync(transcript, `${JSON.stringify(line)}\n`);
    const event = JSON.stringify({ session_id: "s3", transcript_path: transcript, cwd: dir, hook_event_name: "Stop" });
    // Twice: the first run creates the store; the second is every later run.
    await loads(["hook", "claude-code"], event);
    appendFileSync(transcript, `${JSON.stringify({ ...line, uuid: "u2" })}\n`);
    const hook = await loads(["hook", "claude-code"], event);
    expect(hook).toContain("src/capture/read-batch.ts");
    expect(hook).toContain("src/schema/capture-batch.ts");
    expect(hook.filter((p) => ["src/schema/common.ts", "src/schema/entry.ts", "src/schema/as-of.ts", "src/schema/ops.ts"].includes(p))).toEqual([]);
  });

  test("a hook run with capture configured evaluates no zod (issue 32: about 3 ms of every hook's start)", async () => {
    using own = tempDir();
    const zhome = join(own.path, "zerodb");
    mkdirSync(zhome, { recursive: true, mode: 0o700 });
    // What `zerodb connect` leaves, plus the other keys a local store's config uses.
    writeFileSync(join(zhome, "config.json"), JSON.stringify({ capture: { enabled: true, max_entries_per_run: 64 }, redact: true, tenant: "local" }), {
      mode: 0o600,
    });
    const transcript = join(own.path, "s4.jsonl");
    const line = {
      type: "user",
      uuid: "u1",
      sessionId: "s4",
      cwd: own.path,
      timestamp: "2026-12-03T08:00:00.000Z",
      message: { role: "user", content: "hello" },
    };
    writeFileSync(transcript, `${JSON.stringify(line)}\n`);
    const event = JSON.stringify({ session_id: "s4", transcript_path: transcript, cwd: own.path, hook_event_name: "Stop" });
    const run = (args: string[], stdin?: string) => loadedModules(bundle, args, { home: own.path, stdin }).then(packagesOf);
    await run(["hook", "claude-code"], event);
    appendFileSync(transcript, `${JSON.stringify({ ...line, uuid: "u2" })}\n`);
    const claude = await run(["hook", "claude-code"], event);
    expect(claude).toContain("src/capture/read-batch.ts");
    expect(claude).toContain("src/config.ts");
    expect(claude).not.toContain("zod");
    const note = JSON.stringify({ type: "agent-turn-complete", "thread-id": "019a0000-0000-7000-8000-000000000000", cwd: own.path });
    expect(await run(["hook", "codex", note])).not.toContain("zod");
    expect(await run(["hook", "opencode", "ses_none"])).not.toContain("zod");
    // A config the plain check does not judge (a team server's URL) still goes through the schema.
    writeFileSync(join(zhome, "config.json"), JSON.stringify({ capture: { enabled: true }, sync: { url: "http://127.0.0.1:9", token_file: "t" } }), {
      mode: 0o600,
    });
    expect(await run(["hook", "claude-code"], event)).toContain("zod");
  });

  test("`zerodb hook codex` and `hook opencode` load no harness editor (the connect face, its TOML, JSONC and diff libraries) and no citty", async () => {
    const face = (mods: string[]) =>
      mods.filter((p) => ["citty", "diff", "jsonc-parser", "smol-toml"].includes(p) || p === "src/harness/index.ts" || p === "src/cli/connect-common.ts");
    const note = JSON.stringify({ type: "agent-turn-complete", "thread-id": "019a0000-0000-7000-8000-000000000000", cwd: home.path });
    const codex = await loads(["hook", "codex", note]);
    expect(codex).toContain("src/capture/codex-hook.ts");
    expect(face(codex)).toEqual([]);
    const opencode = await loads(["hook", "opencode", "ses_none"]);
    expect(opencode).toContain("src/capture/opencode-hook.ts");
    expect(face(opencode)).toEqual([]);
  });
});
