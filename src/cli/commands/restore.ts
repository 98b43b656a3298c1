import { ZeroDbError } from "../../errors.ts";
import { restoreStore } from "../../store/index.ts";
import { zcommand } from "../command.ts";
import { configFrom } from "../context.ts";

/** `zerodb restore FILE --data-dir DIR`: rebuild a store from a backup into an empty or new dir, verified. */
export default zcommand({
  meta: { name: "restore", description: "Rebuild a store from a backup file into an empty or new --data-dir (verified before it appears)" },
  args: { file: { type: "positional", description: "the backup file", required: true } },
  run: async (args) => {
    if (args["data-dir"] === undefined) {
      throw new ZeroDbError("invalid_input", "data-dir: give the empty or new dir to restore into (--data-dir DIR)", { field: "data_dir" });
    }
    const config = configFrom(args);
    return restoreStore(String(args.file), config.dataDir);
  },
  human: (r: { records: number; objects: number; last_lsn: number; data_dir: string }) =>
    `restored ${r.records} records and ${r.objects} objects (last lsn ${r.last_lsn}) into ${r.data_dir}`,
});
