/**
 * The capture hooks parse their flags with src/cli/flags.ts instead of
 * citty (start-up: a hook must exit in milliseconds). What a command reads
 * from its args must be what citty's parseArgs would have given it.
 */
import { describe, expect, test } from "bun:test";
import { type ArgsDef, parseArgs } from "citty";
import { sharedArgs } from "../../src/cli/args.ts";
import { parseFlags } from "../../src/cli/flags.ts";

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
});
