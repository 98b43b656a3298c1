/**
 * The compression section's anatomy of a store file (issue 32): what it
 * reports must add up to the file, and each what-if copy must be the change
 * it names, keeping what the store needs to answer (no timings here).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import {
  compressPayload,
  compressor,
  decompressor,
  digestKeys,
  internSessions,
  parts,
  reindexWithDetail,
  staticDictionary,
  tapeColumns,
  variantCopy,
} from "../../scripts/bench/_compressed-store.ts";
import { indexText } from "../../src/search/text.ts";
import { idemDigest } from "../../src/store/hashes.ts";
import { tenantToken } from "../../src/store/sqlite/search/word-index.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

/** A store of two tenants' sessions, some turns with idempotency keys, closed and checkpointed; returns its file. */
async function smallStore(dir: string): Promise<string> {
  const store = openSqliteStore(dir, { redact: false });
  for (const tenant of ["local", "other"]) {
    const m = store.memory(tenant);
    for (let s = 0; s < 3; s++) {
      for (let i = 0; i < 40; i++) {
        const entry = {
          role: i % 2 ? ("assistant" as const) : ("user" as const),
          content: `turn ${i} of session ${s} about reconnecting the ${tenant} websocket pool`,
          meta: { i },
          ...(i % 3 === 0 ? { idem_key: `${tenant}-${s}-${i}` } : {}),
        };
        await m.append({ session: `cc/session-${s}`, entries: [entry] });
      }
    }
  }
  store.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  store.close();
  return join(dir, "zerodb.sqlite");
}

/** Rowids the word index gives for a query in a tenant. */
function matches(path: string, tenant: string, query: string): number[] {
  const db = new Database(path, { readonly: true });
  try {
    const q = `{tenant}: ${tenantToken(tenant)} AND {body}: ${query}`;
    return (db.query("SELECT rowid FROM words WHERE words MATCH ? ORDER BY rowid").all(q) as { rowid: number }[]).map((r) => r.rowid);
  } finally {
    db.close();
  }
}

describe("store anatomy", () => {
  test("the parts are the whole file, and the tape's columns and record headers are its records' bytes", async () => {
    using dir = tempDir();
    // Vacuumed as the section measures it: no free pages, which dbstat does not list.
    const path = join(dir.path, "vacuumed.sqlite");
    variantCopy(await smallStore(dir.path), path, []);
    const all = parts(path);
    expect(all.reduce((n, p) => n + p.bytes, 0)).toBe(statSync(path).size);
    for (const p of all) expect(p.payload + p.unused).toBeLessThanOrEqual(p.bytes);
    const columns = new Map(tapeColumns(path).map((c) => [c.column, c.bytes]));
    const tape = all.find((p) => p.name === "tape")!;
    expect([...columns.values()].reduce((n, b) => n + b, 0)).toBe(tape.payload);
    // 240 rows: a 16-byte checksum each, every text's UTF-8 bytes, a header of a few bytes per record.
    const db = new Database(path, { readonly: true });
    const { rows, text } = db.query("SELECT count(*) AS rows, sum(length(CAST(text AS BLOB))) AS text FROM tape").get() as { rows: number; text: number };
    db.close();
    expect(rows).toBe(240);
    expect(columns.get("checksum")).toBe(16 * rows);
    expect(columns.get("text")).toBe(text);
    expect(columns.get("record headers")!).toBeGreaterThan(rows * 10);
    expect(columns.get("record headers")!).toBeLessThan(rows * 30);
  });

  test("a what-if copy drops what it names and takes a page size", async () => {
    using dir = tempDir();
    const path = await smallStore(dir.path);
    const copy = join(dir.path, "copy.sqlite");
    const without = variantCopy(path, copy, ["DROP INDEX tape_subject", "PRAGMA page_size = 16384"]);
    expect(without).toBe(statSync(copy).size);
    const db = new Database(copy, { readonly: true });
    expect((db.query("PRAGMA page_size").get() as { page_size: number }).page_size).toBe(16384);
    expect(db.query("SELECT 1 FROM sqlite_schema WHERE name = 'tape_subject'").get()).toBeNull();
    expect((db.query("SELECT count(*) AS n FROM tape").get() as { n: number }).n).toBe(240);
    db.close();
  });

  test("interned sessions name each turn's own tenant's session; key digests stay unique", async () => {
    using dir = tempDir();
    const path = await smallStore(dir.path);
    const db = new Database(path, { readonly: true });
    const before = db.query("SELECT lsn, tenant, subject FROM tape ORDER BY lsn").all();
    const keys = (db.query("SELECT count(*) AS n FROM tape WHERE idem_key IS NOT NULL").get() as { n: number }).n;
    db.close();
    const copy = join(dir.path, "copy.sqlite");
    variantCopy(path, copy, [...internSessions, (c) => digestKeys(c, idemDigest)]);
    const c = new Database(copy);
    const after = c.query("SELECT t.lsn, s.tenant, s.name AS subject FROM tape t JOIN sessions s ON s.id = t.sid ORDER BY t.lsn").all();
    expect(after).toEqual(before);
    expect((c.query("SELECT count(*) AS n FROM tape WHERE subject IS NOT NULL OR idem_key IS NOT NULL").get() as { n: number }).n).toBe(0);
    expect((c.query("SELECT count(DISTINCT idem_digest) AS n FROM tape").get() as { n: number }).n).toBe(keys);
    const some = c.query("SELECT idem_digest FROM tape WHERE idem_digest IS NOT NULL LIMIT 1").get() as { idem_digest: Uint8Array };
    expect(some.idem_digest.length).toBe(16);
    expect(() => c.query("UPDATE tape SET idem_digest = ? WHERE lsn = (SELECT max(lsn) FROM tape)").run(some.idem_digest)).toThrow(/UNIQUE/);
    c.close();
  });

  test("a compressed payload decompresses to the row's text and data; a static dictionary round-trips", async () => {
    using dir = tempDir();
    const path = await smallStore(dir.path);
    const db = new Database(path, { readonly: true });
    const before = db.query("SELECT lsn, text, data FROM tape ORDER BY lsn").all() as { lsn: number; text: string; data: string }[];
    db.close();
    const dict = staticDictionary();
    const copy = join(dir.path, "copy.sqlite");
    variantCopy(path, copy, [(c) => compressPayload(c, compressor(3, dict))]);
    const c = new Database(copy, { readonly: true });
    const after = c.query("SELECT lsn, text, data FROM tape ORDER BY lsn").all() as { lsn: number; text: null; data: Uint8Array }[];
    c.close();
    const unzip = decompressor(dict);
    const zstdMagic = (b: Uint8Array) => b[0] === 0x28 && b[1] === 0xb5 && b[2] === 0x2f && b[3] === 0xfd;
    expect(after.some((r) => zstdMagic(r.data))).toBe(true);
    for (const [i, r] of after.entries()) {
      expect(r.text).toBeNull();
      const raw = zstdMagic(r.data) ? unzip(Buffer.from(r.data)) : Buffer.from(r.data);
      expect(raw.toString("utf8")).toBe(`${before[i]!.text}\u0000${before[i]!.data}`);
    }
  });

  test("the word index rebuilt with detail=column finds the same rows for words, each tenant its own", async () => {
    using dir = tempDir();
    const path = await smallStore(dir.path);
    const copy = join(dir.path, "copy.sqlite");
    variantCopy(path, copy, [(c) => reindexWithDetail(c, "column", (r) => [indexText(r.text), tenantToken(r.tenant)])]);
    for (const tenant of ["local", "other"]) {
      for (const q of ["websocket", "reconnect", "session AND pool"]) {
        const found = matches(path, tenant, q);
        expect(found.length).toBeGreaterThan(0);
        expect(matches(copy, tenant, q)).toEqual(found);
      }
    }
    expect(matches(copy, "local", "other")).toEqual([]);
  });
});
