/** object_put, object_get (whole and ranges), object list, and not_found for foreign digests (I5). */
import { describe, expect } from "bun:test";
import { createHash } from "node:crypto";
import type { ObjectBody } from "../../../src/store/types.ts";
import { type Factory, contractTest, failure } from "./_subject.ts";

/** All the bytes of an object (or of a range of it). */
async function bytesOf(body: ObjectBody, range?: { start: number; end: number }): Promise<string> {
  return new Response(body.read(range)).text();
}

/** The object cases. */
export function objectCases(factory: Factory): void {
  describe("objects", () => {
    contractTest(factory, "put stores bytes by content; get gives them back whole or in a range, with size, type and name", async ({ a }) => {
      const text = "hello, objects";
      const digest = `sha256:${createHash("sha256").update(text).digest("hex")}`;
      const put = await a.objectPut(new TextEncoder().encode(text), { name: "hello.txt", type: "text/plain" });
      expect(put).toEqual({ object: digest, size: text.length, type: "text/plain", lsn: expect.any(Number), duplicate: false });
      const body = await a.objectGet({ object: digest });
      expect({ object: body.object, size: body.size, type: body.type, name: body.name, lsn: body.lsn }).toEqual({
        object: digest,
        size: text.length,
        type: "text/plain",
        name: "hello.txt",
        lsn: put.lsn,
      });
      expect(await bytesOf(body)).toBe(text);
      expect(await bytesOf(await a.objectGet({ object: digest }), { start: 7, end: 14 })).toBe("objects");
    });

    contractTest(factory, "a stream is stored like a buffer; the same bytes twice are one object in the list", async ({ a }) => {
      const chunks = ["part one, ", "part two"];
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
          c.close();
        },
      });
      const first = await a.objectPut(stream, { name: "s.txt" });
      const again = await a.objectPut(new TextEncoder().encode(chunks.join("")));
      expect(again.object).toBe(first.object);
      const { objects, next } = await a.objectList();
      expect(next).toBeNull();
      expect(objects.map((o) => [o.object, o.size])).toEqual([[first.object, chunks.join("").length]]);
    });

    contractTest(factory, "put with an idem_key: a retry is a duplicate", async ({ a }) => {
      const bytes = new TextEncoder().encode("once");
      const first = await a.objectPut(bytes, { idem_key: "o1" });
      expect(await a.objectPut(bytes, { idem_key: "o1" })).toEqual({ ...first, duplicate: true });
    });

    contractTest(factory, "a digest nobody stored and another tenant's digest are the same not_found (I5)", async ({ a, b }) => {
      const mine = (await a.objectPut(new TextEncoder().encode("alice's bytes"))).object;
      const missing = `sha256:${"0".repeat(64)}`;
      const foreign = await failure(b.objectGet({ object: mine }));
      expect(foreign).toEqual(await failure(b.objectGet({ object: missing })));
      expect(foreign.code).toBe("not_found");
      const message = async (object: string) =>
        (
          await b.objectGet({ object }).then(
            () => "found",
            (e: Error) => e.message,
          )
        ).replace(object, "<digest>");
      expect(await message(mine)).toBe(await message(missing));
      expect((await b.objectList()).objects).toEqual([]);
    });
  });
}
