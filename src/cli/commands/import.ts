import { closeSync, createReadStream, fstatSync, openSync } from "node:fs";
import { ZeroDbError } from "../../errors.ts";
import { zcommand } from "../command.ts";
import { hintIfTerminal } from "../stdin.ts";
import { withStore } from "../context.ts";
import { databaseArg } from "../args.ts";

/** Splits a byte stream into lines, decoding each as strict UTF-8. */
async function* utf8Lines(stream: AsyncIterable<Uint8Array>): AsyncGenerator<{ n: number; line: string }> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let pending = new Uint8Array(0);
  let n = 0;
  const decode = (bytes: Uint8Array) => {
    n++;
    try {
      return { n, line: decoder.decode(bytes) };
    } catch {
      throw new ZeroDbError("invalid_input", `line ${n}: not valid UTF-8`, { field: `line ${n}` });
    }
  };
  for await (const chunk of stream) {
    const buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let start = 0;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, start)) {
      yield decode(buf.subarray(start, i));
      start = i + 1;
    }
    pending = buf.slice(start);
  }
  if (pending.length > 0) yield decode(pending);
}

/** `zerodb import FILE`: restore an export into an empty store, or continue a copy with an increment, keeping LSNs. */
export default zcommand({
  meta: { name: "import", description: "Import a JSONL export into an empty store, or an increment (export --after) into the copy it continues (same LSNs)" },
  args: { ...databaseArg, file: { type: "positional", description: "the export file ('-' for stdin)", required: true } },
  run: (args) => {
    const file = String(args.file);
    // Checked before the store is opened, so a missing file is one clear error and touches nothing (I6).
    if (file !== "-") {
      let fd: number;
      try {
        fd = openSync(file, "r");
      } catch (err) {
        const code = (err as { code?: string }).code;
        throw new ZeroDbError(code === "ENOENT" ? "not_found" : "invalid_input", `cannot read ${file} (${code ?? "error"})`, { field: "file" });
      }
      // A directory opens but cannot be read; a pipe (import <(...)) is fine.
      const isDir = fstatSync(fd).isDirectory();
      closeSync(fd);
      if (isDir) throw new ZeroDbError("invalid_input", `file: ${file} is a directory, not an export`, { field: "file" });
    }
    return withStore(args, async (store) => {
      // A node stream for files: Bun.file().stream() fails on a character device (/dev/null) with EPERM from epoll.
      if (file === "-") hintIfTerminal("the export (JSONL)", "give the file: zerodb import FILE");
      const stream: AsyncIterable<Uint8Array> = file === "-" ? Bun.stdin.stream() : createReadStream(file, { highWaterMark: 1 << 20 });
      async function* records() {
        for await (const { n, line } of utf8Lines(stream)) {
          if (line.trim() === "") continue;
          try {
            yield JSON.parse(line) as unknown;
          } catch {
            throw new ZeroDbError("invalid_input", `line ${n}: not valid JSON`, { field: `line ${n}` });
          }
        }
      }
      return store.importTape(records());
    });
  },
  human: (r: { records: number; last_lsn: number; skipped?: number }) =>
    `imported ${r.records - (r.skipped ?? 0)} records${r.skipped ? ` (${r.skipped} already here, skipped)` : ""} (last lsn ${r.last_lsn})`,
});
