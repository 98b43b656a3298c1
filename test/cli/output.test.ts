/**
 * Human output through one consola instance (issue 17): --quiet leaves only
 * errors, --verbose adds detail, a plain reporter off a terminal, results on
 * stdout and messages on stderr, --json unchanged by either flag.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { ZERODB, runZ, tempDir } from "../helpers.ts";
import { mcpEnv } from "../mcp/_client.ts";

const ANSI = /\u001b\[/;

describe("human output (issue 17)", () => {
  test("--quiet prints nothing but errors; the error is the same one line", async () => {
    using home = tempDir();
    const o = { home: home.path };
    for (const flag of ["--quiet", "-q"]) {
      expect(await runZ(["append", "--session", "s", "quiet words", flag], o)).toEqual({ code: 0, stdout: "", stderr: "" });
      expect(await runZ(["search", "quiet", flag], o)).toEqual({ code: 0, stdout: "", stderr: "" });
      expect(await runZ(["fact", "get", "nope", flag], o)).toEqual({ code: 1, stdout: "", stderr: 'zerodb: no fact with key "nope"\n' });
    }
    // Without it, the same commands say what they did.
    expect(await runZ(["append", "--session", "s", "loud words"], o)).toEqual({ code: 0, stdout: "appended: lsn 3\n", stderr: "" });
    expect(await runZ(["fact", "get", "nope"], o)).toEqual({ code: 1, stdout: "", stderr: 'zerodb: no fact with key "nope"\n' });
  });

  test("--json prints the same bytes with --quiet and --verbose; stderr keeps only what the flag allows", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runZ(["append", "--session", "p/a", "json words"], o);
    await runZ(["fact", "set", "k", "v"], o);
    for (const args of [["sessions"], ["search", "json"], ["fact", "list"], ["read", "--session", "p/a"]]) {
      const plain = await runZ([...args, "--json"], o);
      expect(plain.code).toBe(0);
      expect(plain.stderr).toBe("");
      expect(await runZ([...args, "--json", "--quiet"], o)).toEqual(plain);
      const verbose = await runZ([...args, "--json", "--verbose"], o);
      expect(verbose.stdout).toBe(plain.stdout);
      expect(verbose.stderr).toBe(`zerodb: store ${home.path}/zerodb/data, tenant local\n`);
    }
    expect((await runZ(["sessions", "--json", "-q"], o)).stdout).toBe(
      '{"sessions":[{"name":"p/a","turns":1,"first_lsn":1,"last_lsn":1,"bytes":10}],"next":null}\n',
    );
    // An error with --json and --quiet: the document on stdout, the one line on stderr.
    expect(await runZ(["fact", "get", "nope", "--json", "--quiet"], o)).toEqual({
      code: 1,
      stdout: '{"error":{"code":"not_found","message":"no fact with key \\"nope\\"","field":"key"}}\n',
      stderr: 'zerodb: no fact with key "nope"\n',
    });
  });

  test("--verbose adds the store used and, on failure, the error's code after its one line", async () => {
    using home = tempDir();
    const r = await runZ(["fact", "get", "nope", "-v"], { home: home.path });
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: [`zerodb: store ${home.path}/zerodb/data, tenant local`, 'zerodb: no fact with key "nope"', "zerodb: error code not_found, field key", ""].join(
        "\n",
      ),
    });
    // The later of the two flags wins.
    expect((await runZ(["fact", "get", "nope", "-v", "-q"], { home: home.path })).stderr).toBe('zerodb: no fact with key "nope"\n');
  });

  test("off a terminal the reporter is plain; FORCE_COLOR turns consola's colours and symbols on, NO_COLOR keeps them off", async () => {
    using home = tempDir();
    const o = { home: home.path };
    const plain = await runZ(["fact", "get", "nope"], o);
    expect(plain.stderr).toBe('zerodb: no fact with key "nope"\n');
    const forced = await runZ(["fact", "get", "nope"], { ...o, env: { FORCE_COLOR: "1" } });
    expect(forced.stderr).toMatch(ANSI);
    expect(forced.stderr).toContain("✖");
    expect(forced.stderr).toContain('zerodb: no fact with key "nope"');
    expect((await runZ(["fact", "get", "nope"], { ...o, env: { NO_COLOR: "1" } })).stderr).toBe(plain.stderr);
    // A result is data: never decorated, even with colour forced.
    expect((await runZ(["append", "--session", "s", "x"], { ...o, env: { FORCE_COLOR: "1" } })).stdout).toBe("appended: lsn 1\n");
  });

  test("a result goes to stdout, a message about it to stderr (token create)", async () => {
    using home = tempDir();
    const r = await runZ(["token", "create", "--tenant", "team"], { home: home.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^zdb_\S+\n$/);
    expect(r.stderr).toMatch(/^token \S+ for tenant team: it is shown only this once; store it now\n$/);
    const quiet = await runZ(["token", "create", "--tenant", "team", "--quiet"], { home: home.path });
    expect({ code: quiet.code, stdout: quiet.stdout, stderr: quiet.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  test("a reader that stops early (export | head) ends the command quietly, with the status SIGPIPE gives; a whole export arrives in order", async () => {
    using home = tempDir();
    const o = { home: home.path };
    const store = openSqliteStore(join(home.path, "zerodb", "data"));
    const entries = Array.from({ length: 3000 }, (_, i) => ({ role: "note" as const, content: `line ${i} ${"x".repeat(200)}` }));
    for (let i = 0; i < entries.length; i += 250) await store.memory("local").append({ session: "big/s", entries: entries.slice(i, i + 250) });
    store.close();
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home.path, ZERODB_HOME: join(home.path, "zerodb") };
    for (const args of [["export"], ["export", "--json"], ["read", "--session", "big/s", "--limit", "1000"]]) {
      // A shell pipeline into `head`, as a person types it: head exits after 10 bytes and the pipe closes.
      const line = `"$0" "$@" 2>"$ZERODB_HOME/err" | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`;
      const p = Bun.spawn(["bash", "-c", line, ZERODB, ...args], { cwd: home.path, env, stdout: "pipe", stderr: "pipe" });
      const status = (await new Response(p.stdout).text()).trim();
      expect(await p.exited).toBe(0);
      expect({ args, status, stderr: await Bun.file(join(home.path, "zerodb", "err")).text() }).toEqual({ args, status: "141", stderr: "" });
    }
    const whole = await runZ(["export"], o);
    expect(whole.code).toBe(0);
    const contents = whole.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).content as string)
      .filter((c) => c.startsWith("line "));
    expect(contents.length).toBe(3000);
    expect(contents.every((c, i) => c.startsWith(`line ${i} `))).toBe(true);
  });

  test("version and completion print what was asked for, --quiet or not", async () => {
    using home = tempDir();
    const v = await runZ(["version", "--quiet"], { home: home.path });
    expect(v.stdout).toMatch(/^zerodb \S+ \(\S+\)\n$/);
    expect((await runZ(["completion", "bash", "-q"], { home: home.path })).stdout).toContain("complete");
  });

  test("--quiet and --verbose are global flags in every command's help", async () => {
    using home = tempDir();
    const help = (await runZ(["search", "--help"], { home: home.path })).stdout;
    expect(help).toContain("--quiet");
    expect(help).toContain("--verbose");
  });

  test("zerodb mcp --verbose still writes only JSON-RPC on stdout; its detail goes to stderr", async () => {
    using home = tempDir();
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    };
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "forget", arguments: { selector: { session: "none" } } } };
    const proc = Bun.spawn([ZERODB, "mcp", "--verbose"], {
      cwd: home.path,
      env: mcpEnv(home.path),
      stdin: new Blob([`${JSON.stringify(init)}\nnot json\n${JSON.stringify(call)}\n`]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(0);
    const messages = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(messages.map((m) => [m.jsonrpc, m.id])).toEqual([
      ["2.0", 1],
      ["2.0", 2],
    ]);
    expect(messages[1].result.structuredContent).toEqual({ lsn: null, hidden: 0, dry_run: false });
    expect(messages[1].result.content[0].text).toBe("Nothing matched the selector, so nothing was forgotten and nothing was written.");
    expect(stderr).toContain("zerodb: store ");
    expect(stderr).toContain("JSON Parse error");
  });

  test("the hook with --verbose writes nothing on stdout for a Stop event", async () => {
    using home = tempDir();
    const event = JSON.stringify({ session_id: "s1", transcript_path: `${home.path}/none.jsonl`, cwd: home.path, hook_event_name: "Stop" });
    const r = await runZ(["hook", "claude-code", "--verbose"], { home: home.path, stdin: event });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
  });
});

describe("a failing result with --quiet (issue 17)", () => {
  test("doctor's failed checks still print with --quiet, and it exits 1", async () => {
    using home = tempDir();
    expect((await runZ(["stats", "--quiet"], { home: home.path })).code).toBe(0);
    chmodSync(join(home.path, "zerodb"), 0o755);
    const r = await runZ(["doctor", "--quiet"], { home: home.path });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("fix: chmod 700");
    expect(r.stdout).toContain("check(s) failed");
  });
});
