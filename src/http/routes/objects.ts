/**
 * `PUT /v1/objects` (object_put) and `GET`/`HEAD /v1/objects/sha256:<hex>`
 * (object_get, with Range), DESIGN.md 6.1 and section 8, plus `GET /v1/objects`
 * (the tenant's objects, for the HTTP client's objectList). Uploads stream from
 * the socket to the blob store's temp file and are never buffered whole.
 */
import type { Context } from "hono";
import { CODES, ZeroDbError, invalid, toZeroDbError } from "../../errors.ts";
import { ObjectGetInput, ObjectListInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import type { ObjectBody } from "../../store/types.ts";
import type { App, HttpEnv } from "../env.ts";
import { errorResponse } from "../errors.ts";
import { queryInput } from "../query.ts";
import { parseRange } from "../range.ts";

/** Percent-encodes an object name for a header (headers carry ASCII; names are UTF-8). */
export function encodeName(name: string): string {
  return encodeURIComponent(name);
}

/** The name of an `X-Zerodb-Name` header: percent-encoded UTF-8. */
function decodeName(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  try {
    return decodeURIComponent(header);
  } catch {
    throw invalid("name", "the X-Zerodb-Name header must be percent-encoded UTF-8");
  }
}

async function putObject(c: Context<HttpEnv>): Promise<Response> {
  const type = c.req.header("content-type");
  const name = decodeName(c.req.header("x-zerodb-name"));
  const idem = c.req.header("idempotency-key");
  const meta = { ...(type ? { type } : {}), ...(name !== undefined ? { name } : {}), ...(idem !== undefined ? { idem_key: idem } : {}) };
  const body = c.req.raw.body ?? new Uint8Array(0);
  try {
    return c.json(await c.var.memory.objectPut(body, meta));
  } catch (err) {
    const e = toZeroDbError(err);
    // An upload refused part-way is not read to its end: the connection cannot carry another request.
    if (e.code === "too_large" && e.field === "object") {
      const res = errorResponse(e);
      res.headers.set("connection", "close");
      return res;
    }
    throw e;
  }
}

/** Headers every answer about an existing object carries. */
function objectHeaders(got: ObjectBody): Headers {
  const h = new Headers({
    "content-type": got.type,
    "accept-ranges": "bytes",
    // The digest names the bytes forever: a strong validator (RFC 9110 section 8.8.3).
    etag: `"${got.object}"`,
    "cache-control": "private, max-age=31536000, immutable",
    // The type came from whoever stored the object: never let a browser guess another.
    "x-content-type-options": "nosniff",
    "x-zerodb-lsn": String(got.lsn),
  });
  if (got.name !== null) h.set("x-zerodb-name", encodeName(got.name));
  return h;
}

async function getObject(c: Context<HttpEnv>): Promise<Response> {
  const { object } = parseInput(ObjectGetInput, { object: c.req.param("digest") });
  const got = await c.var.memory.objectGet({ object });
  const head = c.req.method === "HEAD";
  const headers = objectHeaders(got);
  const ask = parseRange(c.req.header("range"), got.size);
  if (ask.kind === "unsatisfiable") {
    const res = errorResponse(new ZeroDbError("range_not_satisfiable", `range: the object has ${got.size} bytes`, { field: "range" }));
    res.headers.set("content-range", `bytes */${got.size}`);
    return head ? new Response(null, { status: CODES.range_not_satisfiable.status, headers: res.headers }) : res;
  }
  const range = ask.kind === "part" ? ask.range : { start: 0, end: got.size };
  headers.set("content-length", String(range.end - range.start));
  if (ask.kind === "part") headers.set("content-range", `bytes ${range.start}-${range.end - 1}/${got.size}`);
  const status = ask.kind === "part" ? 206 : 200;
  if (head) return new Response(null, { status, headers });
  // A local file goes out as a file slice (the kernel copies it); otherwise as a stream.
  const body = got.path !== undefined ? Bun.file(got.path).slice(range.start, range.end) : got.read(range);
  return new Response(body, { status, headers });
}

/** Registers /v1/objects. */
export function objectRoutes(app: App): void {
  app.put("/v1/objects", putObject);
  app.get("/v1/objects", async (c) => {
    const input = queryInput(c.req.url, ObjectListInput, { after: { int: true }, limit: { int: true } });
    return c.json(await c.var.memory.objectList(input));
  });
  app.on(["GET", "HEAD"], "/v1/objects/:digest", getObject);
}
