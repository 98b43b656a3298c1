/** `GET /v1/stats` (stats), DESIGN.md 6.1. */
import { StatsInput } from "../../schema/ops.ts";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/stats. */
export function statsRoutes(app: App): void {
  app.get("/v1/stats", async (c) => c.json(await c.var.memory.stats(queryInput(c.req.url, StatsInput))));
}
