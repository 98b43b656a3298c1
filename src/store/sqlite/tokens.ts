/**
 * HTTP tokens on the SQLite store (DESIGN.md section 2, 6.1): a token is 32
 * random bytes shown once; the store keeps only its SHA-256 digest, so a
 * copy of the database file authenticates nobody.
 */
import type { Database } from "bun:sqlite";
import { notFound } from "../../errors.ts";
import { parseInput } from "../../schema/parse.ts";
import { type NewToken, type TokenInfo, tokenSchemas } from "../../schema/tokens.ts";
import type { Tokens } from "../types.ts";
import { sha256 } from "../../util/hash.ts";
import { isoTime } from "./_tape.ts";

/** Every token starts with this, so a leaked one is recognizable (secret scanners, logs). */
export const TOKEN_PREFIX = "zdb_";

/** The shape of a token: the prefix and 32 bytes of base64url. */
const TOKEN_RE = /^zdb_[A-Za-z0-9_-]{43}$/;

interface Row {
  digest: Uint8Array;
  id: string;
  tenant: string;
  created: number;
  revoked: number | null;
}

function info(row: Omit<Row, "digest">): TokenInfo {
  return { id: row.id, tenant: row.tenant, created: isoTime(row.created), revoked: row.revoked === null ? null : isoTime(row.revoked) };
}

function random(bytes: number): Buffer {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** What the store hands the token module: its runner (closed check, error mapping). */
export interface TokenDeps {
  run: <T>(fn: () => T) => Promise<T>;
}

/** The token operations of one SQLite store. */
export function sqliteTokens(db: Database, deps: TokenDeps): Tokens {
  const guard = deps.run;
  return {
    create: (input) =>
      guard((): NewToken => {
        const { tenant } = parseInput(tokenSchemas().TokenCreateInput, input);
        const token = `${TOKEN_PREFIX}${random(32).toString("base64url")}`;
        const row = { id: `tok_${random(8).toString("hex")}`, tenant, created: Date.now(), revoked: null };
        db.query("INSERT INTO tokens (digest, id, tenant, created) VALUES (?, ?, ?, ?)").run(sha256(token), row.id, tenant, row.created);
        return { ...info(row), token };
      }),
    list: () =>
      guard(() => {
        const rows = db.query("SELECT id, tenant, created, revoked FROM tokens ORDER BY created, id").all() as Omit<Row, "digest">[];
        return { tokens: rows.map(info) };
      }),
    revoke: (input) =>
      guard((): TokenInfo => {
        const { id } = parseInput(tokenSchemas().TokenRevokeInput, input);
        return db
          .transaction(() => {
            // Revoking twice keeps the first time: the answer says when it stopped working.
            db.query("UPDATE tokens SET revoked = ? WHERE id = ? AND revoked IS NULL").run(Date.now(), id);
            const row = db.query("SELECT id, tenant, created, revoked FROM tokens WHERE id = ?").get(id) as Omit<Row, "digest"> | null;
            if (!row) throw notFound(`no token with id ${id}`, "id");
            return info(row);
          })
          .immediate();
      }),
    verify: (token) =>
      guard((): string | undefined => {
        if (typeof token !== "string" || !TOKEN_RE.test(token)) return undefined;
        const digest = sha256(token);
        // The lookup is keyed by the digest, whose bytes an attacker cannot
        // steer without the token; the comparison itself is constant-time so
        // not even the stored digest leaks through timing (DESIGN.md 6.1).
        const row = db.query("SELECT digest, tenant, revoked FROM tokens WHERE digest = ?").get(digest) as Pick<Row, "digest" | "tenant" | "revoked"> | null;
        if (!row) return undefined;
        const stored = Buffer.from(row.digest);
        // node:crypto is fetched here, not imported: loading it costs every process that opens a store ~2 ms, a capture hook's included.
        const { timingSafeEqual } = process.getBuiltinModule("node:crypto");
        if (stored.length !== digest.length || !timingSafeEqual(stored, digest)) return undefined;
        return row.revoked === null ? row.tenant : undefined;
      }),
  };
}
