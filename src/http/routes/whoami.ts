/** `GET /v1/whoami`: the tenant the token authenticates. */
import { z } from "zod";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/whoami. */
export function whoamiRoutes(app: App): void {
  app.get("/v1/whoami", (c) => {
    queryInput(c.req.url, z.strictObject({}));
    return c.json({ tenant: c.var.memory.tenant });
  });
}
