/** The result shape of every operation (DESIGN.md section 5). */
import { z } from "zod";
import { Role } from "./common.ts";

/** One turn as read back. */
export const Turn = z.object({
  lsn: z.number(),
  session: z.string(),
  role: Role,
  content: z.string(),
  meta: z.record(z.string(), z.unknown()),
  idem_key: z.string().optional(),
  ts: z.string(),
});

/** `redacted`: how many secrets were taken out before writing, when any were. */
export const AppendResult = z.object({ entries: z.array(z.object({ lsn: z.number(), duplicate: z.boolean() })), redacted: z.number().optional() });
export const ReadResult = z.object({ turns: z.array(Turn), next: z.number().nullable() });
export const SessionInfo = z.object({
  name: z.string(),
  turns: z.number(),
  first_lsn: z.number(),
  last_lsn: z.number(),
  bytes: z.number(),
});
export const SessionsResult = z.object({ sessions: z.array(SessionInfo), next: z.string().nullable() });
export const SearchHit = z.object({
  lsn: z.number(),
  kind: z.enum(["turn", "link"]),
  session: z.string().nullable(),
  role: Role.nullable(),
  snippet: z.string(),
  score: z.number(),
  /** The query words (as the query wrote them) this hit holds; with several phrasings, those of the phrasing that ranked it best. */
  matched: z.array(z.string()),
  /**
   * Only when the search had `queries`: which phrasings found this hit, in
   * order (0 is `query`, i is `queries[i-1]`). Its snippet, score, matched
   * and follows are those of the first phrasing that ranked it best.
   */
  found_by: z.array(z.number()).optional(),
  /**
   * Only on a hit holding none of the query words: the LSN of the turn just
   * before it in its conversation that does (it is that turn's reply or tool result).
   */
  follows: z.number().optional(),
  url: z.string().optional(),
  /** Only on a turn another machine wrote (pulled by `zerodb sync`, DESIGN.md 16): its store's id and LSN there, from `meta.origin`. */
  origin: z.object({ store: z.string(), lsn: z.number() }).optional(),
});
export const SearchResult = z.object({ hits: z.array(SearchHit) });
export const WriteResult = z.object({ lsn: z.number(), duplicate: z.boolean(), redacted: z.number().optional() });
export const Fact = z.object({ key: z.string(), value: z.unknown(), lsn: z.number() });
export const FactListResult = z.object({ facts: z.array(Fact), next: z.string().nullable() });
export const ForgetResult = z.object({ lsn: z.number().nullable(), hidden: z.number(), dry_run: z.boolean() });
export const ObjectInfo = z.object({
  object: z.string(),
  size: z.number(),
  type: z.string(),
  name: z.string().nullable(),
  lsn: z.number(),
});
export const ObjectPutResult = z.object({
  object: z.string(),
  size: z.number(),
  type: z.string(),
  lsn: z.number(),
  duplicate: z.boolean(),
});
export const ObjectListResult = z.object({ objects: z.array(ObjectInfo), next: z.number().nullable() });
export const Link = z.object({ lsn: z.number(), url: z.string(), title: z.string().nullable(), note: z.string().nullable(), ts: z.string() });
export const LinkListResult = z.object({ links: z.array(Link), next: z.number().nullable() });
/** One value a fact had: the record that set it, and when. */
export const FactValue = z.object({ value: z.unknown(), lsn: z.number(), ts: z.string() });
export const FactHistoryResult = z.object({ key: z.string(), values: z.array(FactValue), next: z.number().nullable() });
/** One UTC day with turns: `day` is YYYY-MM-DD, `bytes` their payload. Days without turns are left out. */
export const DayCount = z.object({ day: z.string(), turns: z.number(), bytes: z.number() });
export const ActivityResult = z.object({ since: z.string(), daily: z.array(DayCount) });
export const KindStats = z.object({ count: z.number(), bytes: z.number() });
export const StatsResult = z.object({
  tenant: z.string(),
  last_lsn: z.number(),
  turns: KindStats,
  sessions: z.number(),
  facts: KindStats,
  links: KindStats,
  objects: KindStats,
  forgets: z.number(),
  forgotten: z.number(),
  payload_histogram: z.array(z.object({ le: z.number().nullable(), count: z.number() })),
  repeated: z.object({ turns: z.number(), bytes: z.number(), share: z.number() }),
  redactions: z.number(),
  // The tenant's own bytes: its live records in the store, its distinct objects (never whole-store sizes).
  disk: z.object({ store_bytes: z.number(), object_bytes: z.number() }),
});

export type Turn = z.infer<typeof Turn>;
export type AppendResult = z.infer<typeof AppendResult>;
export type ReadResult = z.infer<typeof ReadResult>;
export type SessionInfo = z.infer<typeof SessionInfo>;
export type SessionsResult = z.infer<typeof SessionsResult>;
export type SearchHit = z.infer<typeof SearchHit>;
export type SearchResult = z.infer<typeof SearchResult>;
export type WriteResult = z.infer<typeof WriteResult>;
export type Fact = z.infer<typeof Fact>;
export type FactListResult = z.infer<typeof FactListResult>;
export type ForgetResult = z.infer<typeof ForgetResult>;
export type ObjectInfo = z.infer<typeof ObjectInfo>;
export type ObjectPutResult = z.infer<typeof ObjectPutResult>;
export type ObjectListResult = z.infer<typeof ObjectListResult>;
export type Link = z.infer<typeof Link>;
export type LinkListResult = z.infer<typeof LinkListResult>;
export type FactValue = z.infer<typeof FactValue>;
export type FactHistoryResult = z.infer<typeof FactHistoryResult>;
export type DayCount = z.infer<typeof DayCount>;
export type ActivityResult = z.infer<typeof ActivityResult>;
export type StatsResult = z.infer<typeof StatsResult>;

/** diff (DESIGN.md section 17): what was added between two points, never forgotten content. */
export const LsnRange = z.tuple([z.number(), z.number()]);
export const DiffSession = z.object({ name: z.string(), turns: z.number(), bytes: z.number(), lsns: z.array(LsnRange) });
export const DiffFactValue = z.object({ value: z.unknown(), lsn: z.number() });
export const DiffFact = z.object({ key: z.string(), sets: z.number(), old: DiffFactValue.nullable(), new: DiffFactValue });
export const DiffForget = z.object({ lsn: z.number(), ts: z.string(), hidden: z.number(), kinds: z.record(z.string(), z.number()), lsns: z.array(LsnRange) });
export const DiffResult = z.object({
  /** The points as LSNs: records with from < LSN ≤ to are what was added. */
  from: z.number(),
  to: z.number(),
  sessions: z.array(DiffSession),
  facts: z.array(DiffFact),
  forgets: z.array(DiffForget),
  links: z.number(),
  objects: z.number(),
  /** More sessions or facts changed than `limit`: the lists hold the first by name. */
  truncated: z.boolean(),
});
export type DiffResult = z.infer<typeof DiffResult>;
