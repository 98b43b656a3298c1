import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { invalid } from "../../errors.ts";
import { existsError, saveNew } from "../../objects/save.ts";
import { fileNameProblem } from "../../util/atomic.ts";
import type { ObjectInfo } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { writeOut } from "../stdout.ts";
import { UsageError } from "../parse.ts";
import { byteProgress } from "../progress.ts";
import { ObjectGetInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { lexists } from "../../util/fs.ts";

/** True when `path` is a directory (through symlinks). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `zerodb object get sha256:HEX --out FILE`: writes an object to a new file (never overwrites). */
export default zcommand({
  meta: { name: "object get", description: "Write an object's bytes to a new file (never overwrites); --out - writes stdout" },
  args: {
    object: { type: "positional", description: "the object's digest, sha256:<64 hex>", required: true },
    out: { type: "string", description: "the file to create (it must not exist), or - for stdout", valueHint: "file" },
  },
  async run(args) {
    if (args.out === undefined) throw new UsageError("--out FILE is required (the file to create; - writes stdout)", "out");
    const toStdout = args.out === "-";
    if (toStdout && args.json) throw new UsageError("--json cannot be combined with --out - (stdout carries the bytes)", "json");
    const out = toStdout ? "-" : resolve(String(args.out));
    // Checked first so a refusal costs nothing; saveNew's exclusive link is what makes it race-free.
    if (!toStdout) {
      // lstat: a dangling symlink is there too (the link would refuse it, after the fetch).
      if (lexists(out)) throw existsError(out, "out");
      if (!isDirectory(dirname(out))) throw invalid("out", `the directory ${dirname(out)} does not exist`);
      const problem = fileNameProblem(out);
      if (problem) throw invalid("out", problem);
    }
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(ObjectGetInput, { object: String(args.object) });
    return withMemory(args, async (m) => {
      const body = await m.objectGet(input);
      const info: ObjectInfo = { object: body.object, size: body.size, type: body.type, name: body.name, lsn: body.lsn };
      if (toStdout) {
        for await (const chunk of body.read()) await writeOut(chunk);
        return undefined;
      }
      const progress = byteProgress("writing", body.size);
      try {
        await saveNew(out, body, { field: "out", onBytes: progress.update });
      } finally {
        progress.done();
      }
      return { ...info, out };
    });
  },
  human: (r: ObjectInfo & { out: string }) => `wrote ${r.size} bytes (${r.type}) to ${r.out}`,
});
