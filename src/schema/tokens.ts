/**
 * HTTP tokens (DESIGN.md section 2 and 6.1): the inputs of the token commands
 * and the shapes they answer with. The secret itself appears only in
 * NewToken, once, at creation.
 */
import { once } from "../util/once.ts";
import type { z } from "zod";
import { zod } from "./zod.ts";

/**
 * Builds the schemas once, on first use: a process that only opens a store
 * (a capture hook) never needs them.
 */
function build() {
  const s = zod();
  // Required on first use, not imported: common.ts builds its schemas as it loads (issue 32).
  const { Tenant } = require("./common.ts") as typeof import("./common.ts");
  /** A token id: what `token list` shows and `token revoke` takes. */
  const TokenId = s.string().regex(/^tok_[0-9a-f]{16}$/, "must be a token id such as tok_0123456789abcdef");

  /** token create: the tenant the token will authenticate. */
  const TokenCreateInput = s.strictObject({
    tenant: Tenant.describe("the tenant the token acts in"),
  });

  /** token revoke: by id. */
  const TokenRevokeInput = s.strictObject({
    id: TokenId.describe("the token's id, from `zerodb token list`"),
  });

  /** A token as listed: never the secret, never its digest. */
  const TokenInfo = s.object({
    id: s.string(),
    tenant: s.string(),
    created: s.string(),
    revoked: s.string().nullable(),
  });

  /** A new token: the only time the secret is shown. */
  const NewToken = TokenInfo.extend({ token: s.string() });

  /** token list's result. */
  const TokenListResult = s.object({ tokens: s.array(TokenInfo) });
  return { TokenId, TokenCreateInput, TokenRevokeInput, TokenInfo, NewToken, TokenListResult };
}

/** The token schemas: TokenId, TokenCreateInput, TokenRevokeInput, TokenInfo, NewToken, TokenListResult. */
export const tokenSchemas = once(build);

type Schemas = ReturnType<typeof build>;
export type TokenCreateInput = z.output<Schemas["TokenCreateInput"]>;
export type TokenRevokeInput = z.output<Schemas["TokenRevokeInput"]>;
export type TokenInfo = z.infer<Schemas["TokenInfo"]>;
export type NewToken = z.infer<Schemas["NewToken"]>;
export type TokenListResult = z.infer<Schemas["TokenListResult"]>;
