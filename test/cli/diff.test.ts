/** Issue 33: `zerodb diff --from A --to B [--session-prefix P] [--json]` through the built binary. */
import { describe, expect, test } from "bun:test";
import { runJson, runZ, tempDir } from "../helpers.ts";

describe("issue 33: zerodb diff", () => {
  test("what was added between two points, as lines or as the operation's JSON; bad points refused naming them", async () => {
    using home = tempDir();
    const o = { home: home.path };
    const from = (await runJson(["append", "--session", "p/a", "before"], o)).entries[0].lsn;
    const set = (await runJson(["fact", "set", "p/mode", "draft"], o)).lsn;
    const turn = (await runJson(["append", "--session", "p/a", "during"], o)).entries[0].lsn;
    const last = (await runJson(["fact", "set", "p/mode", "final"], o)).lsn;
    await runJson(["forget", "--turn", String(from)], o);
    expect(await runZ(["diff", "--from", String(from), "--to", String(last)], o)).toEqual({
      code: 0,
      stdout: `from LSN ${from} to LSN ${last}\nturns added:\n  p/a: +1 (LSN ${turn})\nfacts set:\n  p/mode: (new) -> "final" (set 2 times)\n`,
      stderr: "",
    });
    const json = await runJson(["diff", "--from", String(set), "--session-prefix", "p/"], o);
    expect(json.sessions).toEqual([{ name: "p/a", turns: 1, bytes: 6, lsns: [[turn, turn]] }]);
    expect(json.facts).toEqual([{ key: "p/mode", sets: 1, old: { value: "draft", lsn: set }, new: { value: "final", lsn: last } }]);
    expect(json.forgets).toEqual([{ lsn: last + 1, ts: expect.any(String), hidden: 1, kinds: { turn: 1 }, lsns: [[from, from]] }]);
    expect(JSON.stringify(json)).not.toContain("before");
    for (const [args, named] of [
      [["diff", "--from", "monday"], "from"],
      [["diff", "--from", "1", "--to", "x"], "to"],
      [["diff", "--from", String(last), "--to", String(from)], "to"],
      [["diff"], "from"],
    ] as const) {
      const r = await runZ([...args], o);
      expect({ args, code: r.code, stdout: r.stdout, lines: r.stderr.trim().split("\n").length }).toEqual({ args, code: 2, stdout: "", lines: 1 });
      expect(r.stderr).toContain(named);
    }
  }, 60_000);
});
