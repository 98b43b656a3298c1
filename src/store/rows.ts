/**
 * What a tape row holds for each kind (DESIGN.md 6), the same on every
 * engine and for a live write and an import alike: its subject, bytes, text,
 * data and search class. An engine adds the row's place (LSN, tenant, time,
 * keys) and how it keeps `data` (PostgreSQL as jsonb, SQLite as JSON text:
 * src/store/sqlite/row-data.ts).
 */
import { SearchClass, turnClass } from "../search/search-class.ts";
import { contentHash } from "./hashes.ts";
import { lsnRanges } from "./ranges.ts";

/** A row's payload. */
export interface RowPayload {
  kind: "turn" | "fact" | "forget" | "link" | "object";
  subject: string | null;
  contentHash: Uint8Array | null;
  bytes: number;
  text: string | null;
  data: Record<string, unknown> | null;
  sclass: SearchClass;
}

/** What a forget row's data says: how many records it hid, and their LSNs as ranges. */
export interface ForgetData {
  hidden: number;
  lsns: [number, number][];
}

/** The data of the forget that hid these LSNs (sorted). */
export function forgetData(sorted: readonly number[]): ForgetData {
  return { hidden: sorted.length, lsns: lsnRanges(sorted) };
}

/** The text a link is found by: its title, note and URL. */
export function linkText(link: { url: string; title?: string | null; note?: string | null }): string {
  return [link.title, link.note, link.url].filter((s) => s).join("\n");
}

/** A row with no payload: what a forgotten record keeps. */
export const NO_PAYLOAD = { subject: null, contentHash: null, bytes: 0, text: null, data: null, sclass: SearchClass.note } as const;

/** A turn of a session: its content is the text searched, its role and meta the data. */
export function turnPayload(session: string, entry: { role: string; content: string; meta?: Record<string, unknown> | undefined }): RowPayload {
  return {
    kind: "turn",
    subject: session,
    contentHash: contentHash(entry.content),
    bytes: Buffer.byteLength(entry.content, "utf8"),
    text: entry.content,
    data: entry.meta ? { role: entry.role, meta: entry.meta } : { role: entry.role },
    sclass: turnClass(entry.role, entry.meta),
  };
}

/** A fact's value under its key; its bytes are its JSON's. */
export function factPayload(key: string, value: unknown): RowPayload {
  return { ...NO_PAYLOAD, kind: "fact", subject: key, bytes: Buffer.byteLength(JSON.stringify(value), "utf8"), data: { value } };
}

/** A link: searched by its title, note and URL (never fetched, D1). */
export function linkPayload(link: { url: string; title: string | null; note: string | null }): RowPayload {
  const text = linkText(link);
  return {
    ...NO_PAYLOAD,
    kind: "link",
    bytes: Buffer.byteLength(text, "utf8"),
    text,
    data: { url: link.url, title: link.title, note: link.note },
    sclass: SearchClass.link,
  };
}

/** An object's row: its digest is the subject, its size the bytes. */
export function objectPayload(digest: string, meta: { size: number; type: string; name: string | null }): RowPayload {
  return { ...NO_PAYLOAD, kind: "object", subject: digest, bytes: meta.size, data: { size: meta.size, type: meta.type, name: meta.name } };
}

/** A forget's row, from the sorted LSNs it hid. */
export function forgetPayload(sorted: readonly number[]): RowPayload {
  return { ...NO_PAYLOAD, kind: "forget", data: { ...forgetData(sorted) } };
}
