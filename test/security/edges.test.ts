/**
 * The smaller holes of issue 14, item 5, each test naming what it defends:
 * a line too long for `zerodb mcp` is answered, not a way to stop the server;
 * a client that hangs up mid-request is logged as such, not as a server
 * fault; a fact key cannot be steered by a `..` segment, as sent on the
 * wire (where Bun would resolve it before the app sees the path) or encoded.
 */
import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createToken, startServer } from "../http/_server.ts";
import { mcpEnv } from "../mcp/_client.ts";
import { ZERODB, tempDir } from "../helpers.ts";

/** A raw `zerodb mcp` on pipes: write lines, read answers by id. */
function rawMcp(home: string) {
  const proc = Bun.spawn([ZERODB, "mcp"], { cwd: home, env: mcpEnv(home), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const answers: Record<string, unknown>[] = [];
  let wake = () => {};
  void (async () => {
    let buf = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) !== -1) {
        answers.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
        buf = buf.slice(nl + 1);
      }
      wake();
    }
    wake();
  })();
  const answer = async (id: unknown) => {
    for (;;) {
      const a = answers.find((x) => x.id === id);
      if (a) return a;
      if (proc.exitCode !== null) throw new Error(`zerodb mcp exited (${proc.exitCode}) before answering id ${JSON.stringify(id)}`);
      await new Promise<void>((r) => (wake = r));
    }
  };
  const write = async (text: string) => {
    proc.stdin.write(text);
    await proc.stdin.flush();
  };
  return { proc, answer, write };
}

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "edges", version: "1" } },
};

describe("zerodb mcp: an over-long line (issue 14, item 5)", () => {
  test("a 40 MiB request line gets a JSON-RPC error with its id, and the server keeps serving", async () => {
    using box = tempDir();
    const mcp = rawMcp(box.path);
    try {
      await mcp.write(`${JSON.stringify(INIT)}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
      expect((await mcp.answer(1)).result).toBeDefined();
      // Shaped as the SDK's client writes a request: the id is the line's last field.
      const content = "x".repeat(40 * 1024 * 1024);
      const huge = JSON.stringify({ method: "tools/call", params: { name: "remember", arguments: { content } }, jsonrpc: "2.0", id: 2 });
      for (let at = 0; at < huge.length; at += 1 << 20) await mcp.write(huge.slice(at, at + (1 << 20)));
      await mcp.write("\n");
      const refused = await mcp.answer(2);
      expect(refused.error, "the client waiting on id 2 is answered, not left hanging").toMatchObject({ code: -32600 });
      expect(String((refused.error as { message: string }).message)).toContain("over the limit");
      await mcp.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" })}\n`);
      const listed = (await mcp.answer(3)).result as { tools: { name: string }[] };
      expect(
        listed.tools.map((t) => t.name),
        "the server still answers after the long line",
      ).toContain("remember");
      expect(mcp.proc.exitCode, "still running").toBeNull();
    } finally {
      mcp.proc.kill();
      await mcp.proc.exited;
    }
  }, 120_000);

  test("an over-long line whose id cannot be seen is answered with id null", async () => {
    using box = tempDir();
    const mcp = rawMcp(box.path);
    try {
      await mcp.write(`${JSON.stringify(INIT)}\n`);
      await mcp.answer(1);
      await mcp.write(`${"y".repeat(30 * 1024 * 1024)}\n`);
      expect((await mcp.answer(null)).error).toMatchObject({ code: -32600 });
      await mcp.write(`${JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" })}\n`);
      expect((await mcp.answer(4)).result).toBeDefined();
    } finally {
      mcp.proc.kill();
      await mcp.proc.exited;
    }
  }, 120_000);
});

describe("zerodb serve: what a hostile client does to the log and the keys (issue 14, item 5)", () => {
  test("a client hanging up mid-body is logged as aborted, never as an internal error", async () => {
    using box = tempDir();
    const token = await createToken(box.path, "t");
    await using server = await startServer(box.path);
    const port = Number(new URL(server.url).port);
    for (const [method, path, type] of [
      ["POST", "/v1/turns", "application/json"],
      ["PUT", "/v1/objects", "application/octet-stream"],
    ] as const) {
      const socket = connect(port, "127.0.0.1");
      await new Promise((r) => socket.once("connect", r));
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${type}\r\nContent-Length: 100000\r\n\r\n{"session":`,
      );
      await Bun.sleep(200);
      socket.destroy();
      const line = await server.waitForLine(new RegExp(`^${method} ${path.replace("/", "\\/")} `));
      expect(line, "the request log says the client went away").toMatch(/ aborted \d/);
    }
    expect(server.stderr(), "no internal error is logged for a client's hang-up").not.toMatch(/internal|500/);
  });

  test("a fact key with an encoded '..' or '.' segment is refused, naming key; nothing is written", async () => {
    using box = tempDir();
    const token = await createToken(box.path, "t");
    await using server = await startServer(box.path);
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    for (const key of ["a%2F..%2Fb", "a%2F.%2Fb", "a%2F%2E%2E%2Fb"]) {
      const res = await fetch(`${server.url}/v1/facts/${key}`, { method: "PUT", headers: auth, body: JSON.stringify({ value: 1 }) });
      expect({ key, status: res.status, field: ((await res.json()) as { error?: { field?: string } }).error?.field }).toEqual({
        key,
        status: 400,
        field: "key",
      });
    }
    const list = (await (await fetch(`${server.url}/v1/facts`, { headers: auth })).json()) as { facts: unknown[] };
    expect(list.facts, "nothing was written under a normalized key").toEqual([]);
  });

  test("'..' and '.' segments as sent on the wire are refused before Bun normalizes them; nothing is written", async () => {
    using box = tempDir();
    const token = await createToken(box.path, "t");
    await using server = await startServer(box.path);
    const port = Number(new URL(server.url).port);
    /** One raw HTTP/1.1 request: fetch() and curl would resolve the dot segments before sending. */
    const raw = async (method: string, target: string, body = "") => {
      const socket = connect(port, "127.0.0.1");
      await new Promise((r) => socket.once("connect", r));
      let text = "";
      socket.on("data", (d: Buffer) => (text += d.toString("utf8")));
      const closed = new Promise((r) => socket.once("close", r));
      socket.write(
        `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      await closed;
      return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) };
    };
    const value = JSON.stringify({ value: 1 });
    const deep = (n: number) => `/v1/facts/${"x/".repeat(n)}b/..`;
    for (const target of [
      "/v1/facts/a/../b",
      "/v1/facts/a/%2e%2e/b",
      "/v1/facts/a/./b",
      "/v1/x/../facts/b",
      "/v1/facts//../b",
      "/v1/facts/a\\..\\b",
      deep(96),
      deep(97),
      deep(150),
    ]) {
      const r = await raw("PUT", target, value);
      expect({ target, status: r.status, field: (JSON.parse(r.body) as { error?: { field?: string } }).error?.field }, "refused, naming the path").toEqual({
        target,
        status: 400,
        field: "path",
      });
    }
    const list = await raw("GET", "/v1/facts");
    expect((JSON.parse(list.body) as { facts: unknown[] }).facts, "nothing was written under a normalized key").toEqual([]);
    expect((await raw("PUT", "/v1/facts/a/b/c", value)).status, "an ordinary nested key still works").toBe(200);
    expect((await raw("GET", "/healthz")).status).toBe(200);
  });
});
