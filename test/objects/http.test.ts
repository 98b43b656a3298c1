/**
 * The object and link routes of DESIGN.md 6.1 in-process (app.request, no
 * port): streamed PUT, GET/HEAD with Range, tenant isolation (I5), and the
 * HTTP client's object methods against the same app.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { connectHttpMemory } from "../../src/client/http.ts";
import { createApp } from "../../src/http/app.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { sha256Hex } from "../../src/util/hash.ts";
import { tempDir } from "../helpers.ts";
import { blobFiles, byteStream, hashStream, tempFiles } from "./_lib.ts";

/** An app over a scratch store with a token for tenants a and b. */
async function scratchApp(opts: { maxObjectBytes?: number } = {}) {
  const dir = tempDir();
  const dataDir = join(dir.path, "data");
  const store = openSqliteStore(dataDir, opts);
  const app = createApp({ store });
  const a = (await store.tokens.create({ tenant: "tenant-a" })).token;
  const b = (await store.tokens.create({ tenant: "tenant-b" })).token;
  const call = (token: string, path: string, init: RequestInit = {}) =>
    app.request(`http://zerodb.test${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
  return {
    app,
    store,
    dataDir,
    a,
    b,
    call,
    [Symbol.dispose]() {
      store.close();
      dir[Symbol.dispose]();
    },
  };
}

/** A response body as JSON, typed loosely for assertions. */
const json = (res: Response): Promise<any> => res.json();

const text = "0123456789abcdefghij";
const digest = `sha256:${sha256Hex(text)}`;

/** Headers without the ones that vary per response (Date). */
function stableHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== "date") out[k] = v;
  });
  return out;
}

describe("PUT /v1/objects", () => {
  test("stores the raw body with Content-Type, X-Zerodb-Name (percent-encoded UTF-8) and Idempotency-Key", async () => {
    using s = await scratchApp();
    const headers = { "content-type": "text/plain", "x-zerodb-name": encodeURIComponent("notes é.txt"), "idempotency-key": "up-1" };
    const res = await s.call(s.a, "/v1/objects", { method: "PUT", body: text, headers });
    expect(res.status).toBe(200);
    const put = await json(res);
    expect(put).toEqual({ object: digest, size: 20, type: "text/plain", lsn: put.lsn, duplicate: false });
    const again = await s.call(s.a, "/v1/objects", { method: "PUT", body: text, headers });
    expect(await json(again)).toEqual({ ...put, duplicate: true });
    const list = await json(await s.call(s.a, "/v1/objects"));
    expect(list).toEqual({ objects: [{ object: digest, size: 20, type: "text/plain", name: "notes é.txt", lsn: put.lsn }], next: null });
  });

  test("a body past max_object_bytes is 413 while streaming, and nothing is kept", async () => {
    using s = await scratchApp({ maxObjectBytes: 1024 * 1024 });
    const res = await s.call(s.a, "/v1/objects", { method: "PUT", body: byteStream(3 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect((await json(res)).error).toMatchObject({ code: "too_large", field: "object" });
    expect(blobFiles(s.dataDir)).toEqual([]);
    expect(tempFiles(s.dataDir)).toEqual([]);
  });

  test("bad headers are refused naming the field, before anything is stored", async () => {
    using s = await scratchApp();
    const bad = await s.call(s.a, "/v1/objects", { method: "PUT", body: text, headers: { "content-type": "nonsense" } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toMatchObject({ code: "invalid_input", field: "type" });
    const name = await s.call(s.a, "/v1/objects", { method: "PUT", body: text, headers: { "x-zerodb-name": "%E9%" } });
    expect((await json(name)).error).toMatchObject({ code: "invalid_input", field: "name" });
    expect(blobFiles(s.dataDir)).toEqual([]);
    const anon = await s.app.request("http://zerodb.test/v1/objects", { method: "PUT", body: text });
    expect(anon.status).toBe(401);
  });
});

describe("GET and HEAD /v1/objects/sha256:<hex>", () => {
  test("the whole object, with type, length, ETag and name", async () => {
    using s = await scratchApp();
    await s.call(s.a, "/v1/objects", { method: "PUT", body: text, headers: { "content-type": "text/plain", "x-zerodb-name": "n.txt" } });
    const res = await s.call(s.a, `/v1/objects/${digest}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(res.headers.get("content-length")).toBe("20");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("etag")).toBe(`"${digest}"`);
    expect(res.headers.get("x-zerodb-name")).toBe("n.txt");
    expect(await res.text()).toBe(text);
    const head = await s.call(s.a, `/v1/objects/${digest}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(stableHeaders(head)).toEqual(stableHeaders(res));
    expect(await head.text()).toBe("");
  });

  test("Range: first byte, last byte, an open range, a suffix range, a range past the end (416), an ignored multi-range", async () => {
    using s = await scratchApp();
    await s.call(s.a, "/v1/objects", { method: "PUT", body: text });
    const get = (range: string, method = "GET") => s.call(s.a, `/v1/objects/${digest}`, { method, headers: { range } });
    const cases: [string, number, string, string | null][] = [
      ["bytes=0-0", 206, "0", "bytes 0-0/20"],
      ["bytes=19-19", 206, "j", "bytes 19-19/20"],
      ["bytes=15-", 206, "fghij", "bytes 15-19/20"],
      ["bytes=-3", 206, "hij", "bytes 17-19/20"],
      ["bytes=-50", 206, text, "bytes 0-19/20"],
      ["bytes=5-1000", 206, text.slice(5), "bytes 5-19/20"],
      ["bytes=0-1,4-5", 200, text, null],
      ["items=0-1", 200, text, null],
    ];
    for (const [range, status, body, contentRange] of cases) {
      const res = await get(range);
      expect({ range, status: res.status, body: await res.text(), contentRange: res.headers.get("content-range") }).toEqual({
        range,
        status,
        body,
        contentRange,
      });
      if (status === 206) expect(res.headers.get("content-length")).toBe(String(body.length));
    }
    for (const range of ["bytes=20-", "bytes=20-25", "bytes=-0"]) {
      const res = await get(range);
      expect(res.status).toBe(416);
      expect(res.headers.get("content-range")).toBe("bytes */20");
      expect((await json(res)).error).toMatchObject({ code: "range_not_satisfiable", field: "range" });
      const head = await get(range, "HEAD");
      expect(head.status).toBe(416);
    }
    const headPart = await get("bytes=-3", "HEAD");
    expect([headPart.status, headPart.headers.get("content-range"), headPart.headers.get("content-length")]).toEqual([206, "bytes 17-19/20", "3"]);
  });

  test("tenant B asking for A's digest gets exactly the not_found of a digest nobody has (I5)", async () => {
    using s = await scratchApp();
    const ask = async (method: string) => {
      const res = await s.call(s.b, `/v1/objects/${digest}`, { method });
      return { status: res.status, headers: stableHeaders(res), body: new Uint8Array(await res.arrayBuffer()) };
    };
    const nobodyGet = await ask("GET");
    const nobodyHead = await ask("HEAD");
    await s.call(s.a, "/v1/objects", { method: "PUT", body: text });
    expect((await s.call(s.a, `/v1/objects/${digest}`)).status).toBe(200);
    const foreignGet = await ask("GET");
    const foreignHead = await ask("HEAD");
    expect(foreignGet).toEqual(nobodyGet);
    expect(foreignHead).toEqual(nobodyHead);
    expect(nobodyGet.status).toBe(404);
    expect(JSON.parse(new TextDecoder().decode(nobodyGet.body))).toEqual({ error: { code: "not_found", message: `no object ${digest}`, field: "object" } });
    // Ranges tell nothing either.
    const ranged = await s.call(s.b, `/v1/objects/${digest}`, { headers: { range: "bytes=0-0" } });
    expect(ranged.status).toBe(404);
    expect((await json(await s.call(s.b, "/v1/objects"))).objects).toEqual([]);
  });

  test("a malformed digest is 400 naming object", async () => {
    using s = await scratchApp();
    const res = await s.call(s.a, "/v1/objects/sha256:nothex");
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: "invalid_input", field: "object" });
  });
});

describe("POST /v1/links", () => {
  test("adds a searchable link; other schemes are 400 naming url", async () => {
    using s = await scratchApp();
    const post = (body: unknown) => ({ method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    const res = await s.call(s.a, "/v1/links", post({ url: "https://example.com/a", title: "Platypus notes" }));
    expect(await json(res)).toEqual({ lsn: 1, duplicate: false });
    const hits = (await json(await s.call(s.a, "/v1/search?q=platypus"))).hits;
    expect(hits).toEqual([expect.objectContaining({ lsn: 1, kind: "link", url: "https://example.com/a" })]);
    expect((await json(await s.call(s.b, "/v1/search?q=platypus"))).hits).toEqual([]);
    const bad = await s.call(s.a, "/v1/links", post({ url: "gopher://example.com" }));
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toMatchObject({ code: "invalid_input", field: "url" });
  });
});

describe("the HTTP client's object methods", () => {
  test("put a stream, get it whole and by range, list, link, and the same errors as a local store", async () => {
    using s = await scratchApp();
    const m = await connectHttpMemory({ url: "http://zerodb.test", token: s.a, fetch: async (req) => s.app.fetch(req) });
    const expected = await hashStream(byteStream(3 * 1048576 + 1, 5));
    const put = await m.objectPut(byteStream(3 * 1048576 + 1, 5), { name: "big é.bin", idem_key: "c1" });
    expect(put).toEqual({ object: `sha256:${expected.hex}`, size: expected.size, type: "application/octet-stream", lsn: put.lsn, duplicate: false });
    const got = await m.objectGet({ object: put.object });
    expect({ ...got, read: undefined }).toEqual({
      object: put.object,
      size: expected.size,
      type: "application/octet-stream",
      name: "big é.bin",
      lsn: put.lsn,
      read: undefined,
    });
    expect(await hashStream(got.read())).toEqual(expected);
    const part = new Uint8Array(await new Response(got.read({ start: 10, end: 20 })).arrayBuffer());
    const whole = new Uint8Array(await new Response(byteStream(3 * 1048576 + 1, 5)).arrayBuffer());
    expect(part).toEqual(whole.slice(10, 20));
    expect((await m.objectList({})).objects.map((o) => o.object)).toEqual([put.object]);
    expect(await m.linkAdd({ url: "http://example.com" })).toEqual({ lsn: put.lsn + 1, duplicate: false });
    await expect(m.objectGet({ object: `sha256:${"1".repeat(64)}` })).rejects.toMatchObject({
      code: "not_found",
      message: `no object sha256:${"1".repeat(64)}`,
    });
    await expect(m.objectPut(new Uint8Array(1), { type: "bad" })).rejects.toMatchObject({ code: "invalid_input", field: "type" });
  });
});
