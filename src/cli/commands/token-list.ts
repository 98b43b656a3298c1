import type { TokenListResult } from "../../schema/tokens.ts";
import { zcommand } from "../command.ts";
import { withStore } from "../context.ts";
import { databaseArg } from "../args.ts";

/** `zerodb token list`: every token of the store, without secrets. */
export default zcommand({
  meta: { name: "token list", description: "List tokens (ids, tenants, when created and revoked; never the secrets)" },
  args: { ...databaseArg },
  run: (args) => withStore(args, (store) => store.tokens.list()),
  human: (r: TokenListResult) =>
    r.tokens.length === 0
      ? "(no tokens)"
      : r.tokens.map((t) => `${t.id}  ${t.tenant}  created ${t.created}${t.revoked ? `  revoked ${t.revoked}` : ""}`).join("\n"),
});
