/** What push and pull share: both stores, the journal, and small helpers over them. */
import type { Requester } from "../client/request.ts";
import { lsnRanges } from "../store/ranges.ts";
import type { Memory, Store } from "../store/types.ts";
import type { TapeRecord } from "../schema/tape.ts";
import { FORGET_RANGES_MAX, HTTP_BODY_MAX_BYTES, META_MAX_BYTES } from "../limits.ts";
import type { Journal, Origin } from "./journal.ts";

/** One sync's parts. */
export interface SyncContext {
  /** The local store, for reading its tape. */
  store: Store;
  /** The local tenant's memory (writes of what is pulled). */
  local: Memory;
  /** The server's memory for the token's tenant (writes of what is pushed). */
  remote: Memory;
  requester: Requester;
  journal: Journal;
  /** This store's id: the origin of what it wrote itself. */
  self: string;
  /** Called as records move: which way, how many so far. */
  onProgress?: (phase: "push" | "pull", done: number) => void;
}

/** Records a page of the local tape holds at most: a read snapshot lasts one page. */
export const LOCAL_PAGE = 1000;

/** The bytes one append sends at most: under the server's body limit with room for the envelope. */
export const BATCH_MAX_BYTES = HTTP_BODY_MAX_BYTES - 512 * 1024;

/** Up to `n` records of an async iterable; the iterable is closed after (its read snapshot ends). */
export async function take<T>(it: AsyncIterable<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  if (n <= 0) return out;
  for await (const x of it) {
    out.push(x);
    if (out.length >= n) break;
  }
  return out;
}

/** The local record at an LSN, or undefined (another tenant's, or none). */
export async function localRecord(ctx: SyncContext, lsn: number): Promise<TapeRecord | undefined> {
  const [rec] = await take(ctx.store.exportTape({ tenant: ctx.local.tenant, after: lsn - 1 }), 1);
  return rec?.lsn === lsn ? rec : undefined;
}

/** Every LSN of inclusive ranges. */
export function* expand(ranges: readonly (readonly [number, number])[]): Generator<number> {
  for (const [a, b] of ranges) for (let l = a; l <= b; l++) yield l;
}

/** Sorted LSNs as `records` selectors, each within the ranges a forget takes. */
export function rangeChunks(lsns: number[]): [number, number][][] {
  const ranges = lsnRanges([...new Set(lsns)].sort((a, b) => a - b));
  const out: [number, number][][] = [];
  for (let i = 0; i < ranges.length; i += FORGET_RANGES_MAX) out.push(ranges.slice(i, i + FORGET_RANGES_MAX));
  return out;
}

/**
 * Forgets, in `memory`, the records a forget hid on the other side, as this
 * side's LSNs (`other` translates one through the journal, or undefined
 * when this side never held that record): one `records` forget per chunk.
 * How many LSNs it named, and the LSN of the first forget (or null).
 */
export async function forgetTranslated(
  memory: Memory,
  hid: readonly (readonly [number, number])[],
  other: (lsn: number) => number | null | undefined,
): Promise<{ named: number; first: number | null }> {
  const lsns: number[] = [];
  for (const l of expand(hid)) {
    const m = other(l);
    if (m != null) lsns.push(m);
  }
  let first: number | null = null;
  for (const records of rangeChunks(lsns)) {
    const r = await memory.forget({ selector: { records } });
    first ??= r.lsn;
  }
  return { named: lsns.length, first };
}

/**
 * A turn's meta with its origin added (`meta.origin = {store, lsn}`), so a
 * hit on any replica can say which machine wrote it; kept as it was when
 * the meta already says so, or when adding it would pass the meta limit.
 */
export function withOrigin(meta: Record<string, unknown>, o: Origin): Record<string, unknown> {
  if (meta.origin !== undefined) return meta;
  const out = { ...meta, origin: { store: o.store, lsn: o.lsn } };
  return Buffer.byteLength(JSON.stringify(out)) <= META_MAX_BYTES ? out : meta;
}

/** The JSON bytes an entry adds to an append's body, as sent. */
export function entryBytes(entry: unknown): number {
  return Buffer.byteLength(JSON.stringify(entry)) + 1;
}
