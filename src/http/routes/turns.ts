/** `POST /v1/turns` (append) and `GET /v1/turns` (read), DESIGN.md 6.1. */
import { AppendInput, ReadInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { readJsonBody } from "../body.ts";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/turns. */
export function turnRoutes(app: App): void {
  app.post("/v1/turns", async (c) => {
    const input = parseInput(AppendInput, await readJsonBody(c.req.raw));
    return c.json(await c.var.memory.append(input));
  });
  app.get("/v1/turns", async (c) => {
    const input = queryInput(c.req.url, ReadInput, { session: {}, after: { int: true }, limit: { int: true }, as_of: {} });
    return c.json(await c.var.memory.read(input));
  });
}
