/** Issue 28: `zerodb search --or "another phrasing"`, repeatable (DESIGN.md 11, "Several phrasings"), through the built binary. */
import { describe, expect, test } from "bun:test";
import { runJson, runZ, tempDir } from "../helpers.ts";

interface Hits {
  hits: { lsn: number; found_by?: number[] }[];
}

describe("issue 28: zerodb search --or", () => {
  test("each --or is another phrasing: hits name the phrasings that found them, --json prints the result", async () => {
    using home = tempDir();
    const o = { home: home.path };
    const lsn = async (content: string) => (await runJson<{ entries: { lsn: number }[] }>(["append", "--session", "s", content], o)).entries[0]!.lsn;
    const vault = await lsn("the deploy key lives in vault");
    const kestrel = await lsn("a kestrel hovered");

    expect(await runZ(["search", "zanzibar"], o)).toEqual({ code: 0, stdout: "(no hits)\n", stderr: "" });
    expect(await runZ(["search", "zanzibar", "--or", "vault"], o)).toEqual({
      code: 0,
      stdout: `#${vault} s note (vault) [found by "vault"]: the deploy key lives in [vault]\n`,
      stderr: "",
    });
    // Repeated, inline or not, in the order given; the positional words stay the query.
    const both = await runZ(["search", "where", "is", "it", "--or=kestrel", "--or", "deploy key"], o);
    expect(both.code).toBe(0);
    expect(both.stdout.trim().split("\n")).toEqual([
      `#${kestrel} s note (kestrel) [found by "kestrel"]: a [kestrel] hovered`,
      `#${vault} s note (deploy, key) [found by "deploy key"]: the [deploy] [key] lives in vault`,
    ]);
    const json = await runJson<Hits>(["search", "zanzibar", "--or", "kestrel", "--or", "kestrel hovered"], o);
    expect(json.hits.map((h) => [h.lsn, h.found_by])).toEqual([[kestrel, [1, 2]]]);
    // Without --or the output is as it always was.
    expect((await runZ(["search", "vault"], o)).stdout).not.toContain("found by");
    expect(Object.keys((await runJson<Hits>(["search", "vault"], o)).hits[0]!)).not.toContain("found_by");
  });

  test("a bad --or is one line naming it, and --help shows the flag as repeatable", async () => {
    using home = tempDir();
    const o = { home: home.path };
    for (const [args, named] of [
      [["search", "x", "--or", ""], "--or #1"],
      [["search", "x", "--or", "y", "--or", "!!"], "--or #2"],
    ] as const) {
      const r = await runZ([...args], o);
      expect({ args, code: r.code, stdout: r.stdout, lines: r.stderr.trim().split("\n").length }).toEqual({ args, code: 2, stdout: "", lines: 1 });
      expect(r.stderr).toStartWith(`zerodb: ${named}: `);
    }
    const nine = await runJson<unknown>(["search", "x", ...Array.from({ length: 9 }, () => ["--or", "y"]).flat()], o).catch((e: Error) => e.message);
    expect(String(nine)).toContain("--or: holds more than 8 phrasings");
    const help = await runZ(["search", "--help"], o);
    expect(help.stdout).toMatch(/--or <phrasing>\s+another phrasing of the same question.*\(repeatable\)/);
  });
});
