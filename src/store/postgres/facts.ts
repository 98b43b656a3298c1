/** fact_set, fact_get, fact_list and link_add on the PostgreSQL tape (DESIGN.md sections 5 and 8). */
import { notFound } from "../../errors.ts";
import { PAGE_DEFAULT } from "../../limits.ts";
import type { FactGetInput, FactListInput, FactSetInput, LinkAddInput } from "../../schema/ops.ts";
import type { Fact, FactListResult, WriteResult } from "../../schema/results.ts";
import { BOOKKEEPING_FACTS, listsBookkeeping, prefixEnd } from "../ranges.ts";
import { type Q, insertRow, writeOnce } from "./_tape.ts";
import { opHash } from "../hashes.ts";
import { factPayload, linkPayload } from "../rows.ts";
import { decodeJson } from "./nul.ts";

/** Sets a fact: a new tape row, and the current pointer moves to it. */
export function factSet(sql: Q, tenant: string, input: FactSetInput): Promise<WriteResult> {
  const op = input.idem_key ? opHash.fact(input.key, input.value) : null;
  return writeOnce(sql, tenant, { key: input.idem_key, opHash: op }, async (tx, lsn) => {
    // The value is kept as JSON text inside the record, so a string, a number or null comes back exactly as given.
    await insertRow(tx, lsn, { tenant, ts: Date.now(), idemKey: input.idem_key ?? null, opHash: op, ...factPayload(input.key, input.value) });
    await tx`INSERT INTO facts (tenant, key, lsn) VALUES (${tenant}, ${input.key}, ${lsn}) ON CONFLICT (tenant, key) DO UPDATE SET lsn = excluded.lsn`;
  });
}

/** The current value of a fact; a missing key and a foreign one look the same (I5). */
export async function factGet(sql: Q, tenant: string, input: FactGetInput): Promise<Fact> {
  const [row] = await sql`SELECT f.key, f.lsn, t.data FROM facts f JOIN tape t ON t.lsn = f.lsn WHERE f.tenant = ${tenant} AND f.key = ${input.key}`;
  if (!row) throw notFound(`no fact with key ${JSON.stringify(input.key)}`, "key");
  return { key: row.key, value: decodeJson(row.data.value), lsn: Number(row.lsn) };
}

/** Current facts in key order (bytes), paged. */
export async function factList(sql: Q, tenant: string, input: FactListInput): Promise<FactListResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const prefix = input.prefix ?? "";
  const end = prefix ? prefixEnd(prefix) : null;
  // The bookkeeping facts' range, left out unless the prefix looks inside it ('' excludes nothing).
  const hideFrom = listsBookkeeping(input.prefix) ? "" : BOOKKEEPING_FACTS;
  const hideTo = listsBookkeeping(input.prefix) ? "" : prefixEnd(BOOKKEEPING_FACTS)!;
  const rows = await sql`SELECT f.key, f.lsn, t.data FROM facts f JOIN tape t ON t.lsn = f.lsn
    WHERE f.tenant = ${tenant} AND f.key >= ${prefix} AND (${end}::text IS NULL OR f.key < ${end}) AND f.key > ${input.after ?? ""}
      AND NOT (f.key >= ${hideFrom} AND f.key < ${hideTo})
    ORDER BY f.key LIMIT ${limit + 1}`;
  const facts = rows
    .slice(0, limit)
    .map((r: { key: string; lsn: string; data: { value: unknown } }) => ({ key: r.key, value: decodeJson(r.data.value), lsn: Number(r.lsn) }));
  return { facts, next: rows.length > limit ? facts[facts.length - 1]!.key : null };
}

/** Adds a link: a tape row whose title, note and URL are indexed for search (never fetched, D1). */
export function linkAdd(sql: Q, tenant: string, input: LinkAddInput): Promise<WriteResult> {
  const link = { url: input.url, title: input.title ?? null, note: input.note ?? null };
  const op = input.idem_key ? opHash.link(link.url, link.title, link.note) : null;
  return writeOnce(sql, tenant, { key: input.idem_key, opHash: op }, (tx, lsn) =>
    insertRow(tx, lsn, { tenant, ts: Date.now(), idemKey: input.idem_key ?? null, opHash: op, ...linkPayload(link) }),
  );
}
