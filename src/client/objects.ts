/**
 * Objects and links over HTTP (DESIGN.md 6.1, section 8): the Memory
 * methods of the HTTP client. Uploads stream as the request body; downloads
 * stream from the response, a range at a time when asked.
 */
import { ZeroDbError } from "../errors.ts";
import type { ByteRange, ObjectSource } from "../objects/types.ts";
import * as In from "../schema/ops.ts";
import { parseInput } from "../schema/parse.ts";
import type * as Out from "../schema/results.ts";
import type { Memory, ObjectBody } from "../store/types.ts";
import type { Requester } from "./request.ts";

/** A stream that pulls from an async iterator, one chunk per read (backpressure preserved). */
function iteratorStream(open: () => Promise<AsyncIterator<Uint8Array>>): ReadableStream<Uint8Array> {
  let it: AsyncIterator<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      it ??= await open();
      const next = await it.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: async () => void (await it?.return?.()),
  });
}

/** The request body for an object's bytes: buffers and streams as they are, other iterables as a stream. */
function toBody(source: ObjectSource): Uint8Array | ReadableStream<Uint8Array> {
  if (source instanceof Uint8Array || source instanceof ReadableStream) return source;
  return iteratorStream(async () => (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]());
}

/** A stream that sends its request only when first read, so an unread object costs no download. */
function lazyStream(open: () => Promise<ReadableStream<Uint8Array>>): ReadableStream<Uint8Array> {
  return iteratorStream(async () => (await open())[Symbol.asyncIterator]());
}

/** The object described by a response's headers (see src/http/routes/objects.ts). */
function infoFrom(object: string, res: Response): Omit<ObjectBody, "read"> {
  const name = res.headers.get("x-zerodb-name");
  return {
    object,
    size: Number(res.headers.get("content-length") ?? 0),
    type: res.headers.get("content-type") ?? "application/octet-stream",
    name: name === null ? null : decodeURIComponent(name),
    lsn: Number(res.headers.get("x-zerodb-lsn") ?? 0),
  };
}

/** objectPut, objectGet, objectList and linkAdd for the HTTP Memory. */
export function objectMethods(requester: Requester): Pick<Memory, "objectPut" | "objectGet" | "objectList" | "linkAdd"> {
  const path = (object: string) => `/v1/objects/${object}`;
  return {
    objectPut: async (body, meta) => {
      const m = parseInput(In.ObjectPutMeta, meta ?? {});
      const headers: Record<string, string> = { "content-type": m.type ?? "application/octet-stream" };
      if (m.name !== undefined) headers["x-zerodb-name"] = encodeURIComponent(m.name);
      if (m.idem_key !== undefined) headers["idempotency-key"] = m.idem_key;
      return requester.json<Out.ObjectPutResult>({ method: "PUT", path: "/v1/objects", body: toBody(body), headers });
    },
    objectGet: async (i) => {
      const { object } = parseInput(In.ObjectGetInput, i);
      let res: Response;
      try {
        res = await requester.send({ method: "HEAD", path: path(object) });
      } catch (err) {
        // A HEAD answer has no body to name the error: a GET brings the server's own message.
        const retry = await requester.send({ method: "GET", path: path(object) }).catch((e: unknown) => e);
        if (retry instanceof ZeroDbError) throw retry;
        if (retry instanceof Response) await retry.body?.cancel();
        throw err;
      }
      const info = infoFrom(object, res);
      const read = (range?: ByteRange) => {
        if (range && range.end <= range.start) return new Response(new Uint8Array(0)).body!;
        const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end - 1}` } : {};
        return lazyStream(async () => (await requester.send({ method: "GET", path: path(object), headers })).body ?? new Response("").body!);
      };
      return { ...info, read };
    },
    objectList: async (i) => {
      const input = parseInput(In.ObjectListInput, i ?? {});
      return requester.json<Out.ObjectListResult>({ method: "GET", path: "/v1/objects", query: input });
    },
    linkAdd: async (i) => requester.json<Out.WriteResult>({ method: "POST", path: "/v1/links", json: parseInput(In.LinkAddInput, i) }),
  };
}
