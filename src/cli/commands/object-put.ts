import { statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { invalid } from "../../errors.ts";
import type { ObjectPutResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withWritingMemory } from "../sync-detached.ts";
import { stringFlag } from "../parse.ts";
import { byteProgress } from "../progress.ts";
import { ObjectPutMeta } from "../../schema/ops.ts";
import { hintIfTerminal } from "../stdin.ts";
import { parseInput } from "../../schema/parse.ts";

/** Counts bytes as they stream past, for the progress line. */
async function* counted(source: AsyncIterable<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  let n = 0;
  for await (const chunk of source) {
    n += chunk.byteLength;
    onBytes(n);
    yield chunk;
  }
}

/** `zerodb object put FILE`: stores a file (or stdin, `-`) by content. */
export default zcommand({
  meta: { name: "object put", description: "Store a file by content (sha256); '-' reads stdin" },
  args: {
    file: { type: "positional", description: "the file to store, or - for stdin", required: true },
    name: { type: "string", description: "a name to remember with it (default: the file's base name)", valueHint: "name" },
    type: { type: "string", description: "its media type (default: guessed from the file name)", valueHint: "type" },
    "idem-key": { type: "string", description: "an idempotency key: a retry with it is not stored twice", valueHint: "key" },
  },
  async run(args) {
    const file = String(args.file);
    const fromStdin = file === "-";
    let size: number | undefined;
    if (!fromStdin) {
      let st;
      try {
        st = statSync(file);
      } catch {
        throw invalid("file", `${file}: no such file`);
      }
      if (!st.isFile()) throw invalid("file", `${file} is not a regular file`);
      size = st.size;
    }
    const name = stringFlag(args.name) ?? (fromStdin ? undefined : basename(file));
    // Bun guesses the media type from the extension (application/octet-stream when it cannot).
    const type = stringFlag(args.type) ?? (fromStdin ? undefined : Bun.file(file).type);
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const meta = parseInput(ObjectPutMeta, {
      ...(name !== undefined ? { name } : {}),
      ...(type !== undefined ? { type } : {}),
      ...(args["idem-key"] !== undefined ? { idem_key: String(args["idem-key"]) } : {}),
    });
    const progress = byteProgress(`storing ${fromStdin ? "stdin" : basename(file)}`, size);
    if (fromStdin) hintIfTerminal("the object's bytes", "give a file: zerodb object put FILE");
    const source = (fromStdin ? Bun.stdin : Bun.file(resolve(file))).stream() as unknown as AsyncIterable<Uint8Array>;
    try {
      return await withWritingMemory(args, (m) => m.objectPut(counted(source, progress.update), meta));
    } finally {
      progress.done();
    }
  },
  human: (r: ObjectPutResult) =>
    r.duplicate ? `already stored: ${r.object} at lsn ${r.lsn} (duplicate)` : `stored ${r.object} (${r.size} bytes, ${r.type}) at lsn ${r.lsn}`,
});
