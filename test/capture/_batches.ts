/** Capture batches as the transcript reader builds them, for the cursor tests (DESIGN.md 7.2). */
import type { CaptureBatch, CaptureCursor } from "../../src/store/capture-cursors.ts";

/** The capture session the batches append to. */
export const BATCH_SESSION = "proj-00000000/abc";

/** A batch of single-chunk lines `from..to` (10 bytes each) of source `source`. */
export function lineBatch(from: number, to: number, opts: { session?: string; source?: string } = {}): CaptureBatch {
  const source = opts.source ?? "sid";
  const at = (p: number): CaptureCursor => ({ offset: p * 10, position: p, chunk: 0 });
  return {
    source,
    session: opts.session ?? BATCH_SESSION,
    path: `/t/${source}.jsonl`,
    start: at(from),
    end: at(to),
    entries: Array.from({ length: to - from }, (_, i) => ({
      // The idem_key names the transcript line, not the source row: a lost cursor replays the same keys.
      entry: { role: "user" as const, content: `line ${from + i}`, meta: { position: from + i }, idem_key: `sid:${from + i}:0` },
      before: at(from + i),
    })),
  };
}

/** A line of three chunks at position 0, from chunk `from`. */
export function chunkedBatch(from: number): CaptureBatch {
  const at = (chunk: number): CaptureCursor => ({ offset: 0, position: 0, chunk });
  return {
    source: "big",
    session: BATCH_SESSION,
    path: "/t/big.jsonl",
    start: at(from),
    end: { offset: 100, position: 1, chunk: 0 },
    entries: [0, 1, 2].slice(from).map((k) => ({ entry: { role: "tool" as const, content: `part ${k}`, idem_key: `big:0:${k}` }, before: at(k) })),
  };
}
