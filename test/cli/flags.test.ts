/**
 * The capture hooks parse their flags with src/cli/flags.ts instead of
 * citty (start-up: a hook must exit in milliseconds). What a command reads
 * from its args must be what citty's parseArgs would have given it.
 */
import { describe, expect, test } from "bun:test";
import { type ArgsDef, parseArgs } from "citty";
import { sharedArgs } from "../../src/cli/args.ts";
import { checkFlags } from "../../src/cli/check-flags.ts";
import { COMMANDS } from "../../src/cli/command-table.ts";
import { parseFlags } from "../../src/cli/flags.ts";
import type { CommandTree } from "../../src/cli/tree.ts";

const DEFS: Record<string, ArgsDef> = {
  "hook claude-code / gemini": { ...sharedArgs },
  "hook codex": { notification: { type: "positional", required: false }, ...sharedArgs },
  "hook opencode": { session: { type: "positional", required: false }, ...sharedArgs },
  "with defaults": { limit: { type: "string", default: "10" }, all: { type: "boolean", default: false }, ...sharedArgs },
};

const ARGVS: string[][] = [
  [],
  ["--home", "/h"],
  ["--home=/h", "--data-dir", "/d"],
  ["--data-dir=/d=x", "--token-file", "/t", "--tenant", "team"],
  ["--url", "http://127.0.0.1:1"],
  ["--config", "/c.json", "--json"],
  ["--json=false", "--quiet"],
  ["-q", "-v"],
  ["--no-verbose", "--verbose"],
  ["--verbose", "--no-verbose"],
  ['{"type":"agent-turn-complete","thread-id":"t"}'],
  ["--home", "/h", "ses_abc"],
  ["ses_abc", "--home", "/h"],
  ["--", "--home"],
  ["--home", ""],
  ["--limit", "5", "--all"],
];

/** Whether checkFlags (main.ts) lets `argv` through to the parser: every flag before `--` declared. */
function declared(argv: string[], def: ArgsDef): boolean {
  const names = new Set(Object.entries(def).flatMap(([n, d]) => [n, ...[(d as { alias?: string | string[] }).alias ?? []].flat()]));
  const end = argv.includes("--") ? argv.indexOf("--") : argv.length;
  return argv.slice(0, end).every((t) => !t.startsWith("-") || t === "-" || names.has(t.replace(/^--?(no-)?/, "").split("=")[0]!));
}

const NAMES = [
  "home",
  "data-dir",
  "dataDir",
  "url",
  "tenant",
  "token-file",
  "tokenFile",
  "config",
  "json",
  "quiet",
  "verbose",
  "notification",
  "session",
  "limit",
  "all",
];

describe("parseFlags", () => {
  test("gives every declared name the value citty's parseArgs gives it", () => {
    let compared = 0;
    for (const [what, def] of Object.entries(DEFS)) {
      for (const argv of ARGVS) {
        if (!declared(argv, def)) continue;
        const theirs = parseArgs(argv, def) as Record<string, unknown>;
        const ours = parseFlags(argv, def);
        for (const name of NAMES) {
          expect({ what, argv, name, value: ours[name] }).toEqual({ what, argv, name, value: theirs[name] });
          compared++;
        }
        expect({ what, argv, positionals: ours._ }).toEqual({ what, argv, positionals: theirs._ as string[] });
      }
    }
    // Every argv is compared under some definition, most under all four.
    expect(compared).toBeGreaterThan((Object.keys(DEFS).length - 1) * (ARGVS.length - 1) * NAMES.length);
  });

  test("gives every command's declared names what citty gives them, over its own flags in every spelling", async () => {
    /** Every leaf command with its path. */
    const leaves: [string, () => Promise<unknown>][] = [];
    const walk = (tree: CommandTree, path: string[]) => {
      for (const [name, node] of Object.entries(tree)) {
        if (typeof node === "function") leaves.push([[...path, name].join(" "), node]);
        else walk(node, [...path, name]);
      }
    };
    walk(COMMANDS, []);
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let compared = 0;
    for (const [what, load] of leaves) {
      const cmd = (await load()) as { args?: unknown; setup?: unknown; cleanup?: unknown; plugins?: unknown; subCommands?: unknown };
      // main.ts runs a command itself, not through citty's runCommand: nothing of what only runCommand does may be declared.
      expect({ what, setup: cmd.setup, cleanup: cmd.cleanup, plugins: cmd.plugins, subCommands: cmd.subCommands }).toEqual({
        what,
        setup: undefined,
        cleanup: undefined,
        plugins: undefined,
        subCommands: undefined,
      });
      const args = (typeof cmd.args === "function" ? await (cmd.args as () => Promise<ArgsDef>)() : (cmd.args ?? {})) as ArgsDef;
      const flags = Object.entries(args).filter(([, d]) => d.type !== "positional");
      const kebabOf = (n: string) => n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      const camelOf = (n: string) => n.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
      /** One flag in one of its spellings and forms. */
      const token = ([name, def]: [string, ArgsDef[string]]): string[] => {
        const aliases = [(def as { alias?: string | string[] }).alias ?? []].flat();
        const spelling = [name, kebabOf(name), ...aliases][rand(2 + aliases.length)]!;
        const dash = spelling.length === 1 ? "-" : "--";
        if (def.type === "boolean") return [[`${dash}${spelling}`, `--no-${spelling}`, `${dash}${spelling}=false`, `${dash}${spelling}=true`][rand(4)]!];
        const value = ["v1", "", "a=b", "-", "two words"][rand(5)]!;
        return rand(2) === 0 ? [`${dash}${spelling}`, value] : [`${dash}${spelling}=${value}`];
      };
      for (let k = 0; k < 60; k++) {
        const argv: string[] = [];
        for (let n = rand(4); n > 0 && flags.length > 0; n--) argv.push(...token(flags[rand(flags.length)]!));
        for (let n = rand(3); n > 0; n--) argv.splice(rand(argv.length + 1), 0, ["word", "w2", "--"][rand(3)]!);
        try {
          checkFlags(argv, args);
        } catch {
          continue;
        }
        let theirs: Record<string, unknown>;
        try {
          theirs = parseArgs(argv, args) as Record<string, unknown>;
        } catch {
          continue;
        }
        const ours = parseFlags(argv, args);
        for (const [name, def] of Object.entries(args)) {
          for (const spelled of new Set([name, camelOf(name)])) {
            const mine = (def as { repeat?: boolean }).repeat === true && Array.isArray(ours[spelled]) ? (ours[spelled] as string[]).at(-1) : ours[spelled];
            expect({ what, argv, name: spelled, value: mine }).toEqual({ what, argv, name: spelled, value: theirs[spelled] });
            compared++;
          }
        }
        expect({ what, argv, positionals: ours._ }).toEqual({ what, argv, positionals: theirs._ as string[] });
      }
    }
    expect(leaves.length).toBeGreaterThan(30);
    expect(compared).toBeGreaterThan(5000);
  });
});
