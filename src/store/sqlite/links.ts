/** link_add and link_list on the SQLite tape (DESIGN.md sections 5 and 8): a URL reference, never fetched (D1). */
import type { Database } from "bun:sqlite";
import { PAGE_DEFAULT } from "../../limits.ts";
import type { LinkAddInput, LinkListInput } from "../../schema/ops.ts";
import type { LinkListResult, WriteResult } from "../../schema/results.ts";
import { pageTake } from "../history-page.ts";
import { insertRow, isoTime, verifyRow, writeOnce } from "./_tape.ts";
import { linkPayload } from "../rows.ts";
import { sqlitePayload } from "./row-data.ts";
import { opHash } from "../hashes.ts";

/** Adds a link: a tape row whose title, note and URL are indexed for search. */
export function linkAdd(db: Database, tenant: string, input: LinkAddInput): WriteResult {
  const link = { url: input.url, title: input.title ?? null, note: input.note ?? null };
  const op = input.idem_key ? opHash.link(link.url, link.title, link.note) : null;
  return writeOnce(db, tenant, { key: input.idem_key, opHash: op }, () =>
    insertRow(db, { tenant, ts: Date.now(), idemKey: input.idem_key ?? null, opHash: op, ...sqlitePayload(linkPayload(link)) }),
  );
}

interface LinkRow {
  lsn: number;
  ts: number;
  subject: string | null;
  text: string | null;
  data: string;
  checksum: Uint8Array | null;
}

/**
 * The tenant's live links, newest first, before an LSN; with `prefix`, only
 * URLs that start with it. A link row has no subject, so the tape_subject
 * index (tenant, 'link', NULL, lsn) walks them newest first; both statements
 * run in one read transaction (one snapshot, I4). The prefix is compared as
 * UTF-8 bytes: SQLite's length() and substr() of text stop at a NUL
 * (https://sqlite.org/lang_corefunc.html#length), a blob's do not.
 */
export function linkList(db: Database, tenant: string, input: LinkListInput): LinkListResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const where = `tenant = ? AND kind = 'link' AND subject IS NULL AND forgotten_by IS NULL AND lsn < ?
    AND (? IS NULL OR substr(CAST(json_extract(data, '$.url') AS BLOB), 1, length(CAST(? AS BLOB))) = CAST(? AS BLOB))`;
  const params = [tenant, input.before ?? Number.MAX_SAFE_INTEGER, input.prefix ?? null, input.prefix ?? null, input.prefix ?? null];
  return db
    .transaction((): LinkListResult => {
      const sizes = db.query(`SELECT lsn, bytes FROM tape WHERE ${where} ORDER BY lsn DESC LIMIT ?`).all(...params, limit + 1) as {
        lsn: number;
        bytes: number;
      }[];
      const take = pageTake(
        sizes.map((s) => s.bytes),
        limit,
      );
      if (take === 0) return { links: [], next: null };
      const rows = db
        .query(`SELECT lsn, ts, subject, text, data, checksum FROM tape WHERE ${where} AND lsn >= ? ORDER BY lsn DESC`)
        .all(...params, sizes[take - 1]!.lsn) as LinkRow[];
      const links = rows.map((r) => {
        const d = JSON.parse(verifyRow(db, r).data) as { url: string; title: string | null; note: string | null };
        return { lsn: r.lsn, url: d.url, title: d.title ?? null, note: d.note ?? null, ts: isoTime(r.ts) };
      });
      return { links, next: take < sizes.length ? links[links.length - 1]!.lsn : null };
    })
    .deferred();
}
