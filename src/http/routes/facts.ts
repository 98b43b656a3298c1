/**
 * Facts, DESIGN.md 6.1: `PUT`/`GET /v1/facts/<key>` (fact_set / fact_get; the
 * key may contain '/'), `GET /v1/facts` (fact_list) and
 * `GET /v1/fact-history/<key>?before=&limit=` (fact_history).
 */
import { z } from "zod";
import { invalid } from "../../errors.ts";
import { FactGetInput, FactHistoryInput, FactListInput, FactSetInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { asObject, readJsonBody } from "../body.ts";
import type { App } from "../env.ts";
import { queryInput } from "../query.ts";

const PREFIX = "/v1/facts/";
const HISTORY = "/v1/fact-history/";

/** The fact key of a request's path: everything after /v1/facts/ (or `prefix`), percent-decoded. */
export function factKey(url: string, prefix = PREFIX): string {
  // From the raw path, so an encoded '/' (%2F) and a literal one name the same key.
  const raw = new URL(url).pathname.slice(prefix.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalid("key", "is not valid percent-encoded UTF-8");
  }
}

/** Registers /v1/facts, /v1/facts/<key> and /v1/fact-history/<key>. */
export function factRoutes(app: App): void {
  app.put(`${PREFIX}:key{.+}`, async (c) => {
    queryInput(c.req.url, z.strictObject({}));
    const key = factKey(c.req.url);
    const body = asObject(await readJsonBody(c.req.raw));
    if (Object.hasOwn(body, "key")) throw invalid("key", "comes from the path; leave it out of the body");
    const input = parseInput(FactSetInput, { ...body, key });
    return c.json(await c.var.memory.factSet(input));
  });
  app.get(`${PREFIX}:key{.+}`, async (c) => {
    const query = queryInput(c.req.url, FactGetInput.pick({ as_of: true }), { as_of: {} });
    const input = parseInput(FactGetInput, { ...query, key: factKey(c.req.url) });
    return c.json(await c.var.memory.factGet(input));
  });
  app.get(`${HISTORY}:key{.+}`, async (c) => {
    const query = queryInput(c.req.url, FactHistoryInput.omit({ key: true }), { before: { int: true }, limit: { int: true } });
    const input = parseInput(FactHistoryInput, { ...query, key: factKey(c.req.url, HISTORY) });
    return c.json(await c.var.memory.factHistory(input));
  });
  app.get("/v1/facts", async (c) => {
    const input = queryInput(c.req.url, FactListInput, { prefix: {}, after: {}, limit: { int: true }, as_of: {} });
    return c.json(await c.var.memory.factList(input));
  });
}
