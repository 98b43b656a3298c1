import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ZeroDbError } from "../../errors.ts";
import { checkTenant } from "../../schema/common.ts";
import type { NewToken } from "../../schema/tokens.ts";
import { fileNameProblem, writeFileAtomic } from "../../util/atomic.ts";
import { zcommand } from "../command.ts";
import { withStore } from "../context.ts";
import { ui } from "../log.ts";
import { UsageError } from "../parse.ts";
import { lexists } from "../../util/fs.ts";
import { databaseArg } from "../args.ts";

/** `zerodb token create --tenant T [--out FILE]`: a new token, shown once. */
export default zcommand({
  meta: { name: "token create", description: "Create a token for a tenant; it is shown once (or written to a new file, 0600)" },
  args: {
    ...databaseArg,
    out: { type: "string", description: "write the token to this new file (mode 0600, never overwritten) instead of printing it", valueHint: "file" },
  },
  async run(args) {
    if (args.tenant === undefined) throw new UsageError("--tenant is required: the tenant the token acts in", "tenant");
    // Checked before the store is opened: bad input never touches disk (I6).
    checkTenant(String(args.tenant));
    const out = args.out === undefined ? undefined : resolve(String(args.out));
    // Checked before the token exists, so a refused --out leaves no token behind.
    if (out !== undefined) {
      // lstat, not exists: a dangling symlink is there too, and the exclusive link below would refuse it.
      if (lexists(out)) throw new ZeroDbError("conflict", `${out} exists; a token file is never overwritten`, { field: "out" });
      if (!existsSync(dirname(out))) throw new ZeroDbError("invalid_input", `out: the directory ${dirname(out)} does not exist`, { field: "out" });
      const problem = fileNameProblem(out);
      if (problem) throw new ZeroDbError("invalid_input", `out: ${problem}`, { field: "out" });
    }
    return withStore(args, async (store) => {
      const created = await store.tokens.create({ tenant: String(args.tenant) });
      if (out === undefined) return created;
      try {
        writeFileAtomic(out, `${created.token}\n`, { mode: 0o600, exclusive: true });
      } catch (err) {
        // The secret never reached the file: the token must not outlive it.
        await store.tokens.revoke({ id: created.id });
        if ((err as { code?: string }).code === "EEXIST")
          throw new ZeroDbError("conflict", `${out} exists; a token file is never overwritten`, { field: "out" });
        throw err;
      }
      const { token: _secret, ...info } = created;
      return { ...info, out };
    });
  },
  human: (r: NewToken | (Omit<NewToken, "token"> & { out: string })) => {
    if ("out" in r) return `token ${r.id} for tenant ${r.tenant} written to ${r.out}`;
    ui.warn(`token ${r.id} for tenant ${r.tenant}: it is shown only this once; store it now`);
    return r.token;
  },
});
