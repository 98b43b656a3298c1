/** `GET /v1/stats` (stats) and `GET /v1/activity` (turns and bytes per day), DESIGN.md 6.1. */
import { ActivityInput, StatsInput } from "../../schema/ops.ts";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/stats and /v1/activity. */
export function statsRoutes(app: App): void {
  app.get("/v1/stats", async (c) => c.json(await c.var.memory.stats(queryInput(c.req.url, StatsInput))));
  app.get("/v1/activity", async (c) => c.json(await c.var.memory.activity(queryInput(c.req.url, ActivityInput, { days: { int: true } }))));
}
