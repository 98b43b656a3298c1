/**
 * Fuzz the MCP door (issue 9): generated arguments for every tool of
 * DESIGN.md 6.2, sent by the SDK's own Client to the built `zerodb mcp`.
 * Bad arguments are tool errors, never protocol errors; each names its field
 * (I6) and leaks nothing (I10); a refused call writes nothing (I6); object
 * paths never reach outside the allowed roots (section 8); the server keeps
 * serving throughout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type McpProcess, mcpEnv, startMcp } from "../mcp/_client.ts";
import { ZERODB, tempDir } from "../helpers.ts";
import { INTERNALS, expectErrorDoc, integrity, lastLsn, reportCases } from "./_check.ts";
import { anyValue, deepJsonText, fuzzRuns, inputs, nastyString } from "./arbitraries.ts";

const RUNS = fuzzRuns(1 / 3);

/** A real object nested `depth` levels deep (the SDK client serializes it, so it stays under the JS stack's reach). */
const deepObject = fc.constantFrom(101, 1_001, 3_000).map((depth) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
});

/** A value usually right for the field, sometimes anything, sometimes deeply nested. */
const maybe = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: anyValue }, { weight: 1, arbitrary: deepObject });

/** Arguments with a few unknown keys now and then. */
function withExtras(rec: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(rec, fc.option(fc.dictionary(fc.constantFrom("extra", "__proto__", "constructor", "tenant", "toString"), anyValue, { maxKeys: 2 }), { freq: 6 }))
    .map(([r, extra]) => {
      const out: Record<string, unknown> = { ...r };
      // defineProperty: a key named __proto__ must travel as data, not set the prototype.
      for (const [k, v] of Object.entries(extra ?? {})) Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
      return out;
    });
}

/** Paths an object tool may be given: inside the root, outside it, through a symlink, or nonsense. */
const filePath = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("seed.txt", "sub/seed.txt", "missing.txt", "sub", ".", "") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "../outside/secret.txt",
      "link-out/secret.txt",
      "link-file",
      "/etc/hostname",
      "sub/../../outside/secret.txt",
      "./seed.txt",
      "sub//seed.txt",
    ),
  },
  { weight: 2, arbitrary: nastyString },
);
/** Destinations for object_get: new files, existing ones, outside ones. */
const newPath = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 1e9 }).map((n) => `out-${n}.bin`) },
  {
    weight: 3,
    arbitrary: fc.constantFrom("seed.txt", "../outside/new.bin", "link-out/new.bin", "link-file", "/tmp/zerodb-fuzz-escape.bin", "missing-dir/new.bin", "sub"),
  },
  { weight: 1, arbitrary: nastyString },
);
const digest = fc.oneof(
  fc.constant("SEED"),
  fc.constant("IMAGE"),
  fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`),
  nastyString,
);

/** Argument generators per tool (the store fuzz's near-valid inputs where the tool takes an operation's input). */
const TOOLS: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  remember: withExtras(
    fc.record(
      {
        content: maybe(fc.string()),
        role: maybe(fc.constantFrom("user", "assistant", "tool", "system", "note")),
        session: maybe(fc.constantFrom("s", "p/a", "é/ü")),
        meta: maybe(fc.dictionary(fc.string(), fc.jsonValue())),
        idem_key: maybe(fc.string({ minLength: 1, maxLength: 8 })),
      },
      { requiredKeys: [] },
    ),
  ),
  recall: inputs.read.map((r) => ({ ...r })),
  search: inputs.search.map((r) => ({ ...r })),
  sessions: inputs.sessions.map((r) => ({ ...r })),
  fact_set: withExtras(
    fc.record(
      { key: maybe(fc.constantFrom("k", "p/a", "seed")), value: fc.oneof(anyValue, deepObject), idem_key: maybe(fc.string({ minLength: 1, maxLength: 8 })) },
      { requiredKeys: [] },
    ),
  ),
  fact_get: inputs.factGet.map((r) => ({ ...r })),
  fact_list: inputs.factList.map((r) => ({ ...r })),
  forget: inputs.forget.map((r) => ({ ...r })),
  object_put: withExtras(
    fc.record(
      {
        path: maybe(filePath),
        name: maybe(nastyString),
        type: maybe(fc.constantFrom("text/plain", "image/png", "nope", "a/b; x=1")),
        idem_key: maybe(fc.string({ minLength: 1, maxLength: 8 })),
      },
      { requiredKeys: [] },
    ),
  ),
  object_get: withExtras(fc.record({ object: maybe(digest), path: maybe(newPath) }, { requiredKeys: [] })),
  link_add: withExtras(
    fc.record(
      {
        url: maybe(fc.oneof(fc.webUrl(), fc.constantFrom("javascript:alert(1)", "file:///etc/passwd", "http://"))),
        title: maybe(nastyString),
        note: maybe(nastyString),
        idem_key: maybe(nastyString),
      },
      { requiredKeys: [] },
    ),
  ),
  stats: withExtras(fc.constant({})),
};

describe("MCP door fuzz (I6, I10, section 8)", () => {
  let tmp: { path: string; [Symbol.dispose](): void };
  let mcp: McpProcess;
  let work: string;
  let outside: string;
  const seeds: Record<string, string> = {};
  let cases = 0;
  const dataDir = () => join(tmp.path, "zerodb", "data");

  beforeAll(async () => {
    tmp = tempDir("zerodb-fuzz-mcp-");
    work = join(tmp.path, "work");
    outside = join(tmp.path, "outside");
    mkdirSync(join(work, "sub"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(work, "seed.txt"), "seed file");
    writeFileSync(join(work, "sub", "seed.txt"), "seed file in sub");
    writeFileSync(join(outside, "secret.txt"), "outside the roots");
    symlinkSync(outside, join(work, "link-out"));
    symlinkSync(join(outside, "secret.txt"), join(work, "link-file"));
    mcp = await startMcp({ home: tmp.path, cwd: work });
    seeds.SEED = ((await mcp.call("object_put", { path: "seed.txt" })).structuredContent as { object: string }).object;
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
    writeFileSync(join(work, "pixel.png"), png);
    seeds.IMAGE = ((await mcp.call("object_put", { path: "pixel.png" })).structuredContent as { object: string }).object;
    await mcp.call("remember", { content: "seed alpha", session: "s" });
    await mcp.call("fact_set", { key: "seed", value: 1 });
  });

  afterAll(async () => {
    await mcp?.[Symbol.asyncDispose]();
    reportCases("mcp", cases);
    tmp?.[Symbol.dispose]();
  });

  for (const [tool, arb] of Object.entries(TOOLS)) {
    test(`${tool}: ${RUNS} generated argument sets: tool errors name the field, never a protocol error, nothing written on refusal (I6, I10)`, async () => {
      await fc.assert(
        fc.asyncProperty(arb, async (raw) => {
          const args = { ...raw };
          for (const k of ["object"]) if (typeof args[k] === "string" && seeds[args[k] as string]) args[k] = seeds[args[k] as string];
          const context = `${tool} ${JSON.stringify(args)?.slice(0, 300)}`;
          const before = lastLsn(dataDir());
          const outsideBefore = readdirSync(outside).join(",");
          let r: CallToolResult;
          try {
            r = (await mcp.client.callTool({ name: tool, arguments: args })) as CallToolResult;
          } catch (err) {
            throw new Error(`I6: bad arguments must be a tool error, not a protocol error (${context}): ${(err as Error).message}`);
          }
          cases++;
          if (r.isError) {
            const err = expectErrorDoc(r.structuredContent, context, { forbidden: [`${tmp.path}/zerodb`] });
            const text = r.content[0]?.type === "text" ? r.content[0].text : "";
            expect(text.startsWith(`${err.code}: `), `I6: the text starts with the code (${context})`).toBe(true);
            if (err.field) expect(text.includes(err.field), `I6: the text names the field (${context})`).toBe(true);
            expect(lastLsn(dataDir()), `I6: a refused call writes nothing (${context})`).toBe(before);
          }
          expect(readdirSync(outside).join(","), `section 8: nothing written outside the roots (${context})`).toBe(outsideBefore);
        }),
        { numRuns: RUNS },
      );
    }, 120_000);
  }

  test("raw JSON-RPC lines the SDK client would never send (deep nesting, garbage, wrong shapes): every answer is a result or a JSON-RPC error, and the server keeps serving (I6, I10)", async () => {
    const deep = deepJsonText(200_000, "object");
    const lines = [
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fact_set","arguments":{"key":"k","value":${deep}}}}`,
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"content":"x","meta":${deep}}}}`,
      `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fact_set","arguments":${deep}}}`,
      `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":${deep}}`,
      `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"stats","arguments":[1,2]}}`,
      "not json at all",
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
      deep,
      JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "stats", arguments: {} } }),
    ];
    const proc = Bun.spawn([ZERODB, "mcp"], { cwd: work, env: mcpEnv(tmp.path), stdin: new Blob([`${lines.join("\n")}\n`]), stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    cases += lines.length;
    expect(code, "the server ends cleanly at EOF").toBe(0);
    const answers = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id?: number; result?: CallToolResult; error?: unknown });
    expect(
      answers
        .map((a) => a.id)
        .filter((id) => id !== undefined)
        .sort((a, b) => a! - b!),
      "every request with an id is answered",
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const a of answers) expect(a.result !== undefined || a.error !== undefined, `a result or an error: ${JSON.stringify(a).slice(0, 200)}`).toBe(true);
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(2)?.result?.structuredContent, "I6: the deep value is refused naming it").toEqual({
      error: { code: "invalid_input", message: expect.stringContaining("nests deeper"), field: "value" },
    });
    expect((byId.get(3)?.result?.structuredContent as any)?.error?.field, "I6: the deep meta is refused naming it").toBe("meta");
    expect(byId.get(8)?.result?.isError, "the server still serves").toBeUndefined();
    expect(stderr, "I10: no stack or internals on stderr").not.toMatch(INTERNALS);
  });

  test("after everything: the server still serves, its stderr holds no stack or SQL, the store is intact (I10, I2)", async () => {
    const r = (await mcp.call("stats")) as CallToolResult;
    expect(r.isError).toBeUndefined();
    expect(mcp.stderr(), "I10: no internals on stderr").not.toMatch(INTERNALS);
    expect(mcp.stderr(), "I10: no internal error").not.toMatch(/internal error/);
    expect(integrity(dataDir())).toBe("ok");
    expect(
      readdirSync("/tmp").filter((f) => f.startsWith("zerodb-fuzz-escape")),
      "section 8: nothing written outside the roots",
    ).toEqual([]);
  });
});
