/**
 * Issue 29 item 11: `forget --prefix` selects sessions as `sessions` and
 * `search` take it, and every command answers a mistyped flag with
 * `unknown flag --xyz; did you mean --xyzz?` (a usage error: exit 2).
 */
import { describe, expect, test } from "bun:test";
import type { ArgsDef, CommandDef } from "citty";
import { checkFlags } from "../../src/cli/check-flags.ts";
import { COMMANDS } from "../../src/cli/command-table.ts";
import type { CommandTree, Loader } from "../../src/cli/tree.ts";
import { runJson, runZ, tempDir } from "../helpers.ts";

/** Every command of the CLI: its words and its declared arguments. */
async function everyCommand(tree: CommandTree = COMMANDS, path: string[] = []): Promise<{ path: string[]; args: ArgsDef }[]> {
  const out: { path: string[]; args: ArgsDef }[] = [];
  for (const [name, node] of Object.entries(tree)) {
    if (typeof node === "function") {
      const cmd: CommandDef = await (node as Loader)();
      const args = typeof cmd.args === "function" ? await (cmd.args as () => Promise<ArgsDef>)() : ((await cmd.args) ?? {});
      out.push({ path: [...path, name], args: args as ArgsDef });
    } else out.push(...(await everyCommand(node, [...path, name])));
  }
  return out;
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The usage error checkFlags raises for `argv`, or undefined. */
function refusal(argv: string[], args: ArgsDef): { name: string; message: string } | undefined {
  try {
    checkFlags(argv, args);
  } catch (err) {
    return { name: (err as Error).name, message: (err as Error).message };
  }
  return undefined;
}

describe("issue 29 item 11: flags", () => {
  test("every command names the flag it takes for a mistyped one: a letter left out, a letter doubled, a case slip", async () => {
    const commands = await everyCommand();
    expect(commands.length).toBeGreaterThan(30);
    let checked = 0;
    for (const { path, args } of commands) {
      const flags = Object.entries(args)
        .filter(([, d]) => d.type !== "positional")
        .map(([n]) => kebab(n));
      for (const flag of flags.filter((f) => f.length >= 5)) {
        for (const typo of [flag.slice(0, 2) + flag.slice(3), `${flag}${flag.at(-1)}`, flag[0]!.toUpperCase() + flag.slice(1)]) {
          if (flags.includes(typo)) continue;
          const got = refusal([`--${typo}`], args);
          expect({ path, got }).toEqual({ path, got: { name: "UsageError", message: `unknown flag --${typo}; did you mean --${flag}?` } });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  test("a word of a flag's name suggests it; nothing near says to see --help", async () => {
    const forget = (await everyCommand()).find((c) => c.path.join(" ") === "forget")!.args;
    expect(refusal(["--dry"], forget)?.message).toBe("unknown flag --dry; did you mean --dry-run?");
    expect(refusal(["--run"], forget)?.message).toBe("unknown flag --run; did you mean --dry-run?");
    expect(refusal(["--xyzzy-plugh"], forget)?.message).toBe("unknown flag --xyzzy-plugh (see --help)");
    // --prefix is forget's own now, as in sessions and search.
    expect(refusal(["--prefix", "p/"], forget)).toBeUndefined();
  });

  test("a flag followed by another flag has no value: refused naming it, nothing written (the fuzz's counterexample)", async () => {
    const factSet = (await everyCommand()).find((c) => c.path.join(" ") === "fact set")!.args;
    expect(refusal(["--idem-key", "--no-json", "seed", "null"], factSet)?.message).toBe("--idem-key needs a value");
    // A dash alone is a value (stdin), and `--name=-x` gives one that starts with a dash.
    expect(refusal(["--idem-key=-x", "seed", "null"], factSet)).toBeUndefined();
    using dir = tempDir();
    const r = await runZ(["fact", "set", "--json", "--idem-key", "--no-json", "seed", "null", "--data-dir", `${dir.path}/d`], { home: dir.path });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: "invalid_input", field: "idem-key" } });
    const list = await runJson<{ facts: unknown[] }>(["fact", "list", "--data-dir", `${dir.path}/d`], { home: dir.path });
    expect(list.facts).toEqual([]);
  });

  test("forget --prefix forgets what --session-prefix does, and a typo of it is one line, exit 2", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runJson(["append", "--session", "p/a", "one"], o);
    await runJson(["append", "--session", "p/b", "two"], o);
    await runJson(["append", "--session", "q/c", "three"], o);
    expect(await runJson(["forget", "--prefix", "p/", "--dry-run"], o)).toEqual(await runJson(["forget", "--session-prefix", "p/", "--dry-run"], o));
    expect(await runJson(["forget", "--prefix", "p/"], o)).toEqual({ lsn: 4, hidden: 2, dry_run: false });
    expect((await runJson(["sessions"], o)).sessions.map((s: { name: string }) => s.name)).toEqual(["q/c"]);
    for (const [args, line] of [
      [["forget", "--prefx", "p/"], "unknown flag --prefx; did you mean --session-prefix?"],
      [["stats", "--jsn"], "unknown flag --jsn; did you mean --json?"],
      [["serve", "--public-hots", "x"], "unknown flag --public-hots; did you mean --public-host?"],
    ] as const) {
      const r = await runZ([...args], o);
      expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ args, code: 2, stdout: "", stderr: `zerodb: ${line}\n` });
    }
  });
});
