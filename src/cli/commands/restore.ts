import { ZeroDbError } from "../../errors.ts";
import { restoreStore } from "../../store/index.ts";
import { zcommand } from "../command.ts";
import { configFrom } from "../context.ts";

/** `zerodb restore FULL [INC...] --data-dir DIR`: rebuild a store from a backup and its increments into an empty or new dir, verified. */
export default zcommand({
  meta: {
    name: "restore",
    description: "Rebuild a store from a full backup and the increments after it (in order) into an empty or new --data-dir (verified before it appears)",
  },
  args: { file: { type: "positional", description: "the full backup, then its increments (backup --since), in order", required: true, variadic: true } },
  run: async (args) => {
    if (args["data-dir"] === undefined) {
      throw new ZeroDbError("invalid_input", "data-dir: give the empty or new dir to restore into (--data-dir DIR)", { field: "data_dir" });
    }
    const files = (args._ as string[] | undefined)?.length ? (args._ as string[]).map(String) : [String(args.file)];
    const config = configFrom(args);
    return restoreStore(files, config.dataDir);
  },
  human: (r: { records: number; objects: number; tokens: number; cursors: number; files: number; last_lsn: number; data_dir: string }) =>
    `restored ${r.records} records, ${r.objects} objects, ${r.tokens} tokens and ${r.cursors} capture cursors${
      r.files > 1 ? ` from ${r.files} files` : ""
    } (last lsn ${r.last_lsn}) into ${r.data_dir}`,
});
