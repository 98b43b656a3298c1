/**
 * The input schema of every operation (DESIGN.md section 5). The HTTP route,
 * the MCP tool and the CLI command all validate with these (D3), and the store
 * validates again, so no door can bypass them.
 */
import { z } from "zod";
import {
  ACTIVITY_DAYS_DEFAULT,
  ACTIVITY_MAX_DAYS,
  APPEND_MAX_ENTRIES,
  FACT_VALUE_MAX_BYTES,
  FORGET_RANGES_MAX,
  NOTE_MAX_BYTES,
  QUERY_MAX_BYTES,
  QUERY_MAX_PHRASINGS,
  TITLE_MAX_BYTES,
  URL_MAX_BYTES,
} from "../limits.ts";
import { AfterLsn, Digest, IdemKey, Limit, Lsn, Name, NameCursor, Prefix, Role, jsonValue, refuseNul, utf8String } from "./common.ts";
import { AsOf, IsoTime } from "./as-of.ts";
import { Entry } from "./entry.ts";

// One entry of an append: in a module of its own, so the capture batch's schema has it without building every operation's.
export { Entry } from "./entry.ts";

// as_of on the reads (DESIGN.md section 17).
const AS_OF_HELP = "what the store held at this point: an LSN, or an ISO 8601 time (the last record at or before it); a forgotten record never comes back";

/** append: `{session, entries}`, all-or-nothing. */
export const AppendInput = z.strictObject({
  session: Name.describe("the session name; '/' nests (project/sub)"),
  entries: z.array(Entry).min(1).max(APPEND_MAX_ENTRIES).describe("1 to 256 entries, appended in order"),
  redact: z.boolean().optional().describe("false stores the entries as given, secrets included; each entry's meta then says redaction: off (default true)"),
});

/** read: a page of a session's turns after an LSN. */
export const ReadInput = z.strictObject({
  session: Name.describe("the session name"),
  after: AfterLsn.optional().describe("return turns with an LSN greater than this (the `next` of the previous page)"),
  limit: Limit.optional().describe("page size, 1 to 1000, default 100"),
  as_of: AsOf.optional().describe(AS_OF_HELP),
});

/** sessions: list sessions by name. */
export const SessionsInput = z.strictObject({
  prefix: Prefix.optional().describe("only sessions whose name starts with this"),
  after: NameCursor.optional().describe("return sessions named after this (the `next` of the previous page)"),
  limit: Limit.optional().describe("page size, 1 to 1000, default 100"),
  as_of: AsOf.optional().describe(AS_OF_HELP),
});

// A query with no word (letters or digits) is refused here, before any door touches the store (I6);
// the engine's toFtsQuery keeps the same rule.
const Query = utf8String({ min: 1, max: QUERY_MAX_BYTES }).superRefine((s, ctx) => {
  if (!s.split(/\s+/).some((w) => /[\p{L}\p{N}]/u.test(w))) ctx.addIssue({ code: "custom", message: "has no words to search for" });
});

/** search: full text, BM25 order; with `queries`, several phrasings fused by rank (src/search/fuse.ts). */
export const SearchInput = z.strictObject({
  query: Query.describe('what to find, in your own words or as keywords; "a phrase" in quotes, word* for a prefix'),
  // Each phrasing is checked like the query, and a bad one is named by its place (queries.1) before anything is searched (I6).
  queries: z
    .array(Query)
    .min(1, { error: "must hold a phrasing (leave it out for none)" })
    .max(QUERY_MAX_PHRASINGS, { error: `holds more than ${QUERY_MAX_PHRASINGS} phrasings` })
    .optional()
    .describe(
      "1 to 8 more phrasings of the same question, searched alongside query and fused by rank; each hit's found_by names the phrasings that found it (0 is query, 1 the first of these)",
    ),
  session: Name.optional().describe("only this session"),
  prefix: Prefix.optional().describe("only sessions whose name starts with this"),
  role: Role.optional().describe("only turns of this role"),
  limit: Limit.optional().describe("at most this many hits, 1 to 1000, default 100"),
  all_words: z.boolean().optional().describe("only turns holding every word of the query (default: any word, best first)"),
  include_noise: z.boolean().optional().describe("also search harness bookkeeping and zerodb's own captured results and context (left out by default)"),
  as_of: AsOf.optional().describe(AS_OF_HELP),
});

/** fact_set: set a named value, superseding the old one. */
export const FactSetInput = z.strictObject({
  key: Name.describe("the fact's key; '/' nests"),
  value: jsonValue(FACT_VALUE_MAX_BYTES).describe("any JSON value, at most 1 MiB serialized"),
  idem_key: IdemKey.optional().describe("a key naming this write forever"),
});

/** fact_get: the current value of a key. */
export const FactGetInput = z.strictObject({
  key: Name.describe("the fact's key"),
  as_of: AsOf.optional().describe(AS_OF_HELP),
});

/** fact_list: current facts by key. */
export const FactListInput = z.strictObject({
  prefix: Prefix.optional().describe("only keys starting with this"),
  after: NameCursor.optional().describe("return keys after this (the `next` of the previous page)"),
  limit: Limit.optional().describe("page size, 1 to 1000, default 100"),
  as_of: AsOf.optional().describe(AS_OF_HELP),
});

/** A forget selector: exactly one of its fields. */
export const Selector = z
  .strictObject({
    session: Name.optional().describe("every turn of this session"),
    session_prefix: Prefix.optional().describe("every turn of every session whose name starts with this"),
    turn: Lsn.optional().describe("the turn with this LSN"),
    fact: Name.optional().describe("every value this fact key has had"),
    fact_prefix: Prefix.optional().describe("every fact whose key starts with this"),
    object: Digest.optional().describe("every reference to this object"),
    link: Lsn.optional().describe("the link with this LSN"),
    before: IsoTime.optional().describe("everything older than this ISO 8601 time"),
    records: z
      .array(z.tuple([Lsn, Lsn]).refine(([a, b]) => a <= b, { message: "a range's first LSN must not exceed its last" }))
      .min(1)
      .max(FORGET_RANGES_MAX)
      .optional()
      .describe("the records (turns, facts, links, object refs) with these LSNs, as inclusive [first, last] ranges: how sync replays a forget"),
  })
  .superRefine((sel, ctx) => {
    const given = Object.entries(sel).filter(([, v]) => v !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({
        code: "custom",
        message: `must have exactly one of session, session_prefix, turn, fact, fact_prefix, object, link, before, records (it has ${given})`,
      });
    }
    if (sel.session_prefix === "" || sel.fact_prefix === "") {
      ctx.addIssue({ code: "custom", message: "a prefix must not be empty", path: [sel.session_prefix === "" ? "session_prefix" : "fact_prefix"] });
    }
  });

/** forget: hide and purge everything the selector matches. */
export const ForgetInput = z.strictObject({
  selector: Selector.describe("what to forget: exactly one field"),
  dry_run: z.boolean().optional().describe("count what would go, write nothing"),
});

/** stats: no input. */
export const StatsInput = z.strictObject({});

/** link_add: a URL reference, never fetched. */
export const LinkAddInput = z.strictObject({
  url: utf8String({ min: 1, max: URL_MAX_BYTES })
    .superRefine((s, ctx) => {
      let ok = false;
      try {
        const u = new URL(s);
        ok = (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
      } catch {
        ok = false;
      }
      if (!ok) ctx.addIssue({ code: "custom", message: "must be an http or https URL" });
    })
    .describe("an http or https URL; zerodb never fetches it"),
  title: utf8String({ max: TITLE_MAX_BYTES }).optional().describe("a title, searchable"),
  note: utf8String({ max: NOTE_MAX_BYTES }).optional().describe("a note, searchable"),
  idem_key: IdemKey.optional().describe("a key naming this write forever"),
});

/** link_list: the tenant's live links, newest first (read only). */
export const LinkListInput = z.strictObject({
  prefix: utf8String({ max: URL_MAX_BYTES }).optional().describe("only links whose URL starts with this"),
  before: Lsn.optional().describe("return links with an LSN lower than this (the `next` of the previous page)"),
  limit: Limit.optional().describe("page size, 1 to 1000, default 100"),
});

/** fact_history: every live value a fact key has had, newest first (read only). */
export const FactHistoryInput = z.strictObject({
  key: Name.describe("the fact's key"),
  before: Lsn.optional().describe("return values with an LSN lower than this (the `next` of the previous page)"),
  limit: Limit.optional().describe("page size, 1 to 1000, default 100"),
});

/** activity: turns and their bytes per UTC day, over the last `days` days (read only). */
export const ActivityInput = z.strictObject({
  days: z
    .number()
    .int()
    .min(1)
    .max(ACTIVITY_MAX_DAYS)
    .optional()
    .describe(`how many days back from today (UTC), 1 to ${ACTIVITY_MAX_DAYS}, default ${ACTIVITY_DAYS_DEFAULT}`),
});

/** object_put metadata (the bytes travel beside it). */
export const ObjectPutMeta = z.strictObject({
  name: utf8String({ max: 255 }).superRefine(refuseNul).optional().describe("a file name to remember with the object"),
  type: z
    .string()
    .max(255)
    .regex(/^[\x21-\x7e]+\/[\x21-\x7e]+( *;.*)?$/, "must be a media type such as image/png")
    .optional()
    .describe("its media type"),
  idem_key: IdemKey.optional().describe("a key naming this write forever"),
});

/** object_get: an object by digest. */
export const ObjectGetInput = z.strictObject({
  object: Digest.describe("the object's digest, sha256:<64 hex>"),
});

/** objects: list the objects the tenant holds. */
export const ObjectListInput = z.strictObject({
  after: AfterLsn.optional().describe("return refs with an LSN greater than this"),
  limit: Limit.optional().describe("page size, 1 to 1000, default 100"),
});

/** diff: what was added between two points of the tape (DESIGN.md section 17). */
export const DiffInput = z.strictObject({
  from: AsOf.describe("the earlier point: an LSN or an ISO 8601 time"),
  to: AsOf.optional().describe("the later point: an LSN or an ISO 8601 time (default: now)"),
  prefix: Prefix.optional().describe("only sessions and fact keys starting with this"),
  limit: Limit.optional().describe("at most this many sessions and this many facts, 1 to 1000, default 100"),
});

export type AppendInput = z.output<typeof AppendInput>;
export type EntryInput = z.output<typeof Entry>;
export type ReadInput = z.output<typeof ReadInput>;
export type SessionsInput = z.output<typeof SessionsInput>;
export type SearchInput = z.output<typeof SearchInput>;
export type FactSetInput = z.output<typeof FactSetInput>;
export type FactGetInput = z.output<typeof FactGetInput>;
export type FactListInput = z.output<typeof FactListInput>;
export type Selector = z.output<typeof Selector>;
export type ForgetInput = z.output<typeof ForgetInput>;
export type StatsInput = z.output<typeof StatsInput>;
export type LinkAddInput = z.output<typeof LinkAddInput>;
export type LinkListInput = z.output<typeof LinkListInput>;
export type FactHistoryInput = z.output<typeof FactHistoryInput>;
export type ActivityInput = z.output<typeof ActivityInput>;
export type ObjectPutMeta = z.output<typeof ObjectPutMeta>;
export type ObjectGetInput = z.output<typeof ObjectGetInput>;
export type ObjectListInput = z.output<typeof ObjectListInput>;
export type DiffInput = z.output<typeof DiffInput>;
