import { parseInput } from "../../schema/parse.ts";
import { type TokenInfo, tokenSchemas } from "../../schema/tokens.ts";
import { zcommand } from "../command.ts";
import { withStore } from "../context.ts";
import { databaseArg } from "../args.ts";

/** `zerodb token revoke ID`: the token stops working at once, in every running server. */
export default zcommand({
  meta: { name: "token revoke", description: "Revoke a token by id; it stops working at once" },
  args: { ...databaseArg, id: { type: "positional", description: "the token's id (from token list)", required: true } },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6).
    const input = parseInput(tokenSchemas().TokenRevokeInput, { id: String(args.id) });
    return withStore(args, (store) => store.tokens.revoke(input));
  },
  human: (r: TokenInfo) => `revoked ${r.id} (tenant ${r.tenant}) at ${r.revoked}`,
});
