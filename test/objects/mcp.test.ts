/**
 * The MCP tools object_put, object_get and link_add (DESIGN.md section 8)
 * in-process, a real SDK client over a linked in-memory transport: the
 * allowed roots, symlinks and '..' refused, images inline, anything else to a
 * new file only, never over an existing one.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectHttpMemory } from "../../src/client/http.ts";
import { createApp } from "../../src/http/app.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { sha256Hex } from "../../src/util/hash.ts";
import { tempDir } from "../helpers.ts";
import { startMcp, writeConfig } from "../mcp/_client.ts";
import { filesUnder } from "./_lib.ts";

/** A client connected to a server whose cwd is `<tmp>/project`, with `<tmp>/extra-root` as an object root. */
async function connect() {
  const tmp = tempDir();
  const cwd = join(tmp.path, "project");
  const extra = join(tmp.path, "extra-root");
  const outside = join(tmp.path, "outside");
  for (const d of [cwd, extra, outside]) mkdirSync(d);
  const store = openSqliteStore(join(tmp.path, "data"));
  const memory = store.memory("local");
  const server = createMcpServer({ memory, cwd, objectRoots: [extra], spill: { root: join(tmp.path, "spill"), maxInlineBytes: 64 * 1024 }, log: () => {} });
  const client = new Client({ name: "test", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return {
    tmp: tmp.path,
    cwd,
    extra,
    outside,
    store,
    memory,
    call: async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close();
      store.close();
      tmp[Symbol.dispose]();
    },
  };
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

/** Expects a tool error with this code and field; returns its text. */
function expectError(r: CallToolResult, code: string, field?: string): string {
  expect(r.isError).toBe(true);
  expect((r.structuredContent as { error: { code: string; field?: string } }).error).toMatchObject({ code, ...(field ? { field } : {}) });
  return textOf(r);
}

describe("object_put", () => {
  test("stores a file inside the working directory or an object root, with its name and guessed type", async () => {
    await using c = await connect();
    writeFileSync(join(c.cwd, "notes.txt"), "inside the project");
    const r = await c.call("object_put", { path: "notes.txt" });
    expect(r.isError).toBeUndefined();
    const digest = `sha256:${sha256Hex("inside the project")}`;
    expect(r.structuredContent).toEqual({ object: digest, size: 18, type: "text/plain;charset=utf-8", lsn: 1, duplicate: false });
    expect(textOf(r)).toContain(digest);
    expect((await c.memory.objectGet({ object: digest })).name).toBe("notes.txt");
    writeFileSync(join(c.extra, "a.bin"), "in the extra root");
    const extra = await c.call("object_put", { path: join(c.extra, "a.bin"), name: "renamed", type: "application/x-test" });
    expect(extra.structuredContent).toMatchObject({ size: 17, type: "application/x-test" });
  });

  test("refuses a path outside the roots, a symlink inside that points outside, and '..' segments", async () => {
    await using c = await connect();
    writeFileSync(join(c.outside, "secret.txt"), "not for the model");
    writeFileSync(join(c.cwd, "ok.txt"), "fine");
    symlinkSync(join(c.outside, "secret.txt"), join(c.cwd, "link.txt"));
    symlinkSync(c.outside, join(c.cwd, "linkdir"));
    const refusals: [string, string][] = [
      [join(c.outside, "secret.txt"), "outside the allowed roots"],
      ["/etc/passwd", "outside the allowed roots"],
      ["link.txt", "outside the allowed roots"],
      ["linkdir/secret.txt", "outside the allowed roots"],
      ["../outside/secret.txt", "'..'"],
      ["sub/../ok.txt", "'..'"],
      [`${c.cwd}/../project/ok.txt`, "'..'"],
    ];
    for (const [path, why] of refusals) {
      const r = await c.call("object_put", { path });
      expect(expectError(r, "invalid_input", "path")).toContain(why);
    }
    expect((await c.memory.objectList({})).objects).toEqual([]);
    // A missing file inside the roots says so; one outside says only that it is outside.
    expect(expectError(await c.call("object_put", { path: "nope.txt" }), "invalid_input", "path")).toContain("no such file");
    expect(expectError(await c.call("object_put", { path: join(c.outside, "nope.txt") }), "invalid_input", "path")).toContain("outside");
  });

  test("bad arguments name the field", async () => {
    await using c = await connect();
    writeFileSync(join(c.cwd, "f"), "x");
    expectError(await c.call("object_put", { path: "f", type: "nonsense" }), "invalid_input", "type");
    expectError(await c.call("object_put", { path: "f", colour: "red" }), "invalid_input", "colour");
    expectError(await c.call("object_put", {}), "invalid_input", "path");
  });
});

describe("object_get", () => {
  test("an image up to 1 MiB comes back inline as image content", async () => {
    await using c = await connect();
    const png = new Uint8Array(4096).map((_, i) => (i * 7) & 0xff);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const put = await c.memory.objectPut(png, { type: "image/png", name: "shot.png" });
    const r = await c.call("object_get", { object: put.object });
    expect(r.isError).toBeUndefined();
    expect(r.content[1]).toEqual({ type: "image", data: Buffer.from(png).toString("base64"), mimeType: "image/png" });
    expect(r.structuredContent).toEqual({ object: put.object, size: 4096, type: "image/png", name: "shot.png", lsn: put.lsn });
  });

  test("issue 14: bytes declared as an image but not one (a key file stored as image/png) never come back inline", async () => {
    await using c = await connect();
    const key = new TextEncoder().encode("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n");
    const put = await c.memory.objectPut(key, { type: "image/png", name: "id_ed25519" });
    const r = await c.call("object_get", { object: put.object });
    expect(expectError(r, "invalid_input", "path")).toContain("whose bytes are not an image");
    expect(JSON.stringify(r)).not.toContain(Buffer.from(key).toString("base64"));
  });

  test("without a path, a video's error states its size and type, and nothing is written", async () => {
    await using c = await connect();
    const put = await c.memory.objectPut(new Uint8Array(12345), { type: "video/mp4", name: "clip.mp4" });
    const before = filesUnder(c.tmp).filter((f) => !f.startsWith("data/"));
    const r = await c.call("object_get", { object: put.object });
    const text = expectError(r, "invalid_input", "path");
    expect(text).toContain("12345 bytes");
    expect(text).toContain("video/mp4");
    expect(filesUnder(c.tmp).filter((f) => !f.startsWith("data/"))).toEqual(before);
    // An image over 1 MiB needs a path too.
    const big = await c.memory.objectPut(new Uint8Array(1024 * 1024 + 1), { type: "image/png" });
    expect(expectError(await c.call("object_get", { object: big.object }), "invalid_input", "path")).toContain(`${1024 * 1024 + 1} bytes of image/png`);
  });

  test("with a path: written to a new file inside the roots; an existing file is refused and untouched", async () => {
    await using c = await connect();
    const put = await c.memory.objectPut(new TextEncoder().encode("movie bytes"), { type: "video/mp4" });
    const r = await c.call("object_get", { object: put.object, path: "out/clip.mp4" }).catch((e) => e);
    expectError(r, "invalid_input", "path");
    mkdirSync(join(c.cwd, "out"));
    const ok = await c.call("object_get", { object: put.object, path: "out/clip.mp4" });
    expect(ok.structuredContent).toMatchObject({ object: put.object, size: 11, path: join(c.cwd, "out", "clip.mp4") });
    expect(readFileSync(join(c.cwd, "out", "clip.mp4"), "utf8")).toBe("movie bytes");
    writeFileSync(join(c.cwd, "keep.mp4"), "precious");
    expectError(await c.call("object_get", { object: put.object, path: "keep.mp4" }), "conflict", "path");
    expect(readFileSync(join(c.cwd, "keep.mp4"), "utf8")).toBe("precious");
    // A symlink planted at the path is refused too, and its target untouched.
    writeFileSync(join(c.outside, "target"), "outside");
    symlinkSync(join(c.outside, "target"), join(c.cwd, "planted.mp4"));
    expectError(await c.call("object_get", { object: put.object, path: "planted.mp4" }), "conflict", "path");
    expect(readFileSync(join(c.outside, "target"), "utf8")).toBe("outside");
    // Outside the roots, through a symlinked directory, or with '..': refused, nothing written.
    symlinkSync(c.outside, join(c.cwd, "linkdir"));
    for (const path of [join(c.outside, "x.mp4"), "linkdir/x.mp4", "../outside/x.mp4"]) {
      expectError(await c.call("object_get", { object: put.object, path }), "invalid_input", "path");
    }
    expect(readdirSync(c.outside)).toEqual(["target"]);
    expect(readdirSync(c.cwd).filter((f) => f.includes(".tmp"))).toEqual([]);
  });

  test("a foreign digest is not_found exactly like an unknown one (I5)", async () => {
    await using c = await connect();
    const other = await c.store.memory("someone-else").objectPut(new TextEncoder().encode("theirs"), { type: "image/png" });
    const foreign = await c.call("object_get", { object: other.object });
    const unknown = await c.call("object_get", { object: `sha256:${"e".repeat(64)}` });
    expect(textOf(foreign)).toBe(textOf(unknown).replace("e".repeat(64), other.object.slice(7)));
    expectError(foreign, "not_found", "object");
  });
});

describe("link_add", () => {
  test("saves a searchable link; other schemes are refused", async () => {
    await using c = await connect();
    const r = await c.call("link_add", { url: "https://example.com/design", title: "Design doc", note: "the echidna decision" });
    expect(r.structuredContent).toEqual({ url: "https://example.com/design", lsn: 1, duplicate: false });
    const hits = await c.call("search", { query: "echidna" });
    expect(JSON.stringify(hits.structuredContent)).toContain("https://example.com/design");
    expectError(await c.call("link_add", { url: "file:///etc/passwd" }), "invalid_input", "url");
  });
});

describe("zerodb mcp (the built binary)", () => {
  test("object tools use the config's object_roots and the server's working directory", async () => {
    using home = tempDir();
    const project = join(home.path, "project");
    const root = join(home.path, "shared");
    mkdirSync(project);
    mkdirSync(root);
    writeConfig(home.path, { object_roots: [root] });
    writeFileSync(join(root, "in-root.txt"), "from the configured root");
    await using mcp = await startMcp({ home: home.path, cwd: project });
    const put = await mcp.call("object_put", { path: join(root, "in-root.txt") });
    expect(put.structuredContent).toMatchObject({ object: `sha256:${sha256Hex("from the configured root")}`, size: 24 });
    const got = await mcp.call("object_get", { object: (put.structuredContent as { object: string }).object, path: "copy.txt" });
    expect(got.isError).toBeUndefined();
    expect(readFileSync(join(project, "copy.txt"), "utf8")).toBe("from the configured root");
    expectError(await mcp.call("object_put", { path: join(home.path, "zerodb", "config.json") }), "invalid_input", "path");
  });
});

describe("object tools over the HTTP client (remote mode)", () => {
  test("object_put streams a file up and object_get streams it down to a new file", async () => {
    using tmp = tempDir();
    const cwd = join(tmp.path, "project");
    mkdirSync(cwd);
    const store = openSqliteStore(join(tmp.path, "data"));
    try {
      const app = createApp({ store });
      const token = (await store.tokens.create({ tenant: "remote" })).token;
      const memory = await connectHttpMemory({ url: "http://zerodb.test", token, fetch: async (req) => app.fetch(req) });
      const server = createMcpServer({ memory, cwd, spill: { root: join(tmp.path, "spill"), maxInlineBytes: 64 * 1024 }, log: () => {} });
      const client = new Client({ name: "test", version: "1" });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await Promise.all([server.connect(b), client.connect(a)]);
      const bytes = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31) & 0xff);
      writeFileSync(join(cwd, "clip.mp4"), bytes);
      const put = (await client.callTool({ name: "object_put", arguments: { path: "clip.mp4" } })) as CallToolResult;
      expect(put.structuredContent).toMatchObject({ object: `sha256:${sha256Hex(bytes)}`, size: bytes.length, type: "video/mp4" });
      const object = (put.structuredContent as { object: string }).object;
      const got = (await client.callTool({ name: "object_get", arguments: { object, path: "back.mp4" } })) as CallToolResult;
      expect(got.isError).toBeUndefined();
      expect(readFileSync(join(cwd, "back.mp4")).equals(Buffer.from(bytes))).toBe(true);
      const none = (await client.callTool({ name: "object_get", arguments: { object } })) as CallToolResult;
      expect(expectError(none, "invalid_input", "path")).toContain(`${bytes.length} bytes of video/mp4`);
      await client.close();
    } finally {
      store.close();
    }
  });
});
