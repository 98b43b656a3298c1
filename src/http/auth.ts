/**
 * Bearer-token authentication (DESIGN.md 6.1): the token selects the tenant,
 * and the tenant's Memory rides on the context for the routes. A missing,
 * malformed, wrong or revoked token gets the same 401 and nothing more.
 */
import type { MiddlewareHandler } from "hono";
import { ZeroDbError } from "../errors.ts";
import type { Memory, Store } from "../store/types.ts";
import type { HttpEnv } from "./env.ts";

/** The one unauthorized error: it says what to send, never why this token failed. */
export function unauthorized(): ZeroDbError {
  return new ZeroDbError("unauthorized", "a valid token is required: send Authorization: Bearer <token>");
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750 section 2.1), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(header ?? "");
  return m?.[1];
}

/** Middleware that authenticates every request and sets `memory` for the tenant. */
export function requireToken(store: Store): MiddlewareHandler<HttpEnv> {
  const memories = new Map<string, Memory>();
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    const tenant = token === undefined ? undefined : await store.tokens.verify(token);
    if (tenant === undefined) throw unauthorized();
    let memory = memories.get(tenant);
    if (!memory) memories.set(tenant, (memory = store.memory(tenant)));
    c.set("memory", memory);
    await next();
  };
}
