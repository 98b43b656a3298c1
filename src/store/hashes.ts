/**
 * The identities every engine must compute alike, or a store moved between
 * engines (export, import, DESIGN.md 12) would break idempotency (I3): the
 * hash of each kind of write (what a retry with the same key is compared
 * with), a turn's content hash (repeats, D7), and what a forgotten row keeps
 * of its key; and a SQLite row's checksum and a turn's data column, which
 * capture sync's read-ahead worker computes off the committing thread.
 */
import { sha256 } from "../util/hash.ts";
import { canonicalJson } from "../util/json.ts";

/** The operation hash of a write: SHA-256 of its canonical JSON, `[kind, ...fields]`. */
export const opHash = {
  turn: (session: string, role: string, content: string, meta: Record<string, unknown> | undefined) =>
    sha256(canonicalJson(["turn", session, role, content, meta ?? {}])),
  fact: (key: string, value: unknown) => sha256(canonicalJson(["fact", key, value])),
  link: (url: string, title: string | null, note: string | null) => sha256(canonicalJson(["link", url, title, note])),
  object: (digest: string, type: string, name: string | null) => sha256(canonicalJson(["object", digest, type, name])),
};

/** A turn's content hash: the first 16 bytes of SHA-256 of its text (repeated content, D7). */
export function contentHash(content: string): Uint8Array {
  return sha256(content).subarray(0, 16);
}

/**
 * What a forgotten row keeps of its idempotency key: SHA-256 over a domain
 * tag, the tenant and the key, never the key itself (issue 14 item 4;
 * src/schema/tape.ts `idem_digest`). The key stays reserved (I3) because a
 * replay's key hashes to the same digest, while a key with enough entropy
 * (capture's `<harness session id>:...`, any UUID) cannot be read back from
 * it. A guessable key can still be confirmed by anyone holding the store or
 * an export, exactly as the store itself must
 * confirm it: no digest the store can check is safe from its holder, so keys
 * should not carry content. No per-store salt: it would have to travel in
 * every export for an import to keep I3, so whoever holds a copy holds the
 * salt too, and against guessing it adds nothing.
 */
export function idemDigest(tenant: string, idemKey: string): Uint8Array {
  return sha256(`zerodb forgotten idem_key\u0000${tenant}\u0000${idemKey}`);
}

/**
 * The checksum of a SQLite tape row's payload: 16 bytes of SHA-256 over the
 * store's id, subject, text and data (the id makes another store's rows fail
 * its check, src/store/sqlite/_tape.ts verifyRow).
 */
export function rowChecksum(storeId: string, row: { subject: string | null; text: string | null; data: string | null }): Uint8Array {
  return sha256(`${storeId}\u0000${row.subject ?? ""}\u0000${row.text ?? ""}\u0000${row.data ?? ""}`).subarray(0, 16);
}

/** A turn's data column: the JSON of its role and, when it has one, its meta. */
export function turnData(role: string, meta: Record<string, unknown> | undefined): string {
  return JSON.stringify(meta ? { role, meta } : { role });
}
