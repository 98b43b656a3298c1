/**
 * Object bytes in PostgreSQL (issue 16, DESIGN.md 8 and 12): stored as
 * chunks in the database, so a second machine's `serve` reads what the first
 * took, whole and in ranges across chunk boundaries; the same bytes put at
 * once through two `serve` processes are one blob; forget deletes the chunks
 * once no tenant refers to them; an upload whose process died is removed.
 */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { createFsBlobStore } from "../../../src/objects/fs-store.ts";
import { openStore } from "../../../src/store/index.ts";
import { CHUNK_BYTES, UPLOAD_IDLE_MS, reapIdleUploads } from "../../../src/store/postgres/blobs.ts";
import { tempDir } from "../../helpers.ts";
import { byteStream } from "../../objects/_lib.ts";
import { startServe } from "./_serve.ts";
import { postgresForFile, type TestPostgres } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

/** A stream's bytes, whole (for objects of a few MiB). */
async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The code a promise rejects with ("ok" when it resolves). */
async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "ok",
    (e: { code: string }) => e.code,
  );
}

const sha = (b: Uint8Array) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/** Row counts of the blob tables. */
async function blobRows(url: string): Promise<{ objects: number; chunks: number; uploads: number }> {
  const sql = new SQL(url);
  try {
    const [r] = await sql`SELECT (SELECT count(*) FROM objects) AS objects, (SELECT count(*) FROM blob_chunks) AS chunks,
      (SELECT count(*) FROM blob_uploads) AS uploads`;
    return { objects: Number(r.objects), chunks: Number(r.chunks), uploads: Number(r.uploads) };
  } finally {
    await sql.close({ timeout: 1 });
  }
}

if (!server) {
  describe("PostgreSQL objects", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("PostgreSQL objects", () => {
    test("an object put through one serve is read whole and in ranges through a second serve with another data dir", async () => {
      using dir = tempDir("zerodb-pg-objects-");
      const url = await server.database();
      const store = await openStore({ dataDir: join(dir.path, "admin"), database: url });
      const token = (await store.tokens.create({ tenant: "team" })).token;
      store.close();
      await using one = await startServe(join(dir.path, "machine1"), url);
      await using two = await startServe(join(dir.path, "machine2"), url);
      const auth = { authorization: `Bearer ${token}` };
      // 3.5 chunks: ranges within a chunk, across two and three chunks, and the short last one.
      const bytes = await bytesOf(byteStream(3.5 * CHUNK_BYTES, 7));
      const put = await fetch(`${one.url}/v1/objects`, { method: "PUT", headers: { ...auth, "content-type": "application/x-test" }, body: bytes });
      expect(put.status).toBe(200);
      const stored = (await put.json()) as { object: string; size: number; type: string; lsn: number; duplicate: boolean };
      expect(stored).toEqual({ object: sha(bytes), size: bytes.length, type: "application/x-test", lsn: 1, duplicate: false });

      const whole = await fetch(`${two.url}/v1/objects/${stored.object}`, { headers: auth });
      expect(whole.status).toBe(200);
      // Bun.serve sends a streamed body chunked, dropping its Content-Length (oven-sh/bun#10507); HEAD carries the size.
      const head = await fetch(`${two.url}/v1/objects/${stored.object}`, { method: "HEAD", headers: auth });
      expect(head.headers.get("content-length")).toBe(String(bytes.length));
      expect(sha(await bytesOf(whole.body!))).toBe(stored.object);
      const C = CHUNK_BYTES;
      for (const [start, end] of [
        [5, 100],
        [C - 10, C + 10],
        [C - 1, 2 * C + 1],
        [3 * C, 3.5 * C - 1],
        [0, 3.5 * C - 1],
      ] as const) {
        const res = await fetch(`${two.url}/v1/objects/${stored.object}`, { headers: { ...auth, range: `bytes=${start}-${end}` } });
        expect(res.status).toBe(206);
        expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/${bytes.length}`);
        expect(Buffer.compare(await bytesOf(res.body!), bytes.subarray(start, end + 1))).toBe(0);
      }
      const tail = await fetch(`${two.url}/v1/objects/${stored.object}`, { headers: { ...auth, range: "bytes=-10" } });
      expect(Buffer.compare(await bytesOf(tail.body!), bytes.subarray(bytes.length - 10))).toBe(0);
      expect(await blobRows(url)).toEqual({ objects: 1, chunks: 4, uploads: 0 });
    }, 60_000);

    test("the same bytes put at once through two serve processes are one blob, both refs answered", async () => {
      using dir = tempDir("zerodb-pg-objects-race-");
      const url = await server.database();
      const store = await openStore({ dataDir: join(dir.path, "admin"), database: url });
      const tokens = [(await store.tokens.create({ tenant: "a" })).token, (await store.tokens.create({ tenant: "b" })).token];
      store.close();
      await using one = await startServe(join(dir.path, "machine1"), url);
      await using two = await startServe(join(dir.path, "machine2"), url);
      const bytes = await bytesOf(byteStream(2.5 * CHUNK_BYTES, 11));
      for (let round = 0; round < 3; round++) {
        const puts = await Promise.all(
          [one, two].map((s, i) =>
            fetch(`${s.url}/v1/objects`, {
              method: "PUT",
              headers: { authorization: `Bearer ${tokens[i]}`, "idempotency-key": `put-${round}` },
              body: bytes,
            }).then((r) => r.json() as Promise<{ object: string; duplicate: boolean }>),
          ),
        );
        expect(puts.map((p) => [p.object, p.duplicate])).toEqual([
          [sha(bytes), false],
          [sha(bytes), false],
        ]);
      }
      for (const [s, token] of [
        [one, tokens[1]],
        [two, tokens[0]],
      ] as const) {
        const got = await fetch(`${s.url}/v1/objects/${sha(bytes)}`, { headers: { authorization: `Bearer ${token}` } });
        expect(sha(await bytesOf(got.body!))).toBe(sha(bytes));
      }
      expect(await blobRows(url)).toEqual({ objects: 1, chunks: 3, uploads: 0 });
    }, 60_000);

    test("forget: a blob's chunks stay while another tenant refers to it and are deleted with the last ref", async () => {
      using dir = tempDir("zerodb-pg-objects-forget-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      const bytes = await bytesOf(byteStream(2 * CHUNK_BYTES + 5, 3));
      const a = store.memory("alice");
      const b = store.memory("bob");
      const { object } = await a.objectPut(bytes);
      await b.objectPut(byteStream(2 * CHUNK_BYTES + 5, 3));
      await a.objectPut(new TextEncoder().encode("another object"));
      expect(await blobRows(url)).toEqual({ objects: 2, chunks: 4, uploads: 0 });
      await a.forget({ selector: { object } });
      expect(await codeOf(a.objectGet({ object }))).toBe("not_found");
      expect(sha(await bytesOf((await b.objectGet({ object })).read()))).toBe(object);
      expect(await blobRows(url)).toEqual({ objects: 2, chunks: 4, uploads: 0 });
      await b.forget({ selector: { object } });
      expect(await blobRows(url)).toEqual({ objects: 1, chunks: 1, uploads: 0 });
      expect(await store.check()).toMatchObject({ ok: true, detail: expect.stringContaining("1 object(s), every one whole; 0 upload(s) in progress") });
      store.close();
    });

    test("a Range read fetches only the chunks it covers: with every other chunk deleted it still answers, a whole read does not", async () => {
      using dir = tempDir("zerodb-pg-objects-range-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      const m = store.memory("alice");
      const bytes = await bytesOf(byteStream(4 * CHUNK_BYTES, 5));
      const { object } = await m.objectPut(bytes);
      const sql = new SQL(url);
      await sql`DELETE FROM blob_chunks WHERE seq <> 2`;
      await sql.close({ timeout: 1 });
      const C = CHUNK_BYTES;
      const part = await bytesOf((await m.objectGet({ object })).read({ start: 2 * C + 10, end: 3 * C - 10 }));
      expect(Buffer.compare(part, bytes.subarray(2 * C + 10, 3 * C - 10))).toBe(0);
      expect(await codeOf(bytesOf((await m.objectGet({ object })).read()))).toBe("not_found");
      // What doctor's store check says of it.
      expect(await store.check()).toEqual({ ok: false, detail: "1 object(s) miss chunks of their bytes" });
      store.close();
    });

    test("an upload whose serve is killed leaves its chunks only until it is idle; then they are removed", async () => {
      using dir = tempDir("zerodb-pg-objects-kill-");
      const url = await server.database();
      const store = await openStore({ dataDir: join(dir.path, "admin"), database: url });
      const token = (await store.tokens.create({ tenant: "team" })).token;
      store.close();
      const serve = await startServe(join(dir.path, "machine1"), url);
      let sent = 0;
      const stalled = new ReadableStream<Uint8Array>({
        async pull(c) {
          // Three chunks' worth, then nothing more: the upload hangs mid-way.
          if (sent < 3 * CHUNK_BYTES) {
            c.enqueue(new Uint8Array(CHUNK_BYTES).fill(sent / CHUNK_BYTES + 1));
            sent += CHUNK_BYTES;
          } else await new Promise(() => {});
        },
      });
      const abort = new AbortController();
      const upload = fetch(`${serve.url}/v1/objects`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}` },
        body: stalled,
        duplex: "half",
        signal: abort.signal,
      } as RequestInit).catch(() => undefined);
      for (;;) {
        if ((await blobRows(url)).chunks >= 2) break;
        await Bun.sleep(50);
      }
      await serve.stop("SIGKILL");
      abort.abort();
      await upload;
      const left = await blobRows(url);
      expect(left.uploads).toBe(1);
      expect(left.objects).toBe(0);
      const sql = new SQL(url);
      // Not yet idle: nothing is removed (a live upload is never cut short).
      expect(await reapIdleUploads(sql)).toBe(0);
      expect(await reapIdleUploads(sql, Date.now() + UPLOAD_IDLE_MS + 1000)).toBe(1);
      await sql.close({ timeout: 1 });
      expect(await blobRows(url)).toEqual({ objects: 0, chunks: 0, uploads: 0 });
    }, 60_000);

    test("blobs a schema-1 serve kept on its own disk move into the database when that machine opens it", async () => {
      using dir = tempDir("zerodb-pg-objects-adopt-");
      const url = await server.database();
      const machine1 = join(dir.path, "machine1");
      const store = await openStore({ dataDir: machine1, database: url });
      const bytes = new TextEncoder().encode("bytes put before migration 002");
      const { object } = await store.memory("alice").objectPut(bytes);
      store.close();
      // What schema 1 left: the objects row with no blob, the bytes under machine1's data dir.
      const sql = new SQL(url);
      await sql`UPDATE objects SET blob = NULL, chunk = NULL`;
      await sql`DELETE FROM blob_chunks`;
      await sql.close({ timeout: 1 });
      const local = createFsBlobStore(join(machine1, "objects"));
      await local.put(bytes, { maxBytes: 1 << 20 });
      const elsewhere = await openStore({ dataDir: join(dir.path, "machine2"), database: url });
      expect(await codeOf(elsewhere.memory("alice").objectGet({ object }))).toBe("not_found");
      const home = await openStore({ dataDir: machine1, database: url });
      expect(local.stat(object)).toBeUndefined();
      expect(await bytesOf((await elsewhere.memory("alice").objectGet({ object })).read())).toEqual(bytes);
      home.close();
      elsewhere.close();
    });
  });
}
