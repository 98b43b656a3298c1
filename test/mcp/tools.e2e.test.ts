/**
 * `zerodb mcp` end to end (DESIGN.md 6.2): the built binary driven by the
 * SDK's Client over stdio. Every tool is called for a result and for an
 * error, and the server keeps serving after each error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { projectSession } from "../../src/project.ts";
import { tempDir } from "../helpers.ts";
import { type McpProcess, startMcp, textOf } from "./_client.ts";

const TOOL_NAMES = ["remember", "recall", "search", "sessions", "fact_set", "fact_get", "fact_list", "forget", "object_put", "object_get", "link_add", "stats"];

let tmp: ReturnType<typeof tempDir>;
let mcp: McpProcess;
let project: string;
let session: string;

beforeAll(async () => {
  tmp = tempDir();
  project = join(tmp.path, "my app");
  mkdirSync(project);
  session = projectSession(project);
  mcp = await startMcp({ home: tmp.path, cwd: project });
});

afterAll(async () => {
  await mcp?.[Symbol.asyncDispose]();
  tmp?.[Symbol.dispose]();
});

/** Expects a tool error whose text is `<code>: <field>: ...` and whose data names the field. */
async function expectToolError(name: string, args: Record<string, unknown>, code: string, field: string) {
  const r = await mcp.call(name, args);
  expect(r.isError).toBe(true);
  expect(textOf(r)).toStartWith(`${code}: ${field}: `);
  expect(r.structuredContent).toEqual({ error: { code, message: expect.any(String), field } });
}

describe("zerodb mcp over stdio", () => {
  test("initialize: server info, tools capability, instructions for the model", () => {
    expect(mcp.client.getServerVersion()).toEqual({ name: "zerodb", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(mcp.client.getServerCapabilities()?.tools).toBeDefined();
    expect(mcp.client.getInstructions()).toContain("remember");
  });

  test("tools/list: every tool, with a description and the operation's input schema", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(80);
      expect(t.inputSchema.type).toBe("object");
      expect((t.inputSchema as { additionalProperties?: boolean }).additionalProperties).toBe(false);
    }
    const remember = tools.find((t) => t.name === "remember")!;
    expect(Object.keys(remember.inputSchema.properties!)).toEqual(["content", "role", "session", "meta", "idem_key"]);
    expect(remember.inputSchema.required).toEqual(["content"]);
    const recall = tools.find((t) => t.name === "recall")!;
    expect(recall.inputSchema.required ?? []).toEqual([]);
    expect(tools.find((t) => t.name === "forget")!.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === "search")!.annotations?.readOnlyHint).toBe(true);
  });

  test("remember: appends to the project session of the server's working directory", async () => {
    const r = await mcp.call("remember", { content: "We chose SQLite FTS5 for search", role: "assistant" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ session, lsn: 1, duplicate: false, redacted: 0 });
    expect(textOf(r)).toBe(`Remembered as lsn 1 in session ${session}.`);
    expect(session).toMatch(/^my app-[0-9a-f]{8}$/);
  });

  test("remember: redacts secrets and counts them in meta and stats", async () => {
    const r = await mcp.call("remember", {
      content: "deploy with password=hunter2hunter2 and key AKIAABCDEFGHIJKLMNOP",
      session: "ops/deploy",
      meta: { source: "test" },
    });
    expect(r.structuredContent).toEqual({ session: "ops/deploy", lsn: 2, duplicate: false, redacted: 2 });
    expect(textOf(r)).toContain("2 secrets were redacted");
    const page = await mcp.call("recall", { session: "ops/deploy" });
    const turn = (page.structuredContent as { turns: { content: string; meta: unknown }[] }).turns[0]!;
    expect(turn.content).toBe("deploy with password=[redacted:assignment] and key [redacted:aws_access_key]");
    expect(turn.meta).toEqual({ source: "test", redacted: 2 });
    expect(textOf(page)).not.toContain("hunter2");
    const stats = await mcp.call("stats");
    expect((stats.structuredContent as { redactions: number }).redactions).toBe(2);
  });

  test("remember: a retry with the same idem_key is a duplicate, not a second write", async () => {
    const first = await mcp.call("remember", { content: "once", idem_key: "k-1" });
    const again = await mcp.call("remember", { content: "once", idem_key: "k-1" });
    expect(again.structuredContent).toEqual({ ...(first.structuredContent as object), duplicate: true });
    expect(textOf(again)).toContain("Already remembered");
  });

  test("remember: bad arguments are tool errors naming the field, and nothing is written", async () => {
    await expectToolError("remember", {}, "invalid_input", "content");
    await expectToolError("remember", { content: 42 }, "invalid_input", "content");
    await expectToolError("remember", { content: "x", role: "robot" }, "invalid_input", "role");
    await expectToolError("remember", { content: "x", session: "a//b" }, "invalid_input", "session");
    await expectToolError("remember", { content: "x", bogus: 1 }, "invalid_input", "bogus");
    await expectToolError("remember", { content: "x", meta: [1] }, "invalid_input", "meta");
    await expectToolError("remember", { content: "x".repeat(4 * 1024 * 1024 + 1) }, "too_large", "content");
    const stats = await mcp.call("stats");
    expect((stats.structuredContent as { turns: { count: number } }).turns.count).toBe(3);
  });

  test("recall: pages through the project session by default", async () => {
    await mcp.call("remember", { content: "second note" });
    const one = await mcp.call("recall", { limit: 1 });
    expect(one.structuredContent).toMatchObject({ session, turns: [{ lsn: 1, role: "assistant", content: "We chose SQLite FTS5 for search" }], next: 1 });
    expect(textOf(one)).toContain("call recall with after=1");
    const rest = await mcp.call("recall", { after: 1 });
    const turns = (rest.structuredContent as { turns: { content: string }[] }).turns;
    expect(turns.map((t) => t.content)).toEqual(["once", "second note"]);
    expect(textOf(rest)).toContain("\nsecond note");
    await expectToolError("recall", { limit: 5000 }, "invalid_input", "limit");
    await expectToolError("recall", { after: -1 }, "invalid_input", "after");
  });

  test("search: finds turns across sessions, best first", async () => {
    const r = await mcp.call("search", { query: "sqlite" });
    expect(r.structuredContent).toMatchObject({ hits: [{ lsn: 1, kind: "turn", session, role: "assistant" }] });
    expect(textOf(r)).toContain("[SQLite]");
    const none = await mcp.call("search", { query: "zebra" });
    expect(none.structuredContent).toEqual({ hits: [] });
    expect(textOf(none)).toBe('No hits for "zebra".');
    await expectToolError("search", { query: "" }, "invalid_input", "query");
    await expectToolError("search", { query: "x", role: 3 }, "invalid_input", "role");
  });

  test("sessions: lists sessions with counts", async () => {
    const r = await mcp.call("sessions");
    const names = (r.structuredContent as { sessions: { name: string; turns: number }[] }).sessions.map((s) => [s.name, s.turns]);
    expect(names).toEqual(
      [
        [session, 3],
        ["ops/deploy", 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))) as never,
    );
    expect(textOf(r)).toContain(`${session}: 3 turns`);
    await expectToolError("sessions", { limit: 0 }, "invalid_input", "limit");
  });

  test("fact_set, fact_get, fact_list: named values", async () => {
    const set = await mcp.call("fact_set", { key: "project/app/test-command", value: "bun test" });
    expect(set.structuredContent).toMatchObject({ key: "project/app/test-command", duplicate: false, lsn: expect.any(Number) });
    await mcp.call("fact_set", { key: "project/app/owners", value: ["ana", "bo"] });
    const got = await mcp.call("fact_get", { key: "project/app/test-command" });
    expect(got.structuredContent).toEqual({ key: "project/app/test-command", value: "bun test", lsn: (set.structuredContent as { lsn: number }).lsn });
    expect(textOf(got)).toStartWith('project/app/test-command = "bun test"');
    const list = await mcp.call("fact_list", { prefix: "project/app/" });
    expect((list.structuredContent as { facts: { key: string }[] }).facts.map((f) => f.key)).toEqual(["project/app/owners", "project/app/test-command"]);
    expect(textOf(list)).toContain('project/app/owners = ["ana","bo"]');
    await expectToolError("fact_set", { key: "k" }, "invalid_input", "value");
    await expectToolError("fact_get", { key: "nope" }, "not_found", "key");
    await expectToolError("fact_list", { limit: "ten" }, "invalid_input", "limit");
  });

  test("forget: a dry run counts, a forget removes", async () => {
    const dry = await mcp.call("forget", { selector: { session: "ops/deploy" }, dry_run: true });
    expect(dry.structuredContent).toEqual({ lsn: null, hidden: 1, dry_run: true });
    expect(textOf(dry)).toContain("dry run");
    const done = await mcp.call("forget", { selector: { session: "ops/deploy" } });
    expect(done.structuredContent).toMatchObject({ hidden: 1, dry_run: false, lsn: expect.any(Number) });
    const page = await mcp.call("recall", { session: "ops/deploy" });
    expect((page.structuredContent as { turns: unknown[] }).turns).toEqual([]);
    await expectToolError("forget", { selector: { session: "a", fact: "b" } }, "invalid_input", "selector");
    await expectToolError("forget", {}, "invalid_input", "selector");
  });

  test("stats: counts what is stored; a forgotten turn's redactions no longer count", async () => {
    const r = await mcp.call("stats");
    expect(r.structuredContent).toMatchObject({
      tenant: "local",
      turns: { count: 3 },
      sessions: 1,
      facts: { count: 2 },
      forgets: 1,
      forgotten: 1,
      redactions: 0,
    });
    expect(textOf(r)).toContain("tenant local");
    await expectToolError("stats", { verbose: true }, "invalid_input", "verbose");
  });

  test("an unknown tool is a protocol error, and the server keeps serving", async () => {
    const err = await mcp.client.callTool({ name: "teleport", arguments: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    const r = await mcp.call("stats");
    expect(r.isError).toBeFalsy();
  });

  test("nothing but warnings went to stderr", () => {
    expect(mcp.stderr()).toBe("");
  });
});
