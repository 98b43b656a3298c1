/**
 * Issue 17, items 2 to 4: the CLI behaves as people expect from git, gh and
 * rg: --version, help, "did you mean", described and complete top-level
 * help, no colour into pipes, shell completion, one flag name per idea with
 * old spellings kept, words as content, and stdin read with a hint and a limit.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ZERODB, runJson, runZ, tempDir } from "../helpers.ts";

const ANSI = /\u001b\[/;

describe("issue 17 item 2: help, version, typos, colour, completion", () => {
  test("--version and -V print what `version` prints", async () => {
    using home = tempDir();
    const v = await runZ(["version"], { home: home.path });
    for (const flag of ["--version", "-V"]) expect(await runZ([flag], { home: home.path })).toEqual({ code: 0, stdout: v.stdout, stderr: "" });
    expect(v.stdout).toMatch(/^zerodb \d+\.\d+\.\d+ /);
  });

  test("`help` and `help CMD` print the same as --help; the top level describes every command and hides hook", async () => {
    using home = tempDir();
    const top = await runZ(["help"], { home: home.path });
    expect(top.code).toBe(0);
    expect(top.stderr).toBe("");
    expect(await runZ(["--help"], { home: home.path })).toEqual(top);
    expect(await runZ([], { home: home.path })).toEqual(top);
    const rows = top.stdout.split("\n").filter((l) => /^ {2}\S/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(25);
    // Every command has a description beside it.
    for (const row of rows) expect(row).toMatch(/^ {2}[a-z]+( [a-z]+)? +\S/);
    expect(rows.map((r) => r.trim().split(/ {2,}/)[0])).toContain("fact set");
    expect(top.stdout).not.toMatch(/^ {2}hook/m);
    expect(top.stdout).toContain("completion");
    const help = await runZ(["help", "append"], { home: home.path });
    expect(help).toEqual(await runZ(["append", "--help"], { home: home.path }));
    expect(help.stdout).toContain("Usage: zerodb append --session <name> [CONTENT...]");
    expect((await runZ(["help", "fact", "set"], { home: home.path })).stdout).toContain("Usage: zerodb fact set");
  });

  test("typos of commands and flags get a 'did you mean'; a group without its subcommand lists them; all one line", async () => {
    using home = tempDir();
    const cases: [string[], string][] = [
      [["serach", "x"], "zerodb: unknown command 'serach'; did you mean 'search'?"],
      [["fact", "lst"], "zerodb: unknown command 'fact lst'; did you mean 'fact list'?"],
      [["docter"], "zerodb: unknown command 'docter'; did you mean 'doctor'?"],
      [["xyzzy"], "zerodb: unknown command 'xyzzy' (see zerodb help)"],
      [["append", "--sesion", "s", "x"], "zerodb: unknown flag --sesion; did you mean --session?"],
      [["sessions", "--prefx", "a"], "zerodb: unknown flag --prefx; did you mean --session-prefix?"],
      [["search", "--sesion-prefix", "a", "x"], "zerodb: unknown flag --sesion-prefix; did you mean --session-prefix?"],
      [["fact"], "zerodb: 'zerodb fact' needs a subcommand: set, get, list"],
      [["--json"], "zerodb: no command given (see zerodb help)"],
    ];
    for (const [args, line] of cases) {
      const r = await runZ(args, { home: home.path });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 2, stderr: `${line}\n` });
    }
  });

  test("help carries no ANSI codes into a pipe or with NO_COLOR; FORCE_COLOR turns colour on", async () => {
    using home = tempDir();
    for (const args of [["help"], ["append", "--help"], ["help", "search"]]) {
      expect((await runZ(args, { home: home.path })).stdout).not.toMatch(ANSI);
      expect((await runZ(args, { home: home.path, env: { NO_COLOR: "1", FORCE_COLOR: "" } })).stdout).not.toMatch(ANSI);
      expect((await runZ(args, { home: home.path, env: { FORCE_COLOR: "1" } })).stdout).toMatch(ANSI);
    }
  });

  test("completion bash completes commands, subcommands and flags; zsh and fish print scripts; a bad shell names the field", async () => {
    using home = tempDir();
    const script = join(home.path, "zerodb.bash");
    await Bun.write(script, (await runZ(["completion", "bash"], { home: home.path })).stdout);
    const complete = (words: string[]) => {
      const line = `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _zerodb; echo "\${COMPREPLY[@]}"`;
      return Bun.spawnSync(["bash", "-c", line]).stdout.toString().trim();
    };
    expect(complete(["zerodb", "ser"])).toBe("serve");
    expect(complete(["zerodb", "se"]).split(" ").sort()).toEqual(["search", "serve", "sessions"]);
    expect(complete(["zerodb", "fact", ""])).toBe("set get list");
    expect(complete(["zerodb", "search", "--session", "x", "--session-p"])).toBe("--session-prefix");
    expect(complete(["zerodb", "h"])).toBe("");
    const fish = await runZ(["completion", "fish"], { home: home.path });
    expect(fish.stdout).toContain("complete -c zerodb -n '__fish_seen_subcommand_from append' -l session");
    expect(fish.stdout).not.toContain("'hook'");
    const zsh = await runZ(["completion", "zsh"], { home: home.path });
    expect(zsh.stdout).toContain("bashcompinit");
    expect(zsh.stdout).toContain("complete -o default -F _zerodb zerodb");
    const bad = await runZ(["completion", "powershell"], { home: home.path });
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: 2, stderr: "zerodb: shell: 'powershell' is not one of bash, zsh, fish\n" });
    const none = await runZ(["completion"], { home: home.path });
    expect({ code: none.code, stderr: none.stderr }).toEqual({ code: 2, stderr: "zerodb: shell: name one of bash, zsh, fish (zerodb completion bash)\n" });
  });
});

describe("issue 17 item 3: one flag name per idea", () => {
  test("--session-prefix filters sessions and search, as it does forget; --prefix still works and is not shown; fact list takes --fact-prefix like forget", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runJson(["append", "--session", "p/a", "alpha words"], o);
    await runJson(["append", "--session", "q/b", "alpha words"], o);
    await runJson(["fact", "set", "k/one", "1"], o);
    await runJson(["fact", "set", "z/two", "2"], o);
    const names = (r: { sessions: { name: string }[] }) => r.sessions.map((s) => s.name);
    expect(names(await runJson(["sessions", "--session-prefix", "p/"], o))).toEqual(["p/a"]);
    expect(names(await runJson(["sessions", "--prefix", "p/"], o))).toEqual(["p/a"]);
    const hits = (r: { hits: { session: string }[] }) => r.hits.map((h) => h.session);
    expect(hits(await runJson(["search", "alpha", "--session-prefix", "q/"], o))).toEqual(["q/b"]);
    expect(hits(await runJson(["search", "alpha", "--prefix", "q/"], o))).toEqual(["q/b"]);
    const keys = (r: { facts: { key: string }[] }) => r.facts.map((f) => f.key);
    expect(keys(await runJson(["fact", "list", "--fact-prefix", "k/"], o))).toEqual(["k/one"]);
    expect(keys(await runJson(["fact", "list", "--prefix", "k/"], o))).toEqual(["k/one"]);
    expect((await runJson(["forget", "--session-prefix", "p/", "--dry-run"], o)).hidden).toBe(1);
    for (const cmd of [["sessions"], ["search"], ["forget"]]) {
      const help = (await runZ([...cmd, "--help"], o)).stdout;
      expect(help).toContain("--session-prefix <prefix>");
      expect(help).not.toMatch(/(^|[ ,])--prefix\b/m);
    }
    expect((await runZ(["fact", "list", "--help"], o)).stdout).toContain("--fact-prefix <prefix>");
  });
});

describe("issue 17 item 4: append's content", () => {
  test("the words after the flags are the content", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runJson(["append", "--session", "n", "this", "is", "my", "note"], o);
    // After `--`, words that look like flags are content too.
    expect((await runZ(["append", "--session", "n", "--role", "user", "--json", "--", "-5", "degrees"], o)).code).toBe(0);
    const read = await runJson<{ turns: { role: string; content: string }[] }>(["read", "--session", "n"], o);
    expect(read.turns.map((t) => [t.role, t.content])).toEqual([
      ["note", "this is my note"],
      ["user", "-5 degrees"],
    ]);
  });

  test("stdin past 4 MiB is refused as soon as it passes the limit, naming content, without reading the rest", async () => {
    using home = tempDir();
    const chunk = new Uint8Array(1 << 20).fill(0x61);
    const total = 256;
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled === total) return c.close();
        pulled++;
        c.enqueue(chunk);
      },
    });
    const proc = Bun.spawn([ZERODB, "append", "--session", "big", "--json"], {
      cwd: home.path,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home.path, ZERODB_HOME: join(home.path, "zerodb") },
      stdin: body,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(2);
    expect(JSON.parse(out).error).toMatchObject({ code: "too_large", field: "content" });
    expect(err).toBe("zerodb: content: more than 4194304 bytes on stdin (the limit is 4 MiB); stopped reading there\n");
    // The pipe holds at most a few MiB beyond what was read: nowhere near the 256 MiB offered.
    expect(pulled).toBeLessThan(64);
    expect((await runJson(["stats"], { home: home.path })).last_lsn).toBe(0);
  });

  test("exactly 4 MiB on stdin is accepted", async () => {
    using home = tempDir();
    const r = await runJson<{ entries: { lsn: number }[] }>(["append", "--session", "edge"], { home: home.path, stdin: "b".repeat(4 * 1024 * 1024) });
    expect(r.entries[0]!.lsn).toBe(1);
  });

  test("on a terminal, append says on stderr that it reads stdin and how to end it", async () => {
    using home = tempDir();
    if (!Bun.which("script")) return console.warn("skipping: util-linux `script` (for a pseudo-terminal) is not installed");
    // `script` gives the command a pseudo-terminal for stdin; its stdin is what we type.
    const proc = Bun.spawn(["script", "-qefc", `${ZERODB} append --session tty`, "/dev/null"], {
      cwd: home.path,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home.path, ZERODB_HOME: join(home.path, "zerodb"), TERM: "dumb" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    let seen = "";
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    // Wait for the hint before typing: then the content is certainly read from the terminal.
    while (!seen.includes("Ctrl-D")) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    expect(seen).toContain("zerodb: reading the content from stdin; type it and end with Ctrl-D (or give it as words: zerodb append --session NAME your note)");
    proc.stdin.write("typed at a terminal\n\u0004");
    await proc.stdin.flush();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    expect(await proc.exited).toBe(0);
    expect(seen).toContain("appended: lsn 1");
    const read = await runJson<{ turns: { content: string }[] }>(["read", "--session", "tty"], { home: home.path });
    expect(read.turns.map((t) => t.content.trim())).toEqual(["typed at a terminal"]);
    // Piped stdin gets no hint.
    const piped = await runZ(["append", "--session", "p"], { home: home.path, stdin: "from a pipe" });
    expect(piped.stderr).toBe("");
  });
});
