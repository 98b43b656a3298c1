/** The route pattern that answered a request: what the request log shows instead of the path. */
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

/** The pattern of the route (not middleware) that matched, or "-" when none did. */
export function routeOf(c: Context): string {
  // Middleware is registered with app.use (method ALL); routes always name a method.
  const routes = matchedRoutes(c).filter((r) => r.method !== "ALL");
  return routes.at(-1)?.path ?? "-";
}
