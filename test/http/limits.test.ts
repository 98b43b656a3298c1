/**
 * The 8 MiB JSON body limit of DESIGN.md section 3 on a real server: exactly
 * 8,388,608 bytes pass, one more is 413 whether declared or chunked, and a
 * 1 GiB chunked upload is refused early without the server's memory growing.
 */
import { describe, expect, test } from "bun:test";
import { HTTP_BODY_MAX_BYTES } from "../../src/limits.ts";
import { tempDir } from "../helpers.ts";
import { createToken, peakRss, startServer } from "./_server.ts";
import { answer } from "./_targets.ts";

/** An append of three entries whose JSON is exactly `size` bytes (each content under the 4 MiB turn limit). */
function appendBody(session: string, size: number): Uint8Array {
  const shell = JSON.stringify({ session, entries: [0, 1, 2].map(() => ({ role: "note", content: "" })) });
  const room = size - Buffer.byteLength(shell);
  const parts = [Math.floor(room / 3), Math.floor(room / 3)];
  parts.push(room - parts[0]! - parts[1]!);
  const body = Buffer.from(JSON.stringify({ session, entries: parts.map((n, i) => ({ role: "note", content: String(i).repeat(n) })) }));
  expect(body.byteLength).toBe(size);
  return body;
}

/** The same bytes as a chunked stream (no Content-Length), 1 MiB at a time. */
function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(ctrl) {
      if (at >= bytes.byteLength) return ctrl.close();
      ctrl.enqueue(bytes.subarray(at, (at += 1 << 20)));
    },
  });
}

describe("JSON body limit", () => {
  test("exactly 8 MiB is appended, one byte more is 413 and writes nothing: declared and chunked", async () => {
    using dir = tempDir();
    const token = await createToken(dir.path, "alice");
    await using server = await startServer(dir.path);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const post = (body: RequestInit["body"]) => fetch(`${server.url}/v1/turns`, { method: "POST", headers, body }).then(answer);
    const read = async (session: string) =>
      (await answer(await fetch(`${server.url}/v1/turns?session=${session}`, { headers }))).body.turns as { content: string }[];

    const exact = appendBody("exact", HTTP_BODY_MAX_BYTES);
    const ok = await post(exact);
    expect(ok.status).toBe(200);
    expect(ok.body.entries).toHaveLength(3);
    const sent = JSON.parse(Buffer.from(exact).toString()) as { entries: { content: string }[] };
    expect((await read("exact")).map((x) => x.content)).toEqual(sent.entries.map((e) => e.content));
    expect((await post(chunked(appendBody("exact-chunked", HTTP_BODY_MAX_BYTES)))).status).toBe(200);
    expect(await read("exact-chunked")).toHaveLength(3);

    const tooLarge = { status: 413, body: { error: { code: "too_large", message: expect.stringContaining("8388608"), field: "body" } } };
    expect(await post(appendBody("over", HTTP_BODY_MAX_BYTES + 1))).toEqual(tooLarge);
    expect(await post(chunked(appendBody("over-chunked", HTTP_BODY_MAX_BYTES + 1)))).toEqual(tooLarge);
    expect(await read("over")).toEqual([]);
    expect(await read("over-chunked")).toEqual([]);
  }, 60_000);

  test("a 1 GiB chunked upload is refused early and the server's peak RSS stays under 200 MB", async () => {
    using dir = tempDir();
    const token = await createToken(dir.path, "alice");
    await using server = await startServer(dir.path);
    const chunk = new Uint8Array(1 << 20).fill(0x20);
    const total = 1 << 30;
    let sent = 0;
    // Pulled one chunk at a time: the client produces bytes only as the connection takes them.
    const body = new ReadableStream<Uint8Array>(
      {
        pull(ctrl) {
          if (sent >= total) return ctrl.close();
          sent += chunk.byteLength;
          ctrl.enqueue(chunk);
        },
      },
      { highWaterMark: 0 },
    );
    const res = await fetch(`${server.url}/v1/turns`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });
    expect(await answer(res)).toEqual({ status: 413, body: { error: { code: "too_large", message: expect.any(String), field: "body" } } });
    // Refused early: far less than the gigabyte went out before the answer came back.
    expect(sent).toBeLessThan(256 << 20);
    expect(await peakRss(server.pid)).toBeLessThan(200_000_000);
    // And the server is still serving.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
