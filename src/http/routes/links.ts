/** `POST /v1/links` (link_add), DESIGN.md 6.1: a URL reference, never fetched (D1). */
import { LinkAddInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { readJsonBody } from "../body.ts";
import type { App } from "../env.ts";

/** Registers /v1/links. */
export function linkRoutes(app: App): void {
  app.post("/v1/links", async (c) => {
    const input = parseInput(LinkAddInput, await readJsonBody(c.req.raw));
    return c.json(await c.var.memory.linkAdd(input));
  });
}
