/**
 * The one error mapping of the HTTP door (STYLE.md habit 2, DESIGN.md 6.1,
 * I10): a ZeroDbError becomes `{"error": {code, message, field?}}` with its
 * CODES status; anything else is logged once and answered with a generic 500
 * that carries no stack, SQL or path.
 */
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { CODES, ZeroDbError, invalid, toZeroDbError } from "../errors.ts";
import type { HttpEnv } from "./env.ts";
import { routeOf } from "./route.ts";

/** The JSON response for an error, with the status its code maps to. */
export function errorResponse(err: ZeroDbError): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  // RFC 6750 section 3: a 401 names the scheme it wants, and nothing more.
  if (err.code === "unauthorized") headers["www-authenticate"] = 'Bearer realm="zerodb"';
  // A body refused part-way is not read to its end: the connection cannot carry another request.
  if (err.code === "too_large" && err.field === "body") headers.connection = "close";
  return new Response(JSON.stringify(err.toJSON()), { status: CODES[err.code].status, headers });
}

/** Hono's onError: maps every failure; server-side ones (5xx) go to the log once. */
export function onError(log: (line: string) => void): ErrorHandler<HttpEnv> {
  return (err, c) => {
    // A client that hangs up mid-request is not a fault of the server: nobody reads the answer,
    // and the request log says "aborted" instead of a status.
    if (c.req.raw.signal.aborted) return errorResponse(invalid("body", "the client closed the connection before the request was read"));
    const e = toZeroDbError(err);
    if (CODES[e.code].status >= 500) log(`zerodb: ${e.code} on ${c.req.method} ${routeOf(c)}: ${describe(e.cause ?? e)}`);
    // Unknown errors keep their detail in the log; the caller gets the generic message only.
    return errorResponse(e.code === "internal" ? new ZeroDbError("internal", "internal error") : e);
  };
}

/**
 * Middleware that turns a thrown non-Error (a string, an object) into an
 * internal ZeroDbError: Hono hands only Errors to onError and would let the
 * rest escape unmapped and unlogged.
 */
export const errorsOnly: MiddlewareHandler<HttpEnv> = async (_c, next) => {
  try {
    await next();
  } catch (err) {
    throw err instanceof Error ? err : toZeroDbError(err);
  }
};

/** Hono's notFound: no route for this method and path. */
export const notFound: NotFoundHandler<HttpEnv> = (c: Context<HttpEnv>) =>
  errorResponse(new ZeroDbError("not_found", `no route for ${c.req.method} ${new URL(c.req.url).pathname}`));

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.split("\n")[0]!;
  return String(err);
}
