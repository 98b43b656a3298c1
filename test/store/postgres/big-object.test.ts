/**
 * A 1 GiB object through `zerodb serve --database` (issue 16: streamed into
 * the database in chunks, never buffered whole): the bytes are generated on
 * the fly, read back whole and in a range, and the server's peak RSS
 * (VmHWM) stays under 150 MiB.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openStore } from "../../../src/store/index.ts";
import { tempDir } from "../../helpers.ts";
import { byteStream, hashStream } from "../../objects/_lib.ts";
import { peakRss, startServe } from "./_serve.ts";
import { postgresForFile, type TestPostgres } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;
const MiB = 1024 * 1024;
const SIZE = 1024 * MiB;

if (!server) {
  describe("PostgreSQL objects", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  test("a 1 GiB object goes into PostgreSQL through serve and comes back, the server under 150 MiB RSS", async () => {
    using dir = tempDir("zerodb-pg-big-");
    const url = await server.database();
    const store = await openStore({ dataDir: join(dir.path, "admin"), database: url });
    const token = (await store.tokens.create({ tenant: "team" })).token;
    store.close();
    await using serve = await startServe(join(dir.path, "machine1"), url);
    const auth = { authorization: `Bearer ${token}` };
    const put = await fetch(`${serve.url}/v1/objects`, {
      method: "PUT",
      headers: auth,
      body: byteStream(SIZE, 16),
      duplex: "half",
    } as RequestInit);
    expect(put.status).toBe(200);
    const stored = (await put.json()) as { object: string; size: number };
    const expected = await hashStream(byteStream(SIZE, 16));
    expect(stored.object).toBe(`sha256:${expected.hex}`);
    expect(stored.size).toBe(SIZE);

    const got = await fetch(`${serve.url}/v1/objects/${stored.object}`, { headers: auth });
    expect(got.status).toBe(200);
    expect(await hashStream(got.body!)).toEqual(expected);
    // The last 3 MiB and a bit: the range reads only the chunks it covers.
    const start = SIZE - 3 * MiB - 17;
    const part = await fetch(`${serve.url}/v1/objects/${stored.object}`, { headers: { ...auth, range: `bytes=${start}-` } });
    expect(part.status).toBe(206);
    const tail = new Uint8Array(await part.arrayBuffer());
    const want = await tailOf(byteStream(SIZE, 16), start);
    expect(Buffer.compare(tail, want)).toBe(0);

    const rss = await peakRss(serve.proc.pid);
    if (process.env.ZERODB_TEST_VERBOSE) console.error(`server peak RSS ${(rss / MiB).toFixed(0)} MiB`);
    expect(rss).toBeLessThan(150 * MiB);
  }, 600_000);
}

/** The bytes of a stream from `start` on, without holding the ones before. */
async function tailOf(stream: ReadableStream<Uint8Array>, start: number): Promise<Uint8Array> {
  const kept: Uint8Array[] = [];
  let at = 0;
  for await (const chunk of stream) {
    if (at + chunk.byteLength > start) kept.push(chunk.subarray(Math.max(0, start - at)));
    at += chunk.byteLength;
  }
  return Buffer.concat(kept);
}
