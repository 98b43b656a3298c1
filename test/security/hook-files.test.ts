/**
 * Issue 14, item 5: the capture hook reads only regular files. A FIFO as
 * transcript_path hung it (and with it the harness's hook budget); a symlink
 * as transcript_path was followed (as root it stored /etc/shadow). Through
 * the built binary, as Claude Code runs the hook.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runJson, runZ, tempDir } from "../helpers.ts";

function hookEvent(transcript: string, cwd: string): string {
  return JSON.stringify({ session_id: "s", transcript_path: transcript, cwd, hook_event_name: "Stop" });
}

describe("the capture hook opens only regular files (issue 14)", () => {
  test("a FIFO as transcript_path: exit 0 at once, one warning, nothing stored", async () => {
    using box = tempDir();
    const fifo = join(box.path, "t.jsonl");
    if (Bun.spawnSync(["mkfifo", fifo]).exitCode !== 0) return console.warn("skipping: mkfifo is not available");
    const r = await runZ(["hook", "claude-code"], { home: box.path, stdin: hookEvent(fifo, box.path) });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(box.path, "zerodb", "logs", "capture.log"), "utf8")).toEndWith(`Stop session=s: cannot read ${fifo} (ENOTREG)\n`);
  });

  test("a symlink as transcript_path is not followed: its target's secret never reaches the store", async () => {
    using box = tempDir();
    const secretFile = join(box.path, "shadow");
    const secret = `root:$6$zqx${crypto.randomUUID().replaceAll("-", "")}:19000:0:99999:7:::`;
    writeFileSync(secretFile, `${JSON.stringify({ type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: secret } })}\n`);
    mkdirSync(join(box.path, "t"));
    const link = join(box.path, "t", "session.jsonl");
    symlinkSync(secretFile, link);
    const r = await runZ(["hook", "claude-code"], { home: box.path, stdin: hookEvent(link, box.path) });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(box.path, "zerodb", "logs", "capture.log"), "utf8")).toEndWith(`Stop session=s: cannot read ${link} (ELOOP)\n`);
    const found = await runJson<{ hits: unknown[] }>(["search", "root", "--include-noise"], { home: box.path });
    expect(found.hits).toEqual([]);
  });
});
