/**
 * Helpers of the forget-trace tests (issue 14 item 4): a store's export as
 * records, feeding records to an import, the bytes of a data dir, and the
 * PIN attack that hashes 10,000 candidates against them.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import type { Store } from "../../src/store/types.ts";
import { canonicalJson } from "../../src/util/json.ts";
import { sha256 } from "../../src/util/hash.ts";

/** A store (schema 4) and its export, written by the release before forget left no trace. */
export const FIXTURE = join(import.meta.dir, "..", "fixtures", "forget-store");

/** Every record of a store's export, as the JSONL lines `zerodb export` writes. */
export async function exportOf(store: Store): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of store.exportTape()) out.push(JSON.parse(JSON.stringify(r)));
  return out;
}

/** The records, one at a time, as an import reads them. */
export async function* feed(records: unknown[]) {
  for (const r of records) yield JSON.parse(JSON.stringify(r)) as unknown;
}

/** The bytes of every file in a data dir: database, WAL, shm, id. */
export function dataFiles(dir: string): Buffer[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)));
}

/**
 * Every 16-byte window of the bytes, as hex, and every 32-character window
 * of them read as lowercase text: a digest (or its first half) stored raw in
 * a database page or written as hex in an export is in this set.
 */
function windows(blobs: (Buffer | string)[]): Set<string> {
  const set = new Set<string>();
  for (const blob of blobs) {
    const buf = typeof blob === "string" ? Buffer.from(blob, "utf8") : blob;
    const hex = buf.toString("hex");
    for (let i = 0; i + 32 <= hex.length; i += 2) set.add(hex.slice(i, i + 32));
    const text = buf.toString("latin1").toLowerCase();
    for (let i = 0; i + 32 <= text.length; i++) {
      const w = text.slice(i, i + 32);
      if (/^[0-9a-f]{32}$/.test(w)) set.add(w);
    }
  }
  return set;
}

/**
 * The PIN attack: hash every 4-digit candidate the ways zerodb hashes a fact
 * (the op_hash of fact_set, as src/store/sqlite/facts.ts computes it, and a
 * content hash of the value), as a string and as a number, and look for each
 * digest, whole or its first 16 bytes, raw or as hex, anywhere in the bytes.
 * Returns the candidates found.
 */
export function crackPin(key: string, blobs: (Buffer | string)[]): string[] {
  const seen = windows(blobs);
  const found: string[] = [];
  for (let n = 0; n < 10_000; n++) {
    const pin = n.toString().padStart(4, "0");
    const digests = [pin, n].flatMap((v) => [sha256(canonicalJson(["fact", key, v])), sha256(JSON.stringify(v))]);
    if (digests.some((d) => seen.has(Buffer.from(d.subarray(0, 16)).toString("hex")))) found.push(pin);
  }
  return found;
}

/** Closes the store when the test leaves, even on a failed expectation. */
export function opened(dir: string): Store & Disposable {
  const store = openSqliteStore(dir);
  return Object.assign(store, { [Symbol.dispose]: () => store.close() });
}
