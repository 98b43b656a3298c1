import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { ZeroDbError } from "../../errors.ts";
import { zcommand } from "../command.ts";
import { withStore } from "../context.ts";

/** `zerodb import FILE`: restore an export into an empty store, keeping LSNs. */
export default zcommand({
  meta: { name: "import", description: "Import a JSONL export into an empty store (same records, same LSNs)" },
  args: { file: { type: "positional", description: "the export file ('-' for stdin)", required: true } },
  run: (args) =>
    withStore(args, async (store) => {
      const file = String(args.file);
      const input = file === "-" ? process.stdin : createReadStream(file);
      const lines = createInterface({ input, crlfDelay: Infinity });
      async function* records() {
        let n = 0;
        try {
          for await (const line of lines) {
            n++;
            if (line.trim() === "") continue;
            try {
              yield JSON.parse(line) as unknown;
            } catch {
              throw new ZeroDbError("invalid_input", `line ${n}: not valid JSON`, { field: `line ${n}` });
            }
          }
        } catch (err) {
          if ((err as { code?: string }).code === "ENOENT") throw new ZeroDbError("not_found", `no such file: ${file}`, { field: "file" });
          throw err;
        }
      }
      return store.importTape(records());
    }),
  human: (r: { records: number; last_lsn: number }) => `imported ${r.records} records (last lsn ${r.last_lsn})`,
});
