/** Issue 33: `--as-of` on read, sessions, search, fact get and fact list, through the built binary. */
import { describe, expect, test } from "bun:test";
import { runJson, runZ, tempDir } from "../helpers.ts";

describe("issue 33: zerodb --as-of", () => {
  test("each read answers what the store held at an LSN or a time; a bad one is one line naming --as-of", async () => {
    using home = tempDir();
    const o = { home: home.path };
    const first = (await runJson(["append", "--session", "s", "the heron plan"], o)).entries[0].lsn;
    const set = (await runJson(["fact", "set", "mode", "draft"], o)).lsn;
    const ts = (await runJson(["read", "--session", "s"], o)).turns[0].ts;
    await runJson(["append", "--session", "s", "heron plan revised"], o);
    await runJson(["append", "--session", "t", "another session"], o);
    await runJson(["fact", "set", "mode", "final"], o);
    const at = String(set);
    expect((await runJson(["read", "--session", "s", "--as-of", at], o)).turns.map((t: { lsn: number }) => t.lsn)).toEqual([first]);
    expect((await runJson(["read", "--session", "s", "--as-of", ts], o)).turns.map((t: { lsn: number }) => t.lsn)).toEqual([first]);
    expect((await runJson(["sessions", "--as-of", at], o)).sessions.map((s: { name: string; turns: number }) => [s.name, s.turns])).toEqual([["s", 1]]);
    expect((await runJson(["search", "heron", "--as-of", at], o)).hits.map((h: { lsn: number }) => h.lsn)).toEqual([first]);
    expect(await runZ(["fact", "get", "mode", "--as-of", at], o)).toEqual({ code: 0, stdout: "draft\n", stderr: "" });
    expect(await runZ(["fact", "get", "mode"], o)).toEqual({ code: 0, stdout: "final\n", stderr: "" });
    expect((await runJson(["fact", "list", "--as-of", at], o)).facts).toEqual([{ key: "mode", value: "draft", lsn: set }]);
    for (const cmd of [["read", "--session", "s"], ["sessions"], ["search", "heron"], ["fact", "get", "mode"], ["fact", "list"]]) {
      const r = await runZ([...cmd, "--as-of", "last tuesday"], o);
      expect({ cmd, code: r.code, stdout: r.stdout, lines: r.stderr.trim().split("\n").length }).toEqual({ cmd, code: 2, stdout: "", lines: 1 });
      expect(r.stderr).toMatch(/as.of/);
    }
  }, 60_000);
});
