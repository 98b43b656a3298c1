/**
 * What every engine does alike with `as_of` (DESIGN.md section 17): an input
 * whose point the engine resolved carries it as an LSN, or not at all when
 * the point is now (past the end of the tape), so the engines' queries only
 * ever compare LSNs.
 */
import { ZeroDbError } from "../errors.ts";
import { type AsOfPoint, asOfPoint } from "../schema/as-of-point.ts";

/** How an engine finds the LSN of a time: the tenant's last record at or before it, if any record of the tenant is later. */
export interface AsOfLookup {
  /** The store's last LSN. */
  lastLsn(): number | Promise<number>;
  /** The last LSN of the tenant's live records with ts ≤ ms, or 0; undefined when no live record of the tenant is later. */
  atTime(ms: number): number | undefined | Promise<number | undefined>;
}

/** The LSN an `as_of` stands for, or undefined for now (at or past the end of the tape). */
export async function resolveAsOf(asOf: number | string | undefined, lookup: AsOfLookup): Promise<number | undefined> {
  if (asOf === undefined) return undefined;
  const point: AsOfPoint = asOfPoint(asOf);
  const lsn = "lsn" in point ? point.lsn : await lookup.atTime(point.ms);
  if (lsn === undefined) return undefined;
  return lsn >= (await lookup.lastLsn()) ? undefined : lsn;
}

/** `input` with its `as_of` resolved: an LSN, or left out for now. */
export async function atPoint<T extends { as_of?: number | string }>(input: T, lookup: AsOfLookup): Promise<T & { as_of?: number }> {
  if (input.as_of === undefined) return input as T & { as_of?: number };
  const { as_of, ...rest } = input;
  const lsn = await resolveAsOf(as_of, lookup);
  return (lsn === undefined ? rest : { ...rest, as_of: lsn }) as T & { as_of?: number };
}

/** The LSN bound of a resolved input, or undefined for none; an unresolved time is a bug of the engine, never served. */
export function boundOf(input: { as_of?: number | string }): number | undefined {
  if (input.as_of === undefined) return undefined;
  if (typeof input.as_of !== "number") throw new ZeroDbError("internal", "as_of reached the engine unresolved");
  return input.as_of;
}
