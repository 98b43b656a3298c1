/** `GET /v1/diff?from=&to=&prefix=&limit=` (diff, DESIGN.md section 17): what was added between two points. */
import { DiffInput } from "../../schema/ops.ts";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/diff. */
export function diffRoutes(app: App): void {
  app.get("/v1/diff", async (c) => {
    const input = queryInput(c.req.url, DiffInput, { from: {}, to: {}, prefix: {}, limit: { int: true } });
    return c.json(await c.var.memory.diff(input));
  });
}
