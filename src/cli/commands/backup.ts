import { resolve } from "node:path";
import { checkTenant } from "../../schema/common.ts";
import { ZeroDbError } from "../../errors.ts";
import { writeAtomic } from "../../util/atomic.ts";
import { zcommand } from "../command.ts";
import { withStore } from "../context.ts";
import { checkNewFile, outExists } from "../new-file.ts";

/** `zerodb backup --out FILE`: a consistent snapshot of the live store, objects included, in one new file. */
export default zcommand({
  meta: { name: "backup", description: "Back up the store (records and objects, every tenant or --tenant's) into one new file while writers keep writing" },
  args: { out: { type: "string", description: "the backup file to create (never overwritten)", valueHint: "file", required: true } },
  run: async (args) => {
    // Checked before the store opens: bad input touches nothing (I6).
    if (args.tenant !== undefined) checkTenant(String(args.tenant));
    const out = resolve(String(args.out));
    checkNewFile(out, "backup");
    return withStore(args, async (store) => {
      if (!store.backup) {
        throw new ZeroDbError("invalid_input", "backup works on the local SQLite store; back up a PostgreSQL store with pg_dump and its data dir's objects", {
          field: "database",
        });
      }
      const { chunks, counts } = store.backup(args.tenant !== undefined ? { tenant: String(args.tenant) } : {});
      let bytes: number;
      try {
        // Temp file, fsync, link: the file appears whole (mode 0600) or not at all.
        bytes = await writeAtomic(out, chunks, { publish: "new", mode: 0o600 });
      } catch (err) {
        if ((err as { code?: string }).code === "EEXIST") throw outExists(out, "backup");
        throw err;
      }
      return { ...counts, bytes, out };
    });
  },
  human: (r: { records: number; objects: number; last_lsn: number; bytes: number; out: string }) =>
    `backed up ${r.records} records and ${r.objects} objects (last lsn ${r.last_lsn}, ${r.bytes} bytes) to ${r.out}`,
});
