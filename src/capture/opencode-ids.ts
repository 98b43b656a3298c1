/**
 * opencode's ids as places in order (HARNESSES.md "opencode"): an id is
 * `<prefix>_<12 hex>` + random, the hex being (milliseconds × 4096 + a
 * counter) cut to 48 bits, so ids sort by creation except where the 48 bits
 * wrap (every 795 days). The wrap is undone with the row's `time_created`,
 * and a record's position (opencode.ts) is that place (from 2024 on) ×
 * SLOTS + its slot.
 */

/** How a record's 12 hex digits sit in an opencode id. */
const ID = /^(ses|msg|prt)_([0-9a-f]{12})/;
/** 2^48: where opencode's id numbers wrap. */
const WRAP = 2 ** 48;
/** Id units (ms × 4096) at 2024-01-01, subtracted so positions stay below 2^53. */
const EPOCH_UNITS = Date.UTC(2024, 0, 1) * 4096;
/** A record's position is its id's place times this, plus its slot (0 message, 1 part or tool call, 2 tool result). */
export const SLOTS = 4;

/** The place of an opencode id created at `timeCreated` (ms), or undefined for an id not of opencode's ascending form. */
export function idNumber(id: string, timeCreated: number): number | undefined {
  const m = ID.exec(id);
  if (!m) return undefined;
  const low = Number.parseInt(m[2]!, 16);
  // The 48 bits wrapped k times: take the k that puts the id's time nearest the row's.
  const k = Math.round((timeCreated * 4096 - low) / WRAP);
  const units = low + k * WRAP - EPOCH_UNITS;
  return units >= 0 ? units : undefined;
}

/** The milliseconds an id place stands for (inverse of idNumber, to within the counter). */
export function placeTime(units: number): number {
  return Math.floor((units + EPOCH_UNITS) / 4096);
}

/** A day: how far past now an id's clock may run ahead of the reader's (the bound of a run's id range). */
const AHEAD_MS = 24 * 60 * 60 * 1000;

/** The 12 hex digits of an id place, as opencode writes them (its low 48 bits). */
function hex12(units: number): string {
  return ((units + EPOCH_UNITS) % WRAP).toString(16).padStart(12, "0");
}

/**
 * The id range `[lo, hi)` of the records a run after `offset` can find, or
 * undefined when it has to read the whole window: the first run (offset 0),
 * or ids from the cursor to a day past now that cross the 48-bit wrap (where
 * hex order is not creation order). Inside the range, hex order is creation
 * order, so SQLite finds the new rows by the primary key (every session's,
 * filtered to this one) instead of this session's whole last hour.
 */
export function idRange(offset: number, now: number): { lo: string; hi: string } | undefined {
  if (offset <= 0) return undefined;
  const from = Math.floor(offset / SLOTS);
  const to = (now + AHEAD_MS) * 4096 - EPOCH_UNITS;
  if (to < from || Math.floor((from + EPOCH_UNITS) / WRAP) !== Math.floor((to + EPOCH_UNITS) / WRAP)) return undefined;
  return { lo: hex12(from), hi: hex12(to + 1) };
}
