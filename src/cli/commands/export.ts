import { resolve } from "node:path";
import { invalid } from "../../errors.ts";
import { checkTenant } from "../../schema/common.ts";
import { writeAtomic } from "../../util/atomic.ts";
import { checkNewFile, outExists } from "../new-file.ts";
import { zcommand } from "../command.ts";
import { withMemory, withStore } from "../context.ts";
import { AS_OF_ARG, asOfFlag } from "../as-of-flag.ts";
import { intFlag, stringFlag } from "../parse.ts";
import type { ReadableExport } from "../readable-export.ts";
import { ui } from "../log.ts";
import { writeOut } from "../stdout.ts";
import { databaseArg } from "../args.ts";

/** `zerodb export`: the tape as JSONL, to stdout or a new file. */
export default zcommand({
  meta: {
    name: "export",
    description:
      "Export the tape as JSONL (every tenant, or --tenant's; records only, object bytes go with `zerodb backup`), restorable with import; " +
      "--format markdown or json: sessions to read",
  },
  args: {
    ...databaseArg,
    out: { type: "string", description: "write to this new file (never overwritten) instead of stdout", valueHint: "file" },
    after: { type: "string", description: "only records after this LSN: an increment that import continues a copy with", valueHint: "lsn" },
    format: {
      type: "string",
      description: "jsonl (the tape, the default), markdown (sessions to read) or json (one session's turns)",
      valueHint: "jsonl|markdown|json",
    },
    session: { type: "string", description: "with --format markdown or json: this session", valueHint: "name" },
    "session-prefix": {
      type: "string",
      alias: ["prefix"],
      description: "with --format markdown: every session whose name starts with this",
      valueHint: "prefix",
    },
    "result-chars": { type: "string", description: "with --format markdown: characters of each tool result shown (default 2000, 0 for all)", valueHint: "n" },
    "as-of": AS_OF_ARG,
  },
  run: async (args) => {
    const format = stringFlag(args.format) ?? "jsonl";
    if (format !== "jsonl" && format !== "markdown" && format !== "json") throw invalid("format", "must be jsonl, markdown or json");
    if (format !== "jsonl") {
      const { checkReadable, runReadable } = await import("../readable-export.ts");
      if (args.after !== undefined) throw invalid("after", "is for the JSONL tape; --format markdown and json take --as-of");
      const readable: ReadableExport = {
        format,
        session: stringFlag(args.session),
        prefix: stringFlag(args["session-prefix"]),
        asOf: asOfFlag(args),
        resultChars: intFlag("result-chars", args["result-chars"]),
        out: stringFlag(args.out),
      };
      checkReadable(readable);
      if (readable.out !== undefined) checkNewFile(resolve(readable.out), "export");
      return withMemory(args, (m) => runReadable(m, readable));
    }
    for (const flag of ["session", "session-prefix", "result-chars", "as-of"] as const) {
      if (args[flag] !== undefined) throw invalid(flag, "needs --format markdown or json (the JSONL tape is whole: use --after for an increment)");
    }
    // A tenant that cannot exist is a typo to report, not an empty export (I6); checked before the store opens.
    if (args.tenant !== undefined) checkTenant(String(args.tenant));
    const after = args.after === undefined ? 0 : Number(args.after);
    if (!Number.isSafeInteger(after) || after < 0) throw invalid("after", "must be a whole number (an LSN)");
    if (args.out !== undefined) checkNewFile(resolve(String(args.out)), "export");
    return withStore(args, async (store) => {
      // The engine reads from after the LSN on (a range of the tape's key), not every earlier row.
      const all = store.exportTape({ ...(args.tenant !== undefined ? { tenant: String(args.tenant) } : {}), after });
      // Object bytes are not in an export (it stays plain JSONL text): `zerodb backup` carries them.
      let objectRefs = 0;
      const records = async function* () {
        for await (const r of all) {
          if (r.kind === "object" && !("forgotten_by" in r)) objectRefs++;
          yield r;
        }
      };
      let count = 0;
      if (args.out === undefined) {
        let buf = "";
        for await (const r of records()) {
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
        for await (const r of records()) {
          yield `${JSON.stringify(r)}\n`;
          count++;
          if (process.stderr.isTTY && count % 10000 === 0) ui.info(`exported ${count} records…`);
        }
      };
      try {
        await writeAtomic(out, lines(), { publish: "new" });
      } catch (err) {
        if ((err as { code?: string }).code === "EEXIST") throw outExists(out, "export");
        throw err;
      }
      // Said when it matters: the file names objects whose bytes it does not hold.
      return { records: count, out, ...(objectRefs > 0 ? { object_refs_without_bytes: objectRefs } : {}) };
    });
  },
  human: (r: { records?: number; sessions?: number; turns?: number; out: string; object_refs_without_bytes?: number }) =>
    r.records === undefined
      ? `exported ${r.turns} turns of ${r.sessions} session${r.sessions === 1 ? "" : "s"} to ${r.out}`
      : `exported ${r.records} records to ${r.out}${
          r.object_refs_without_bytes
            ? ` (${r.object_refs_without_bytes} object references: their bytes are not in an export; \`zerodb backup\` carries them)`
            : ""
        }`,
});
