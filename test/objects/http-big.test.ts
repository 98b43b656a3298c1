/**
 * A 2 GiB object in and out of `zerodb serve` (DESIGN.md 6.1: streamed to
 * disk, never buffered whole): the server's peak RSS stays under 200 MB and
 * the digest matches `sha256sum`'s of the bytes sent and of the bytes read back.
 */
import { expect, test } from "bun:test";
import { createToken, peakRss, startServer } from "../http/_server.ts";
import { tempDir } from "../helpers.ts";
import { byteStream, sha256sum } from "./_lib.ts";

const GiB = 1024 ** 3;

/** A response body as JSON, typed loosely for assertions. */
const json = (res: Response): Promise<any> => res.json();

test("a 2 GiB object goes in and comes out over HTTP with the server under 200 MB RSS", async () => {
  using home = tempDir();
  const token = await createToken(home.path, "big");
  await using server = await startServer(home.path);
  const size = 2 * GiB;
  const auth = { authorization: `Bearer ${token}` };

  const put = await fetch(`${server.url}/v1/objects`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/x-test", "x-zerodb-name": "two-gib.bin" },
    body: byteStream(size, 2024),
    duplex: "half",
  } as RequestInit);
  const stored = await json(put);
  expect(put.status).toBe(200);
  const expected = await sha256sum(byteStream(size, 2024));
  expect(stored).toEqual({ object: `sha256:${expected}`, size, type: "application/x-test", lsn: 1, duplicate: false });

  const got = await fetch(`${server.url}/v1/objects/${stored.object}`, { headers: auth });
  expect(got.status).toBe(200);
  expect(got.headers.get("content-length")).toBe(String(size));
  expect(await sha256sum(got.body!)).toBe(expected);

  const rss = await peakRss(server.pid);
  expect(rss).toBeLessThan(200 * 1024 * 1024);
  if (process.env.ZERODB_TEST_VERBOSE) console.error(`server peak RSS ${(rss / 1048576).toFixed(0)} MiB`);
}, 600_000);
