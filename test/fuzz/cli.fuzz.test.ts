/**
 * Fuzz the CLI door (issue 9): generated argv (and stdin) for each command of
 * DESIGN.md 6.3, run through the built binary. Exit 0, 1 or 2 only; a failure
 * is one line on stderr with no stack or SQL (I10); bad usage (exit 2) was
 * validated before anything touched disk, so no file appears anywhere (I6);
 * no failure writes a record or a token (I6); --json failures print one error
 * document. Never an outbound connection: --url is only ever loopback (D1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { runJson, runZ, tempDir } from "../helpers.ts";
import { INTERNALS, expectErrorDoc, lastLsn, reportCases, tokenCount } from "./_check.ts";
import { fuzzRuns, nastyString } from "./arbitraries.ts";

const RUNS = fuzzRuns(1 / 20);

/** argv cannot carry NUL; everything else nasty stays. */
const argText = nastyString.map((s) => s.replaceAll("\u0000", "\u0001"));
const intText = fc.oneof(fc.constantFrom("0", "1", "2", "1000", "1001", "-1", "1e3", "0x10", "", "99999999999999999", " 3"), fc.nat().map(String));
const roleText = fc.oneof(fc.constantFrom("user", "assistant", "tool", "system", "note"), argText);
const nameText = fc.oneof({ weight: 3, arbitrary: fc.constantFrom("s", "p/a", "seed", "é/ü") }, { weight: 2, arbitrary: argText });
const digestText = fc.oneof(
  fc.constant("SEED"),
  fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`),
  argText,
);
/** --out destinations: new files, existing ones, symlinks, missing dirs, stdout. */
const outPath = fc.oneof(
  fc.nat({ max: 1e9 }).map((n) => `out/new-${n}`),
  fc.constantFrom("out/existing", "out/link-out", "out/dangling", "missing-dir/x", "-", "", "out", "out/"),
);
/** FILE arguments: real, missing, a directory, stdin, a device. */
const inPath = fc.oneof(fc.constantFrom("in/file.txt", "in/missing", "in", "-", "/dev/null", "in/export.jsonl", "in/bad.jsonl"), argText);

/** One flag: `--name value`, `--name=value`, or the name alone. */
function flag(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  return fc.oneof(
    { weight: 4, arbitrary: value.map((v) => [`--${name}`, v]) },
    { weight: 1, arbitrary: value.map((v) => [`--${name}=${v}`]) },
    { weight: 1, arbitrary: fc.constant<string[]>([`--${name}`]) },
  );
}

/** The shared flags of DESIGN.md 6.3, with values that stay inside the sandbox and on loopback. */
const shared: fc.Arbitrary<string[]>[] = [
  fc.constant(["--json"]),
  flag("tenant", fc.oneof(fc.constant("other"), argText)),
  flag(
    "data-dir",
    fc.oneof(
      fc.nat({ max: 1e9 }).map((n) => `fresh-${n}`),
      fc.constantFrom("in/file.txt", "/dev/null", "in"),
    ),
  ),
  flag(
    "home",
    fc.oneof(
      fc.nat({ max: 1e9 }).map((n) => `home-${n}`),
      fc.constantFrom("in/file.txt"),
    ),
  ),
  flag("config", fc.constantFrom("in/bad.json", "in/missing.json", "in/file.txt", "in/unknown-key.json")),
  flag("token-file", fc.constantFrom("in/file.txt", "in/missing", "in")),
  flag("url", fc.constantFrom("http://127.0.0.1:1", "not a url", "ftp://127.0.0.1/", "http://", "http://127.0.0.1:1/v1")),
];

/** Odd tokens any command may meet. */
const odd = fc.constantFrom(["--unknown"], ["-x"], ["--"], ["--json=maybe"], ["--no-json"], ["extra", "args"], ["--help-me"]);

/** A command's argv: its words, then a shuffle of its own flags, shared flags and oddities. */
function command(words: string[], own: fc.Arbitrary<string[]>[], positionals: fc.Arbitrary<string[]> = fc.constant([])): fc.Arbitrary<string[]> {
  const pool = fc.oneof(...own.map((a) => ({ weight: 4, arbitrary: a })), ...shared.map((a) => ({ weight: 1, arbitrary: a })), { weight: 1, arbitrary: odd });
  return fc
    .tuple(positionals, fc.array(pool, { maxLength: 4 }))
    .chain(([pos, flags]) =>
      fc
        .shuffledSubarray([...flags, ...(pos.length ? [pos] : [])], { minLength: flags.length + (pos.length ? 1 : 0) })
        .map((parts) => [...words, ...parts.flat()]),
    );
}

const COMMANDS: Record<string, fc.Arbitrary<string[]>> = {
  append: command(
    ["append"],
    [
      flag("session", nameText),
      flag("role", roleText),
      flag("idem-key", argText),
      flag("meta", fc.oneof(fc.constantFrom("{}", '{"a":1}', "[]", "null", "{", '{"redacted":9}'), argText)),
    ],
    fc.option(argText, { nil: undefined }).map((c) => (c === undefined ? [] : [c])),
  ),
  read: command(["read"], [flag("session", nameText), flag("after", intText), flag("limit", intText)]),
  sessions: command(["sessions"], [flag("prefix", nameText), flag("after", argText), flag("limit", intText)]),
  search: command(
    ["search"],
    [flag("session", nameText), flag("prefix", nameText), flag("role", roleText), flag("limit", intText)],
    fc.oneof(argText, fc.constant("seed")).map((q) => [q]),
  ),
  "fact set": command(
    ["fact", "set"],
    [flag("idem-key", argText)],
    fc.tuple(nameText, fc.oneof(argText, fc.constantFrom("1", '{"a":[1]}', "null", "[[[[[[[[[[1]]]]]]]]]]"))).map(([k, v]) => [k, v]),
  ),
  "fact get": command(
    ["fact", "get"],
    [],
    nameText.map((k) => [k]),
  ),
  "fact list": command(["fact", "list"], [flag("prefix", nameText), flag("after", argText), flag("limit", intText)]),
  forget: command(
    ["forget"],
    [
      flag("session", nameText),
      flag("session-prefix", nameText),
      flag("turn", intText),
      flag("fact", nameText),
      flag("fact-prefix", nameText),
      flag("object", digestText),
      flag("link", intText),
      flag("before", fc.oneof(fc.constantFrom("2000-01-01", "2000-01-01T00:00:00Z", "yesterday", "2000-13-45"), argText)),
      fc.constant(["--dry-run"]),
    ],
  ),
  "object put": command(
    ["object", "put"],
    [flag("name", argText), flag("type", fc.oneof(fc.constantFrom("text/plain", "image/png", "nope"), argText)), flag("idem-key", argText)],
    inPath.map((p) => [p]),
  ),
  "object get": command(
    ["object", "get"],
    [flag("out", outPath)],
    digestText.map((d) => [d]),
  ),
  "object list": command(["object", "list"], [flag("after", intText), flag("limit", intText)]),
  "link add": command(
    ["link", "add"],
    [flag("title", argText), flag("note", argText), flag("idem-key", argText)],
    fc.oneof(fc.webUrl(), argText, fc.constantFrom("javascript:x", "file:///etc/passwd")).map((u) => [u]),
  ),
  stats: command(["stats"], []),
  export: command(["export"], [flag("out", outPath)]),
  import: command(
    ["import"],
    [],
    inPath.map((p) => [p]),
  ),
  "token create": command(["token", "create"], [flag("out", outPath)]),
  "token list": command(["token", "list"], []),
  "token revoke": command(
    ["token", "revoke"],
    [],
    fc.oneof(argText, fc.constant("tok_missing")).map((id) => [id]),
  ),
  "capture status": command(["capture", "status"], []),
  version: command(["version"], []),
};

/** Every file under `dir`, relative, skipping SQLite's -wal/-shm (they come and go with every open). */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!/-(wal|shm)$/.test(e.name)) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

describe("CLI door fuzz (I6, I10, D1)", () => {
  let box: { path: string; [Symbol.dispose](): void };
  let seed: string;
  let cases = 0;
  const exits = { 0: 0, 1: 0, 2: 0 } as Record<number, number>;
  const dataDir = () => join(box.path, "zerodb", "data");

  beforeAll(async () => {
    box = tempDir("zerodb-fuzz-cli-");
    const p = box.path;
    for (const d of ["in", "out"]) mkdirSync(join(p, d));
    writeFileSync(join(p, "in", "file.txt"), "a file to store\n");
    writeFileSync(join(p, "in", "bad.json"), "{ not json");
    writeFileSync(join(p, "in", "unknown-key.json"), JSON.stringify({ data_dri: "x" }));
    writeFileSync(join(p, "in", "bad.jsonl"), '{"lsn": 1}\nnope\n');
    writeFileSync(join(p, "out", "existing"), "keep me");
    mkdirSync(join(p, "elsewhere"));
    symlinkSync(join(p, "elsewhere", "target"), join(p, "out", "link-out"));
    symlinkSync(join(p, "nowhere", "target"), join(p, "out", "dangling"));
    await runJson(["append", "--session", "s", "seed alpha"], { home: p });
    await runJson(["fact", "set", "seed", "1"], { home: p });
    await runJson(["token", "create", "--tenant", "fuzz"], { home: p });
    seed = (await runJson<{ object: string }>(["object", "put", "in/file.txt"], { home: p })).object;
    const exported = await runZ(["export"], { home: p });
    writeFileSync(join(p, "in", "export.jsonl"), exported.stdout);
  });

  afterAll(() => {
    reportCases("cli", cases, `(exit 0: ${exits[0]}, exit 1: ${exits[1]}, exit 2: ${exits[2]})`);
    box?.[Symbol.dispose]();
  });

  for (const [name, arb] of Object.entries(COMMANDS)) {
    test(`zerodb ${name}: ${RUNS} generated argv: exit 0/1/2, one stderr line, nothing written on failure (I6, I10)`, async () => {
      await fc.assert(
        fc.asyncProperty(arb, fc.uint8Array({ maxLength: 32 }), async (rawArgv, stdin) => {
          const argv = rawArgv.map((a) => a.replace("SEED", seed));
          const context = `zerodb ${JSON.stringify(argv).slice(0, 300)}`;
          const [lsn, tokens, files] = [lastLsn(dataDir()), tokenCount(dataDir()), tree(box.path)];
          const r = await runZ(argv, { home: box.path, stdin });
          cases++;
          exits[r.code] = (exits[r.code] ?? 0) + 1;
          expect([0, 1, 2], `exit 0, 1 or 2 only, got ${r.code}: ${r.stderr} (${context})`).toContain(r.code);
          expect(r.stderr, `I10: no stack or SQL on stderr (${context})`).not.toMatch(INTERNALS);
          expect(r.stderr, `I10: never an internal error (${context})`).not.toContain("internal error");
          if (r.code === 0) return;
          expect(r.stderr.trimEnd().split("\n"), `one line on stderr (${context})`).toHaveLength(1);
          expect(r.stderr, `the line says it is zerodb (${context})`).toStartWith("zerodb: ");
          if (argv.includes("--json") && !argv.includes("--")) expectErrorDoc(JSON.parse(r.stdout), context);
          expect(lastLsn(dataDir()), `I6: a failed command writes no record (${context})`).toBe(lsn);
          expect(tokenCount(dataDir()), `I6: a failed command creates no token (${context})`).toBe(tokens);
          // An import streams its input into the store it opened: a bad line deep in it is found after the
          // (empty) store exists. It writes no record (checked above); only bad flags must touch nothing.
          const badImportLine = argv[0] === "import" && /^zerodb: line \d+/.test(r.stderr);
          if (r.code === 2 && !badImportLine) expect(tree(box.path), `I6: bad usage is refused before anything touches disk (${context})`).toEqual(files);
          else
            expect(tree(join(box.path, "out")), `I6: a failed command leaves no output file (${context})`).toEqual(
              files.filter((f) => f.startsWith("out/")).map((f) => f.slice(4)),
            );
        }),
        { numRuns: RUNS },
      );
    }, 180_000);
  }
});
