/** `POST /v1/links` (link_add) and `GET /v1/links` (link_list), DESIGN.md 6.1: URL references, never fetched (D1). */
import { LinkAddInput, LinkListInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { readJsonBody } from "../body.ts";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/links. */
export function linkRoutes(app: App): void {
  app.post("/v1/links", async (c) => {
    const input = parseInput(LinkAddInput, await readJsonBody(c.req.raw));
    return c.json(await c.var.memory.linkAdd(input));
  });
  app.get("/v1/links", async (c) => {
    const input = queryInput(c.req.url, LinkListInput, { prefix: {}, before: { int: true }, limit: { int: true } });
    return c.json(await c.var.memory.linkList(input));
  });
}
