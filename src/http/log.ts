/**
 * The request log: one line per request, `METHOD /route/pattern STATUS MSms`.
 * The pattern, not the path, so fact keys and session names stay out of the
 * log; never bodies, never headers, never tokens. A request whose client hung
 * up before the answer shows `aborted` where the status would be.
 */
import type { MiddlewareHandler } from "hono";
import type { HttpEnv } from "./env.ts";
import { routeOf } from "./route.ts";

/** Middleware writing one log line per request once its response is ready. */
export function requestLog(log: (line: string) => void): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const status = c.req.raw.signal.aborted ? "aborted" : String(c.res.status);
      log(`${c.req.method} ${routeOf(c)} ${status} ${(performance.now() - started).toFixed(1)}ms`);
    }
  };
}
