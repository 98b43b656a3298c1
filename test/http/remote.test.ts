/**
 * The CLI's remote mode (DESIGN.md 6.3): every data command with --url and
 * a token prints what it prints against a local store, and the token is
 * found from ZERODB_TOKEN, --token-file, the config, or the tenant's file.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, runZ, tempDir } from "../helpers.ts";
import { createToken, startServer } from "./_server.ts";

/** Fields that differ between two stores by nature: write times and bytes on disk (JSON and human forms). */
function normalize(stdout: string): string {
  return stdout
    .replace(/"ts":"[^"]+"/g, '"ts":"<ts>"')
    .replace(/"disk":\{[^}]*\}/g, '"disk":"<disk>"')
    .replace(/^(#\d+) \S+Z /gm, "$1 <ts> ")
    .replace(/^disk .*$/m, "disk <disk>");
}

/** The commands, in order, as a user would type them (content via argument and stdin). */
const SCRIPT: { args: string[]; stdin?: string }[] = [
  { args: ["append", "--session", "proj/notes", "the deploy key lives in vault"] },
  { args: ["append", "--session", "proj/notes", "--role", "user", "--idem-key", "k1", "--meta", '{"source":"stdin"}'], stdin: "typed on stdin, ünïcode" },
  { args: ["append", "--session", "proj/notes", "--role", "user", "--idem-key", "k1", "--meta", '{"source":"stdin"}'], stdin: "typed on stdin, ünïcode" },
  { args: ["append", "--session", "proj/other", "--role", "assistant", "deploy done"] },
  { args: ["read", "--session", "proj/notes"] },
  { args: ["read", "--session", "proj/notes", "--after", "1", "--limit", "1"] },
  { args: ["sessions"] },
  { args: ["sessions", "--prefix", "proj/", "--limit", "1"] },
  { args: ["search", "deploy"] },
  { args: ["search", "deploy", "--session", "proj/other", "--role", "assistant"] },
  { args: ["fact", "set", "proj/owner", '{"name":"alice"}'] },
  { args: ["fact", "set", "proj/plain", "not json"] },
  { args: ["fact", "get", "proj/owner"] },
  { args: ["fact", "list", "--prefix", "proj/"] },
  { args: ["forget", "--session", "proj/other", "--dry-run"] },
  { args: ["forget", "--fact", "proj/plain"] },
  { args: ["forget", "--turn", "1"] },
  { args: ["read", "--session", "proj/notes"] },
  { args: ["stats"] },
  // Failures: the same code, message and exit status.
  { args: ["fact", "get", "proj/missing"] },
  { args: ["read", "--session", "proj/notes", "--limit", "5000"] },
  { args: ["append", "--session", "a//b", "x"] },
  { args: ["append", "--session", "proj/notes", "--idem-key", "k1", "other content"] },
];

describe("remote mode", () => {
  for (const json of [true, false]) {
    test(`every data command prints the same ${json ? "JSON" : "human output"} against a server as against a local store`, async () => {
      using local = tempDir();
      using served = tempDir();
      using client = tempDir();
      // The server's tenant is "local", the default tenant of local mode, so even stats agree.
      const token = await createToken(served.path, "local");
      await using server = await startServer(served.path);
      for (const step of SCRIPT) {
        const args = json ? [...step.args, "--json"] : step.args;
        const here = await runZ(args, { home: local.path, stdin: step.stdin });
        const there = await runZ([...args, "--url", server.url], { home: client.path, stdin: step.stdin, env: { ZERODB_TOKEN: token } });
        const what = `zerodb ${args.join(" ")}`;
        expect({ what, code: there.code, stderr: there.stderr }).toEqual({ what, code: here.code, stderr: here.stderr });
        expect({ what, stdout: normalize(there.stdout) }).toEqual({ what, stdout: normalize(here.stdout) });
      }
    }, 60_000);
  }

  test("the token comes from ZERODB_TOKEN, --token-file, the config's token_file, or <home>/tokens/<tenant>", async () => {
    using served = tempDir();
    using client = tempDir();
    const token = await createToken(served.path, "alice");
    await using server = await startServer(served.path);
    const whoami = (r: RunResult) => (r.code === 0 ? JSON.parse(r.stdout).tenant : r.stderr);
    const stats = (extra: string[], env: Record<string, string> = {}) => runZ(["stats", "--json", ...extra], { home: client.path, env });

    expect(whoami(await stats(["--url", server.url], { ZERODB_TOKEN: token }))).toBe("alice");
    writeFileSync(join(client.path, "tok"), `${token}\n`, { mode: 0o600 });
    expect(whoami(await stats(["--url", server.url, "--token-file", join(client.path, "tok")]))).toBe("alice");
    expect(whoami(await stats(["--url", server.url, "--token-file", "tok"]))).toBe("alice");

    const home = join(client.path, "zerodb");
    mkdirSync(join(home, "tokens"), { recursive: true });
    writeFileSync(join(home, "tokens", "alice"), token, { mode: 0o600 });
    expect(whoami(await stats(["--url", server.url, "--tenant", "alice"]))).toBe("alice");

    writeFileSync(join(client.path, "cfg.json"), JSON.stringify({ url: server.url, token_file: join(client.path, "tok") }));
    expect(whoami(await stats(["--config", join(client.path, "cfg.json")]))).toBe("alice");
    writeFileSync(join(home, "config.json"), JSON.stringify({ url: server.url, tenant: "alice" }));
    expect(whoami(await stats([]))).toBe("alice");
  });

  test("no token, a wrong one, another tenant's, or no server: one clear line and exit 1", async () => {
    using served = tempDir();
    using client = tempDir();
    const token = await createToken(served.path, "alice");
    await using server = await startServer(served.path);
    const run = (extra: string[], env: Record<string, string> = {}) => runZ(["read", "--session", "s", ...extra], { home: client.path, env });

    const none = await run(["--url", server.url]);
    expect(none.code).toBe(1);
    expect(none.stderr).toStartWith("zerodb: remote mode (--url) needs a token: set ZERODB_TOKEN, pass --token-file FILE");
    expect(none.stderr.split("\n")).toHaveLength(2);

    const wrong = await run(["--url", server.url], { ZERODB_TOKEN: "zdb_not_a_real_token" });
    expect(wrong).toEqual({ code: 1, stdout: "", stderr: `zerodb: the server at ${server.url} refused the token: it is wrong or revoked\n` });

    const otherTenant = await run(["--url", server.url, "--tenant", "bob", "--json"], { ZERODB_TOKEN: token });
    expect(otherTenant.code).toBe(1);
    expect(JSON.parse(otherTenant.stdout)).toEqual({
      error: { code: "unauthorized", message: "tenant: the token acts in tenant alice, not bob", field: "tenant" },
    });

    const missingFile = await run(["--url", server.url, "--token-file", join(client.path, "nope")]);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toContain("token_file: cannot read the token file");

    const badUrl = await run(["--url", "ftp://127.0.0.1/"], { ZERODB_TOKEN: token });
    expect(badUrl).toEqual({ code: 2, stdout: "", stderr: "zerodb: url: must be http or https\n" });

    const port = new URL(server.url).port;
    expect(await server.stop()).toBe(0);
    const down = await run(["--url", `http://127.0.0.1:${port}`], { ZERODB_TOKEN: token });
    expect(down).toEqual({
      code: 1,
      stdout: "",
      stderr: `zerodb: cannot reach the zerodb server at http://127.0.0.1:${port}: is \`zerodb serve\` running there?\n`,
    });
  });
});
