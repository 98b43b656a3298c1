/**
 * `GET /v1/search?q=` (search), DESIGN.md 6.1. `q` may be repeated for
 * several phrasings (DESIGN.md 11): the first is `query`, the rest `queries`,
 * so a bad second `q` is named `queries.0`.
 */
import { SearchInput } from "../../schema/ops.ts";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/search. */
export function searchRoutes(app: App): void {
  app.get("/v1/search", async (c) => {
    const input = queryInput(c.req.url, SearchInput, {
      q: { field: "query", repeats: "queries" },
      session: {},
      prefix: {},
      role: {},
      limit: { int: true },
      all_words: { bool: true },
      include_noise: { bool: true },
      as_of: {},
    });
    return c.json(await c.var.memory.search(input));
  });
}
