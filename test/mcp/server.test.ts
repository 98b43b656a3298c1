/**
 * createMcpServer in-process (STYLE.md: a real client over an in-memory
 * linked transport pair): spilling, structured content within budget, the
 * harness's read hint, redaction off, and internal errors.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readHint } from "../../src/mcp/reader.ts";
import { SPILL_META_KEY } from "../../src/mcp/result.ts";
import { type McpServerOptions, createMcpServer } from "../../src/mcp/server.ts";
import { type SpillFs, realFs } from "../../src/spill/file.ts";
import { DEFAULT_HINT, type SpillRecord } from "../../src/spill/spill.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import type { Memory } from "../../src/store/types.ts";
import { ZeroDbError } from "../../src/errors.ts";
import { tempDir } from "../helpers.ts";

/** A connected in-process client and server over a fresh store; disposing closes all. */
async function connect(dir: string, opts: Partial<McpServerOptions> & { clientName?: string; redact?: boolean } = {}) {
  const store = openSqliteStore(join(dir, "data"), opts.redact === undefined ? {} : { redact: opts.redact });
  const logs: string[] = [];
  const server = createMcpServer({
    memory: store.memory("local"),
    cwd: dir,
    spill: { root: join(dir, "spill"), maxInlineBytes: 1024 },
    log: (l) => logs.push(l),
    ...opts,
  });
  const client = new Client({ name: opts.clientName ?? "test", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return {
    client,
    logs,
    call: async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close();
      store.close();
    },
  };
}

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe("createMcpServer", () => {
  test("an oversized result is spilled: a preview within budget, the locator in _meta, no structured copy", async () => {
    using tmp = tempDir();
    await using c = await connect(tmp.path, { clientName: "claude-code" });
    const content = Array.from({ length: 400 }, (_, i) => `line ${i} of a long note`).join("\n");
    await c.call("remember", { content });
    const r = await c.call("recall");
    const spill = r._meta?.[SPILL_META_KEY] as SpillRecord;
    expect(Buffer.byteLength(text(r))).toBeLessThanOrEqual(1024);
    expect(r.structuredContent).toBeUndefined();
    expect(text(r)).toContain(`${spill.omitted_bytes} of ${spill.bytes} bytes are omitted here`);
    expect(text(r)).toContain(`\n${spill.path}\n`);
    expect(text(r)).toContain("Read tool");
    const full = readFileSync(spill.path, "utf8");
    expect(full).toContain(content);
    expect(Buffer.byteLength(full)).toBe(spill.bytes);
    expect(statSync(spill.path).mode & 0o777).toBe(0o600);
    expect(spill.path).toMatch(/\/spill\/session-[0-9a-f]{64}\/[A-Za-z0-9_-]{12}-recall\.txt$/);
  });

  test("structured content is left out when its JSON is over budget but the text is not", async () => {
    using tmp = tempDir();
    await using c = await connect(tmp.path);
    // Quotes double in JSON, so the structured copy outgrows the text.
    await c.call("remember", { content: '"'.repeat(700) });
    const r = await c.call("recall");
    expect(r._meta?.[SPILL_META_KEY]).toBeUndefined();
    expect(text(r)).toContain('"'.repeat(700));
    expect(r.structuredContent).toBeUndefined();
    const small = await c.call("stats");
    expect(small.structuredContent).toBeDefined();
  });

  test("each connection spills into its own directory", async () => {
    using tmp = tempDir();
    const paths: string[] = [];
    for (const id of ["one", "two"]) {
      await using c = await connect(tmp.path, { connectionId: id });
      await c.call("fact_set", { key: `k-${id}`, value: "v".repeat(2000) });
      paths.push(((await c.call("fact_list"))._meta![SPILL_META_KEY] as SpillRecord).path);
    }
    expect(paths[0]!.split("/").at(-2)).not.toBe(paths[1]!.split("/").at(-2));
    expect(readdirSync(join(tmp.path, "spill")).length).toBe(2);
  });

  test("a failed spill keeps the whole result inline, succeeds, and logs one warning", async () => {
    using tmp = tempDir();
    const fs: SpillFs = {
      ...realFs,
      writeSync: () => {
        throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
      },
    };
    await using c = await connect(tmp.path, { spill: { root: join(tmp.path, "spill"), maxInlineBytes: 1024, fs } });
    await c.call("remember", { content: "w".repeat(3000) });
    const r = await c.call("recall");
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("w".repeat(3000));
    expect(c.logs).toHaveLength(1);
    expect(c.logs[0]).toMatch(/^zerodb mcp: warning: could not spill a \d+-byte result .*no space left on device.*kept inline$/);
  });

  test("meta.redacted is zerodb's count: a caller's value is dropped", async () => {
    using tmp = tempDir();
    await using c = await connect(tmp.path);
    await c.call("remember", { content: "plain", meta: { redacted: 99, tag: "x" } });
    await c.call("remember", { content: "token sk-ant-abcdefghijklmnopqrstuvwxyz", meta: { redacted: 99 } });
    const turns = ((await c.call("recall")).structuredContent as { turns: { meta: unknown }[] }).turns;
    expect(turns.map((t) => t.meta)).toEqual([{ tag: "x" }, { redacted: 1 }]);
    expect((await c.call("stats")).structuredContent).toMatchObject({ redactions: 1 });
  });

  test("redaction can be turned off (config redact: false), and the entry says so in its meta", async () => {
    using tmp = tempDir();
    await using c = await connect(tmp.path, { redact: false });
    const r = await c.call("remember", { content: "password=hunter2hunter2" });
    expect(r.structuredContent).toMatchObject({ redacted: 0 });
    expect(text(await c.call("recall"))).toContain("password=hunter2hunter2");
    const turns = ((await c.call("recall")).structuredContent as { turns: { meta: unknown }[] }).turns;
    expect(turns.map((t) => t.meta)).toEqual([{ redaction: "off" }]);
  });

  test("an unexpected failure is a generic internal tool error, logged once without a stack", async () => {
    using tmp = tempDir();
    const broken = new Proxy({ tenant: "local" } as Memory, {
      get: (target, prop) =>
        prop === "tenant"
          ? target.tenant
          : async () => {
              throw new Error("disk on fire at /secret/path");
            },
    });
    await using c = await connect(tmp.path, { memory: broken });
    const r = await c.call("stats");
    expect(r.isError).toBe(true);
    expect(text(r)).toBe("internal: internal error");
    expect(r.structuredContent).toEqual({ error: { code: "internal", message: "internal error" } });
    expect(c.logs).toEqual(["zerodb mcp: internal error in tool stats: disk on fire at /secret/path"]);
  });
});

describe("createMcpServer with a memory opened on first use", () => {
  test("initialize and tools/list do not open it; the first tool call does, once", async () => {
    using tmp = tempDir();
    const store = openSqliteStore(join(tmp.path, "data"));
    let opens = 0;
    await using c = await connect(tmp.path, {
      memory: async () => {
        opens++;
        return store.memory("local");
      },
    });
    expect((await c.client.listTools()).tools.map((t) => t.name)).toContain("remember");
    expect(opens).toBe(0);
    await c.call("remember", { content: "opened lazily" });
    expect(text(await c.call("recall"))).toContain("opened lazily");
    expect(opens).toBe(1);
    store.close();
  });

  test("a memory that cannot be opened is each call's typed tool error, and a later call opens it again", async () => {
    using tmp = tempDir();
    const store = openSqliteStore(join(tmp.path, "data"));
    let fail = true;
    await using c = await connect(tmp.path, {
      memory: async () => {
        if (fail) throw new ZeroDbError("unavailable", "cannot create the data dir /nowhere/data");
        return store.memory("local");
      },
    });
    for (let i = 0; i < 2; i++) {
      const r = await c.call("stats");
      expect(r.isError).toBe(true);
      expect(text(r)).toBe("unavailable: cannot create the data dir /nowhere/data");
      expect(r.structuredContent).toEqual({ error: { code: "unavailable", message: "cannot create the data dir /nowhere/data" } });
    }
    // Bad arguments are still named before any open is tried.
    expect(text(await c.call("remember", { content: 7 }))).toStartWith("invalid_input: content:");
    fail = false;
    const ok = await c.call("stats");
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({ turns: { count: 0 } });
    store.close();
  });
});

describe("readHint", () => {
  test("names each harness's own file-reading tool", () => {
    expect(readHint("claude-code")).toContain("the Read tool");
    expect(readHint("gemini-cli-mcp-client")).toContain("read_file tool");
    expect(readHint("codex-mcp-client")).toContain("sed -n");
    expect(readHint("opencode")).toContain("read tool");
    expect(readHint("cursor-vscode")).toContain("read_file tool");
    expect(readHint("some-new-client")).toBe(DEFAULT_HINT);
    expect(readHint(undefined)).toBe(DEFAULT_HINT);
  });
});
