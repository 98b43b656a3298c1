import { resolve } from "node:path";
import { checkTenant } from "../../schema/common.ts";
import { ZeroDbError, invalid } from "../../errors.ts";
import { writeAtomic } from "../../util/atomic.ts";
import { zcommand } from "../command.ts";
import { withStore } from "../context.ts";
import { checkNewFile, outExists } from "../new-file.ts";

/** `zerodb backup --out FILE [--since EARLIER | --after LSN]`: a consistent snapshot of the live store, objects included, in one new file. */
export default zcommand({
  meta: {
    name: "backup",
    description:
      "Back up the store (records, objects, tokens, capture cursors; every tenant or --tenant's) into one new file while writers keep writing; --since an earlier backup for an increment",
  },
  args: {
    out: { type: "string", description: "the backup file to create (never overwritten)", valueHint: "file", required: true },
    since: { type: "string", description: "an increment: only what came after this earlier backup (full or increment) of this store", valueHint: "file" },
    after: { type: "string", description: "an increment: only the records after this LSN (--since finds it for you)", valueHint: "lsn" },
  },
  run: async (args) => {
    // Checked before the store opens: bad input touches nothing (I6).
    if (args.tenant !== undefined) checkTenant(String(args.tenant));
    const after = args.after === undefined ? undefined : Number(args.after);
    if (after !== undefined && (!Number.isSafeInteger(after) || after < 0)) throw invalid("after", "must be a whole number (an LSN)");
    if (after !== undefined && args.since !== undefined) throw invalid("since", "give --since or --after, not both");
    const out = resolve(String(args.out));
    checkNewFile(out, "backup");
    return withStore(args, async (store) => {
      if (!store.backup) {
        throw new ZeroDbError(
          "invalid_input",
          "backup works on the local SQLite store; back up a PostgreSQL store with pg_dump (its object bytes are in the database too)",
          {
            field: "database",
          },
        );
      }
      const { chunks, counts } = store.backup({
        ...(args.tenant !== undefined ? { tenant: String(args.tenant) } : {}),
        ...(after !== undefined ? { after } : {}),
        ...(args.since !== undefined ? { since: String(args.since) } : {}),
      });
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
  human: (r: { records: number; objects: number; tokens: number; cursors: number; after: number; last_lsn: number; bytes: number; out: string }) =>
    `backed up ${r.records} records${r.after > 0 ? ` after lsn ${r.after}` : ""}, ${r.objects} objects, ${r.tokens} tokens and ${r.cursors} capture cursors (last lsn ${r.last_lsn}, ${r.bytes} bytes) to ${r.out}`,
});
