import type { TokenInfo } from "../../schema/tokens.ts";
import { zcommand } from "../command.ts";
import { withStore } from "../context.ts";

/** `zerodb token revoke ID`: the token stops working at once, in every running server. */
export default zcommand({
  meta: { name: "token revoke", description: "Revoke a token by id; it stops working at once" },
  args: { id: { type: "positional", description: "the token's id (from token list)", required: true } },
  run: (args) => withStore(args, (store) => store.tokens.revoke({ id: String(args.id) })),
  human: (r: TokenInfo) => `revoked ${r.id} (tenant ${r.tenant}) at ${r.revoked}`,
});
