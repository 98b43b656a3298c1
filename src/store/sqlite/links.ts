/** link_add on the SQLite tape (DESIGN.md sections 5 and 8): a URL reference, never fetched (D1). */
import type { Database } from "bun:sqlite";
import type { LinkAddInput } from "../../schema/ops.ts";
import type { WriteResult } from "../../schema/results.ts";
import { insertRow, writeOnce } from "./_tape.ts";
import { linkText } from "./transfer.ts";
import { opHash } from "../hashes.ts";

/** Adds a link: a tape row whose title, note and URL are indexed for search. */
export function linkAdd(db: Database, tenant: string, input: LinkAddInput): WriteResult {
  const data = { url: input.url, title: input.title ?? null, note: input.note ?? null };
  const text = linkText(data);
  const op = input.idem_key ? opHash.link(data.url, data.title, data.note) : null;
  return writeOnce(db, tenant, { key: input.idem_key, opHash: op }, () =>
    insertRow(db, {
      tenant,
      kind: "link",
      ts: Date.now(),
      subject: null,
      idemKey: input.idem_key ?? null,
      opHash: op,
      contentHash: null,
      bytes: Buffer.byteLength(text, "utf8"),
      text,
      data: JSON.stringify(data),
    }),
  );
}
