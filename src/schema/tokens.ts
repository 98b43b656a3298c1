/**
 * HTTP tokens (DESIGN.md section 2 and 6.1): the inputs of the token commands
 * and the shapes they answer with. The secret itself appears only in
 * NewToken, once, at creation.
 */
import { z } from "zod";
import { Tenant } from "./common.ts";

/** A token id: what `token list` shows and `token revoke` takes. */
export const TokenId = z.string().regex(/^tok_[0-9a-f]{16}$/, "must be a token id such as tok_0123456789abcdef");

/** token create: the tenant the token will authenticate. */
export const TokenCreateInput = z.strictObject({
  tenant: Tenant.describe("the tenant the token acts in"),
});

/** token revoke: by id. */
export const TokenRevokeInput = z.strictObject({
  id: TokenId.describe("the token's id, from `zerodb token list`"),
});

/** A token as listed: never the secret, never its digest. */
export const TokenInfo = z.object({
  id: z.string(),
  tenant: z.string(),
  created: z.string(),
  revoked: z.string().nullable(),
});

/** A new token: the only time the secret is shown. */
export const NewToken = TokenInfo.extend({ token: z.string() });

/** token list's result. */
export const TokenListResult = z.object({ tokens: z.array(TokenInfo) });

export type TokenCreateInput = z.output<typeof TokenCreateInput>;
export type TokenRevokeInput = z.output<typeof TokenRevokeInput>;
export type TokenInfo = z.infer<typeof TokenInfo>;
export type NewToken = z.infer<typeof NewToken>;
export type TokenListResult = z.infer<typeof TokenListResult>;
