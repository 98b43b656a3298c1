/**
 * A store's lineage (issue 20). A restore makes an equal store, and an equal
 * store keeps its source's id: its backups and the source's older ones are
 * one chain. But both may be written afterwards, and then the same LSN names
 * different records in each. So a restore adds a fork, `[copy id, first LSN
 * the copy writes]`, to the lineage the source had; backups carry it, and an
 * increment continues a chain only when both agree on who wrote every LSN up
 * to where it starts. A store never restored has the lineage `[[its id, 1]]`,
 * kept implicitly (nothing is written until a restore).
 */
import type { Database } from "bun:sqlite";
import { ZeroDbError } from "../../../errors.ts";
import { type Lineage, backupSchemas } from "../../../schema/backup.ts";
import { storeIdOf } from "../identity.ts";

/** The lineage of the store a handle belongs to. */
export function lineageOf(db: Database): Lineage {
  const row = db.query("SELECT value FROM meta WHERE key = 'lineage'").get() as { value: string } | null;
  if (!row) return [[storeIdOf(db), 1]];
  const schema = backupSchemas().Lineage;
  let parsed: ReturnType<typeof schema.safeParse> | undefined;
  try {
    parsed = schema.safeParse(JSON.parse(row.value));
  } catch {}
  if (!parsed?.success) throw new ZeroDbError("corrupt", "the store's lineage (meta 'lineage') is damaged: run `zerodb doctor`");
  return parsed.data;
}

/** The forks that wrote LSNs up to `lsn`. */
export function lineageUpTo(lineage: Lineage, lsn: number): Lineage {
  return lineage.filter(([, from]) => from <= lsn);
}

/** True when two lineages agree on which copy wrote every LSN up to `lsn`. */
export function sameHistory(a: Lineage, b: Lineage, lsn: number): boolean {
  return JSON.stringify(lineageUpTo(a, lsn)) === JSON.stringify(lineageUpTo(b, lsn));
}

/** The lineage of a copy restored at `last`: the source's history to there, then a new fork. */
export function forkAt(lineage: Lineage, last: number): Lineage {
  const copy = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
  return [...lineageUpTo(lineage, last), [copy, last + 1]];
}

/** Records a store's lineage (a restore, in its own transaction). */
export function saveLineage(db: Database, lineage: Lineage): void {
  db.query("INSERT INTO meta (key, value) VALUES ('lineage', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(JSON.stringify(lineage));
}
