/**
 * Binds an app to a port with Bun.serve: the one place the HTTP door touches
 * the network (STYLE.md habit 4). Listening beyond loopback is the caller's
 * explicit choice (DESIGN.md D1: 127.0.0.1 unless told otherwise).
 */
import { isIP } from "node:net";
import { CODES, ZeroDbError } from "../errors.ts";
import { rawPathGuard } from "./raw-path.ts";

/** A listening server. */
export interface RunningServer {
  /** `http://host:port`, the port resolved when 0 was asked for. */
  readonly url: string;
  readonly port: number;
  /** Requests being handled right now. */
  inFlight(): number;
  /** Stops accepting, lets in-flight requests finish, closes idle connections. */
  stop(): Promise<void>;
  /** Stops at once, cutting in-flight requests (a second Ctrl-C). */
  abort(): Promise<void>;
}

/** The body of a 500 for anything Hono did not answer (it answers everything it can). */
function fallback(): Response {
  const body = JSON.stringify({ error: { code: "internal", message: "internal error" } });
  return new Response(body, { status: CODES.internal.status, headers: { "content-type": "application/json" } });
}

/** Starts serving `fetch` on host:port; unavailable when the port is taken. */
export function serveHttp(opts: { fetch: (req: Request) => Response | Promise<Response>; host: string; port: number }): RunningServer {
  let server: ReturnType<typeof Bun.serve>;
  const guard = rawPathGuard(opts.fetch);
  try {
    server = Bun.serve({
      hostname: opts.host,
      port: opts.port,
      routes: guard.routes,
      fetch: guard.fetch,
      error: fallback,
      // Bodies are limited per route while they stream (JSON 8 MiB, objects max_object_bytes);
      // Bun's own cap would answer 413 in a shape of its own, so it is lifted here.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    const where = `${opts.host}:${opts.port}`;
    if (code === "EADDRINUSE")
      throw new ZeroDbError("unavailable", `cannot listen on ${where}: the port is in use (choose another with --port)`, { cause: err });
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
      throw new ZeroDbError("invalid_input", `host: cannot listen on ${opts.host}: no such address on this machine`, { field: "host", cause: err });
    }
    throw new ZeroDbError("unavailable", `cannot listen on ${where}`, { cause: err });
  }
  const host = isIP(opts.host) === 6 ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${server.port}`,
    port: server.port!,
    inFlight: () => server.pendingRequests,
    stop: () => server.stop(false),
    abort: () => server.stop(true),
  };
}
