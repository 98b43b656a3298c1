/** `POST /v1/forget` (forget), DESIGN.md 6.1. */
import { ForgetInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { readJsonBody } from "../body.ts";
import type { App } from "../env.ts";

/** Registers /v1/forget. */
export function forgetRoutes(app: App): void {
  app.post("/v1/forget", async (c) => {
    const input = parseInput(ForgetInput, await readJsonBody(c.req.raw));
    return c.json(await c.var.memory.forget(input));
  });
}
