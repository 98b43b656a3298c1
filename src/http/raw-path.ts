/**
 * `.` and `..` segments are refused as they were sent, before the path is
 * normalized (issue 14): `PUT /v1/facts/a/../b` must not quietly set `b`.
 *
 * Bun resolves dot segments in `request.url` before any handler runs, and
 * offers no other view of the request target, except one: `Bun.serve`'s
 * `routes` match the target as sent, and a route's `:params` are its
 * segments as sent (percent-decoded). So every path depth up to MAX_SEGMENTS
 * gets one route of plain params that looks at each segment, and checks
 * that the normalized path holds the same segments as were sent (Bun
 * matches a deeper target to the deepest route and drops the rest; `\`
 * becomes `/` when normalized). The fallback `fetch` only sees targets no such route
 * matched: those with an empty segment (`/`, `/a/`, `/a//b`), which the app
 * answers itself unless normalizing removed it. test/security/edges.test.ts
 * fails the day Bun starts matching routes on the normalized path, as it
 * has been proposed it should.
 */
import { ZeroDbError } from "../errors.ts";
import { errorResponse } from "./errors.ts";

/** Bun keeps at most 100 params per route; a fact key deeper than 98 segments is refused over HTTP. */
const MAX_SEGMENTS = 100;

type Fetch = (req: Request) => Response | Promise<Response>;
type RouteHandler = (req: Request & { params: Record<string, string> }) => Response | Promise<Response>;

function refused(): Response {
  return errorResponse(
    new ZeroDbError("invalid_input", `path: must not contain a '.' or '..' segment or a backslash, nor more than ${MAX_SEGMENTS} segments`, { field: "path" }),
  );
}

/** A normalized segment against the one sent; one that is not valid percent-encoding is left to the app's own check. */
function sameSegment(normalized: string, sent: string): boolean {
  try {
    return decodeURIComponent(normalized) === sent;
  } catch {
    return true;
  }
}

/** The routes and fallback that put `fetch` behind the check. */
export function rawPathGuard(fetch: Fetch): { routes: Record<string, RouteHandler>; fetch: Fetch } {
  const guarded: RouteHandler = (req) => {
    const sent = Object.values(req.params);
    for (const segment of sent) if (segment === "." || segment === "..") return refused();
    // What the app will read must be what was sent, segment for segment.
    const read = new URL(req.url).pathname.slice(1).split("/");
    if (read.length !== sent.length || read.some((segment, i) => !sameSegment(segment, sent[i]!))) return refused();
    return fetch(req);
  };
  const routes: Record<string, RouteHandler> = {};
  for (let n = 1; n <= MAX_SEGMENTS; n++) routes[`/${Array.from({ length: n }, (_, i) => `:s${i}`).join("/")}`] = guarded;
  return {
    routes,
    fetch: (req) => {
      // No route matched the target as sent. When the normalized path has no empty segment either,
      // the target was deeper than MAX_SEGMENTS or held dot segments that normalizing removed.
      const path = new URL(req.url).pathname;
      if (path !== "/" && !path.slice(1).split("/").includes("")) return refused();
      return fetch(req);
    },
  };
}
