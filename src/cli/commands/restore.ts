import { ensureHome } from "../../config.ts";
import { ZeroDbError } from "../../errors.ts";
import { restoreStore } from "../../store/index.ts";
import { databaseArg } from "../args.ts";
import { zcommand } from "../command.ts";
import { configFrom } from "../context.ts";
import { UsageError } from "../parse.ts";

/**
 * `zerodb restore FULL [INC...] --data-dir DIR | --database URL`: rebuild a
 * store from a backup and its increments into an empty or new dir, or into
 * an empty PostgreSQL database (a laptop's store onto a team server), verified.
 */
export default zcommand({
  meta: {
    name: "restore",
    description:
      "Rebuild a store from a full backup and the increments after it (in order) into an empty or new --data-dir, or an empty --database (verified before it appears)",
  },
  args: {
    file: { type: "positional", description: "the full backup, then its increments (backup --since), in order", required: true, variadic: true },
    ...databaseArg,
  },
  run: async (args) => {
    const files = (args._ as string[] | undefined)?.length ? (args._ as string[]).map(String) : [String(args.file)];
    const config = configFrom(args);
    if (args["data-dir"] !== undefined && args.database !== undefined) throw new UsageError("give --data-dir or --database, not both", "database");
    // An explicit --data-dir wins over a database from the environment or config; --database names the target itself.
    if (args["data-dir"] !== undefined) return restoreStore(files, { dataDir: config.dataDir });
    if (config.database !== undefined) {
      // The scratch store is rebuilt in the home (created 0700 like every command's), not in a shared temp dir.
      ensureHome(config);
      return restoreStore(files, { database: config.database, scratch: config.home, maxObjectBytes: config.maxObjectBytes });
    }
    throw new ZeroDbError("invalid_input", "data-dir: give the empty or new dir to restore into (--data-dir DIR), or an empty database (--database URL)", {
      field: "data_dir",
    });
  },
  human: (r: { records: number; objects: number; tokens: number; cursors: number; files: number; last_lsn: number; data_dir: string }) =>
    `restored ${r.records} records, ${r.objects} objects, ${r.tokens} tokens and ${r.cursors} capture cursors${
      r.files > 1 ? ` from ${r.files} files` : ""
    } (last lsn ${r.last_lsn}) into ${r.data_dir}`,
});
