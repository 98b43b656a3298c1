import { lstatSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ZeroDbError, invalid } from "../../errors.ts";
import { checkTenant } from "../../schema/common.ts";
import { fileNameProblem, writeAtomic } from "../../util/atomic.ts";
import { zcommand } from "../command.ts";
import { withStore } from "../context.ts";
import { ui } from "../log.ts";
import { writeOut } from "../output.ts";

/** The conflict for an --out that exists. */
function outExists(out: string): ZeroDbError {
  return new ZeroDbError("conflict", `${out} exists; export never overwrites a file`, { field: "out" });
}

/**
 * Refuses an --out that exists (a dangling symlink included: link() would
 * refuse it later anyway) or whose directory does not, before the store is
 * opened, so the refusal is clear and touches nothing (I6).
 */
function checkNewFile(out: string): void {
  let exists = true;
  try {
    lstatSync(out);
  } catch {
    exists = false;
  }
  if (exists) throw outExists(out);
  const problem = fileNameProblem(out);
  if (problem) throw invalid("out", problem);
  let dir;
  try {
    dir = statSync(dirname(out));
  } catch {
    dir = undefined;
  }
  if (!dir?.isDirectory()) throw new ZeroDbError("invalid_input", `out: the directory ${dirname(out)} does not exist`, { field: "out" });
}

/** `zerodb export`: the tape as JSONL, to stdout or a new file. */
export default zcommand({
  meta: { name: "export", description: "Export the tape as JSONL (every tenant, or --tenant's), restorable with import" },
  args: { out: { type: "string", description: "write to this new file (never overwritten) instead of stdout", valueHint: "file" } },
  run: async (args) => {
    // A tenant that cannot exist is a typo to report, not an empty export (I6); checked before the store opens.
    if (args.tenant !== undefined) checkTenant(String(args.tenant));
    if (args.out !== undefined) checkNewFile(resolve(String(args.out)));
    return withStore(args, async (store) => {
      const records = store.exportTape(args.tenant !== undefined ? { tenant: String(args.tenant) } : {});
      let count = 0;
      if (args.out === undefined) {
        let buf = "";
        for await (const r of records) {
          buf += `${JSON.stringify(r)}\n`;
          count++;
          if (buf.length > 1 << 20) {
            await writeOut(buf);
            buf = "";
          }
        }
        if (buf) await writeOut(buf);
        return undefined;
      }
      const out = resolve(String(args.out));
      // Streamed into a temp file and linked into place: --out is never overwritten, nor left half written.
      const lines = async function* () {
        for await (const r of records) {
          yield `${JSON.stringify(r)}\n`;
          count++;
          if (process.stderr.isTTY && count % 10000 === 0) ui.info(`exported ${count} records…`);
        }
      };
      try {
        await writeAtomic(out, lines(), { publish: "new" });
      } catch (err) {
        if ((err as { code?: string }).code === "EEXIST") throw outExists(out);
        throw err;
      }
      return { records: count, out };
    });
  },
  human: (r: { records: number; out: string }) => `exported ${r.records} records to ${r.out}`,
});
