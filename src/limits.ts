/** Every limit of DESIGN.md section 3, named once. Each has a boundary test. */

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** Session names and fact keys: 1–255 bytes of UTF-8. */
export const NAME_MAX_BYTES = 255;
/** Turn content: at most 4 MiB of UTF-8. */
export const CONTENT_MAX_BYTES = 4 * MiB;
/** Turn meta: a JSON object of at most 16 KiB serialized. */
export const META_MAX_BYTES = 16 * KiB;
/** Idempotency keys: 1–255 bytes. */
export const IDEM_KEY_MAX_BYTES = 255;
/** Fact values: any JSON value of at most 1 MiB serialized. */
export const FACT_VALUE_MAX_BYTES = 1 * MiB;
/**
 * JSON values (turn meta, fact values): at most this many levels of nesting.
 * Not in DESIGN.md section 3; it keeps every stored value inside SQLite's
 * JSON depth limit (1000, https://sqlite.org/json1.html) and the JS stack,
 * so no accepted write can break a later read or stats (issue 9).
 */
export const JSON_MAX_DEPTH = 100;
/** Entries in one append: 1–256. */
export const APPEND_MAX_ENTRIES = 256;
/** HTTP JSON request bodies: 8 MiB, checked while streaming. */
export const HTTP_BODY_MAX_BYTES = 8 * MiB;
/** Default page size. */
export const PAGE_DEFAULT = 100;
/** Largest page size; a larger `limit` is invalid_input. */
export const PAGE_MAX = 1000;
/** Bytes of content one page of a read carries at most (at least one turn): a page of 1,000 turns of 4 MiB would be 4 GB. */
export const READ_PAGE_MAX_BYTES = 16 * MiB;
/** Longest span `activity` counts turns over, in days. */
export const ACTIVITY_MAX_DAYS = 366;
/** Span `activity` counts by default, in days. */
export const ACTIVITY_DAYS_DEFAULT = 90;
/** Default cap on one object's size (config `max_object_bytes`). */
export const OBJECT_MAX_BYTES_DEFAULT = 4 * GiB;
/** Search queries: at most this many bytes (longer is not a search, it is a paste). */
export const QUERY_MAX_BYTES = 4 * KiB;
/** Search: at most this many further phrasings beside the query (DESIGN.md 11, "Several phrasings"; a model asked for 2–4 stays well below). */
export const QUERY_MAX_PHRASINGS = 8;
/** Link URLs, titles and notes. */
export const URL_MAX_BYTES = 8 * KiB;
/** Link titles. */
export const TITLE_MAX_BYTES = 1 * KiB;
/** Link notes. */
export const NOTE_MAX_BYTES = 64 * KiB;
/** Tool results above this many bytes are spilled (DESIGN.md section 9). */
export const MAX_INLINE_BYTES_DEFAULT = 64 * KiB;
/**
 * The highest LSN a restore or import takes, in a header or a record
 * (issue 29 item 5). Half of the integers a JS number holds exactly: a
 * restored store keeps the other 2^52 for its own writes, where a crafted
 * `last_lsn` of 2^53 - 1 would hand its next two writes the same LSN (I1).
 * No store reaches it: 2^52 writes at a million a second take 142 years.
 */
export const LSN_RESTORE_MAX = 2 ** 52;
/** How far ahead of this machine's clock a restored or imported record's time may be (another machine's clock, a day off at most). */
export const CLOCK_SKEW_MAX_MS = 24 * 60 * 60 * 1000;
/** Ranges in one forget's `records` selector (how sync replays a forget): 1–4,096 [first, last] LSN ranges. */
export const FORGET_RANGES_MAX = 4096;
/** Bytes of records one page of `GET /v1/sync/tape` carries at most (at least one record), like READ_PAGE_MAX_BYTES. */
export const SYNC_PAGE_MAX_BYTES = 16 * MiB;
