/**
 * Remote mode (DESIGN.md 6.2): `zerodb mcp --url` serves the same tools over
 * the HTTP client against a `zerodb serve`, in the token's tenant.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ZERODB, runJson, tempDir } from "../helpers.ts";
import { mcpEnv, startMcp, textOf } from "./_client.ts";

/** Starts `zerodb serve --port 0` and resolves with its URL once it listens. */
async function serve(home: string) {
  const proc = Bun.spawn([ZERODB, "serve", "--port", "0"], { cwd: home, env: mcpEnv(home), stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const reader = proc.stderr.getReader();
  let seen = "";
  while (!/listening on (\S+)/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`zerodb serve exited: ${seen}`);
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    url: /listening on (\S+)/.exec(seen)![1]!.replace(/\/$/, ""),
    async [Symbol.asyncDispose]() {
      proc.kill();
      await proc.exited;
    },
  };
}

describe("zerodb mcp --url", () => {
  test("serves the tools in the token's tenant over HTTP", async () => {
    using tmp = tempDir();
    const { token } = await runJson<{ token: string }>(["token", "create", "--tenant", "alice"], { home: tmp.path });
    await using server = await serve(tmp.path);
    // A separate home for the client: nothing local is opened.
    const clientHome = join(tmp.path, "client");
    await using mcp = await startMcp({ home: tmp.path, args: ["--url", server.url], env: { ZERODB_TOKEN: token, ZERODB_HOME: clientHome } });
    const r = await mcp.call("remember", { content: "remote memory works", session: "remote/test" });
    expect(r.structuredContent).toEqual({ session: "remote/test", lsn: expect.any(Number), duplicate: false, redacted: 0 });
    const page = await mcp.call("recall", { session: "remote/test" });
    expect((page.structuredContent as { turns: { content: string }[] }).turns.map((t) => t.content)).toEqual(["remote memory works"]);
    const hits = await mcp.call("search", { query: "remote" });
    expect((hits.structuredContent as { hits: unknown[] }).hits).toHaveLength(1);
    expect(await mcp.call("stats")).toMatchObject({ structuredContent: { tenant: "alice" } });
    const missing = await mcp.call("fact_get", { key: "nope" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toStartWith("not_found: key: ");
    const bad = await mcp.call("remember", { content: "", session: "/bad" });
    expect(textOf(bad)).toStartWith("invalid_input: session: ");
  });

  test("a wrong token fails at start with one line on stderr and nothing on stdout", async () => {
    using tmp = tempDir();
    await runJson(["token", "create", "--tenant", "alice"], { home: tmp.path });
    await using server = await serve(tmp.path);
    const proc = Bun.spawn([ZERODB, "mcp", "--url", server.url], {
      cwd: tmp.path,
      env: mcpEnv(tmp.path, { ZERODB_TOKEN: "not-a-real-token" }),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ stdout, code }).toEqual({ stdout: "", code: 1 });
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toStartWith("zerodb: ");
  });
});
