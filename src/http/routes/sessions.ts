/** `GET /v1/sessions` (sessions), DESIGN.md 6.1. */
import { SessionsInput } from "../../schema/ops.ts";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/sessions. */
export function sessionRoutes(app: App): void {
  app.get("/v1/sessions", async (c) => {
    const input = queryInput(c.req.url, SessionsInput, { prefix: {}, after: {}, limit: { int: true }, as_of: {} });
    return c.json(await c.var.memory.sessions(input));
  });
}
