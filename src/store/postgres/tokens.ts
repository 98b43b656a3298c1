/**
 * HTTP tokens in PostgreSQL (DESIGN.md 2, 6.1): 32 random bytes shown once,
 * only the SHA-256 digest kept, so a copy of the database authenticates nobody.
 */
import { timingSafeEqual } from "node:crypto";
import { notFound } from "../../errors.ts";
import { parseInput } from "../../schema/parse.ts";
import { type NewToken, type TokenInfo, tokenSchemas } from "../../schema/tokens.ts";
import { sha256 } from "../../util/hash.ts";
import type { Tokens } from "../types.ts";
import { type Q, isoTime } from "./_tape.ts";

/** The shape of a token, as the SQLite engine makes them: the prefix and 32 bytes of base64url. */
const TOKEN_RE = /^zdb_[A-Za-z0-9_-]{43}$/;

function info(row: { id: string; tenant: string; created: string | number; revoked: string | number | null }): TokenInfo {
  return { id: row.id, tenant: row.tenant, created: isoTime(row.created), revoked: row.revoked === null ? null : isoTime(row.revoked) };
}

function random(bytes: number): Buffer {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The token operations of one PostgreSQL store; `run` is the store's runner (closed check, error mapping). */
export function pgTokens(sql: Q, run: <T>(fn: () => Promise<T>) => Promise<T>): Tokens {
  return {
    create: (input) =>
      run(async (): Promise<NewToken> => {
        const { tenant } = parseInput(tokenSchemas().TokenCreateInput, input);
        const token = `zdb_${random(32).toString("base64url")}`;
        const row = { id: `tok_${random(8).toString("hex")}`, tenant, created: Date.now(), revoked: null };
        await sql`INSERT INTO tokens (digest, id, tenant, created) VALUES (${Buffer.from(sha256(token))}, ${row.id}, ${tenant}, ${row.created})`;
        return { ...info(row), token };
      }),
    list: () =>
      run(async () => {
        const rows = await sql`SELECT id, tenant, created, revoked FROM tokens ORDER BY created, id`;
        return { tokens: rows.map(info) };
      }),
    revoke: (input) =>
      run(async (): Promise<TokenInfo> => {
        const { id } = parseInput(tokenSchemas().TokenRevokeInput, input);
        // Revoking twice keeps the first time: the answer says when it stopped working.
        await sql`UPDATE tokens SET revoked = ${Date.now()} WHERE id = ${id} AND revoked IS NULL`;
        const [row] = await sql`SELECT id, tenant, created, revoked FROM tokens WHERE id = ${id}`;
        if (!row) throw notFound(`no token with id ${id}`, "id");
        return info(row);
      }),
    verify: (token) =>
      run(async (): Promise<string | undefined> => {
        if (typeof token !== "string" || !TOKEN_RE.test(token)) return undefined;
        const digest = Buffer.from(sha256(token));
        const [row] = await sql`SELECT digest, tenant, revoked FROM tokens WHERE digest = ${digest}`;
        if (!row) return undefined;
        const stored = Buffer.from(row.digest);
        if (stored.length !== digest.length || !timingSafeEqual(stored, digest)) return undefined;
        return row.revoked === null ? row.tenant : undefined;
      }),
  };
}
