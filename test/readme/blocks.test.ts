/**
 * Issue 31: every ```sh / ```bash / ```console / ```shell block of README.md
 * and docs/ runs as written. Each block runs with bash (stopping at the first
 * failing command, pipes included) in an empty temporary home, with the
 * built dist/zerodb on PATH as `zerodb`; a block that needs a server gets one
 * loopback `zerodb serve`, shared by all such blocks, standing in for the URL
 * its page names. A proxy that answers nothing stands in for the network, so
 * a block that reaches out fails here instead of leaving the machine. The
 * pages mark what cannot run here (`<!-- not run: why -->`, see _blocks.ts);
 * the last test lists those by reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { ZERODB, runZ, tempDir } from "../helpers.ts";
import { type ServerProcess, startServer } from "../http/_server.ts";
import { type Block, allBlocks, blocksOf } from "./_blocks.ts";

/** A block's usual time is a second or two; this is many times that, for a loaded machine. */
const BLOCK_LIMIT_MS = 30_000;
const BASE_PATH = "/usr/local/bin:/usr/bin:/bin";
// Port 9 (discard) on loopback: nothing listens there, so a proxied request fails at once.
const NO_NETWORK = "http://127.0.0.1:9";

const blocks = allBlocks();
const bin = tempDir("zerodb-docs-bin-");
const serverHome = tempDir("zerodb-docs-server-");
let server: ServerProcess | undefined;

beforeAll(async () => {
  symlinkSync(ZERODB, join(bin.path, "zerodb"));
  if (blocks.some((b) => b.notRun === undefined && b.servers.length > 0)) server = await startServer(serverHome.path);
});

afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
  bin[Symbol.dispose]();
  serverHome[Symbol.dispose]();
});

/** `~/x` in `home`, a relative path in `home`. */
function inHome(home: string, path: string): string {
  return path.startsWith("~/") ? join(home, path.slice(2)) : join(home, path);
}

/** Runs shell in `home` in a process group of its own, killed whole when it ends or overstays. */
async function sh(script: string, home: string): Promise<{ code: number | null; out: string }> {
  const proc = Bun.spawn(["bash", "-e", "-o", "pipefail", "-c", script], {
    cwd: home,
    env: {
      HOME: home,
      PATH: `${bin.path}:${BASE_PATH}`,
      TERM: "dumb",
      http_proxy: NO_NETWORK,
      https_proxy: NO_NETWORK,
      HTTP_PROXY: NO_NETWORK,
      HTTPS_PROXY: NO_NETWORK,
      ALL_PROXY: NO_NETWORK,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  const timer = setTimeout(() => killGroup(proc.pid), BLOCK_LIMIT_MS - 5_000);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code: proc.signalCode ? null : code, out: `stdout:\n${stdout}\nstderr:\n${stderr}` };
  } finally {
    clearTimeout(timer);
    killGroup(proc.pid);
  }
}

/** SIGKILL to a process group: what a block left running (a server, a pipe) ends with it. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

/** Runs one block as its page says: setup first, the server's URL for the one named, then the block. */
async function runBlock(block: Block): Promise<{ code: number | null; out: string }> {
  using home = tempDir("zerodb-docs-home-");
  let script = block.script;
  for (const need of block.servers) {
    if (!server) throw new Error("no server was started");
    const file = inHome(home.path, need.tokenFile);
    mkdirSync(dirname(file), { recursive: true });
    const made = await runZ(["token", "create", "--tenant", need.tenant, "--out", file], { home: serverHome.path });
    if (made.code !== 0) throw new Error(`token create for ${need.tenant}: ${made.stderr}`);
    script = script.split(need.url).join(server.url);
  }
  for (const setup of block.before) {
    const r = await sh(setup, home.path);
    if (r.code !== 0) return { code: r.code, out: `its setup (run after: ${setup}) failed:\n${r.out}` };
  }
  return await sh(script, home.path);
}

describe("issue 31: the comments that say how a block runs", () => {
  test("not run, run after, and run with a server are read; another `run` comment is reported", () => {
    const page = [
      "<!-- not run: needs the network -->",
      "```sh",
      "curl https://example.com",
      "```",
      "<!-- run after: echo hi > a.txt -->",
      "",
      "<!-- run with a server at http://127.0.0.1:7077, token ~/alice.tok -->",
      "```bash",
      "cat a.txt",
      "```",
      "```text",
      "```sh",
      "```",
      "<!-- run when it rains -->",
      "```console",
      "zerodb stats",
      "```",
      "<!-- a note for editors -->",
      "```shell",
      "zerodb sessions",
      "```",
    ].join("\n");
    expect(blocksOf("p.md", page)).toEqual([
      { where: "p.md:2", script: "curl https://example.com", notRun: "needs the network", before: [], servers: [], unreadable: [] },
      {
        where: "p.md:8",
        script: "cat a.txt",
        before: ["echo hi > a.txt"],
        servers: [{ url: "http://127.0.0.1:7077", tokenFile: "~/alice.tok", tenant: "alice" }],
        unreadable: [],
      },
      { where: "p.md:15", script: "zerodb stats", before: [], servers: [], unreadable: ["run when it rains"] },
      { where: "p.md:19", script: "zerodb sessions", before: [], servers: [], unreadable: [] },
    ]);
  });

  test("a failing command fails its block, a pipe's first command too, and the network is not reached", async () => {
    using home = tempDir("zerodb-docs-home-");
    expect((await sh("false\ntrue", home.path)).code).toBe(1);
    expect((await sh("false | true", home.path)).code).toBe(1);
    expect((await sh("zerodb --version", home.path)).code).toBe(0);
    expect((await sh("curl -fsS --max-time 20 https://example.com/", home.path)).code).not.toBe(0);
  });

  test("every comment beginning `run` or `not run` is one the test reads", () => {
    expect(blocks.filter((b) => b.unreadable.length > 0).map((b) => `${b.where}: ${b.unreadable.join("; ")}`)).toEqual([]);
  });
});

describe("issue 31: every shell block of README.md and docs/ runs as written", () => {
  expect(blocks.length).toBeGreaterThan(20);
  for (const block of blocks.filter((b) => b.notRun === undefined)) {
    test(
      block.where,
      async () => {
        const r = await runBlock(block);
        if (r.code !== 0) throw new Error(`${block.where} exited ${r.code ?? "on the time limit"}:\n${block.script}\n${r.out}`);
      },
      BLOCK_LIMIT_MS,
    );
  }

  for (const block of blocks.filter((b) => b.notRun !== undefined)) test.skip(`${block.where} (not run: ${block.notRun})`, () => {});

  test("the blocks not run here, by reason", () => {
    const byReason = new Map<string, string[]>();
    for (const b of blocks) if (b.notRun !== undefined) byReason.set(b.notRun, [...(byReason.get(b.notRun) ?? []), b.where]);
    console.log([...byReason].map(([why, where]) => `not run: ${why}: ${where.join(", ")}`).join("\n"));
    // Most blocks run: a page that marks nearly everything is not being tested.
    expect([...byReason.values()].flat().length).toBeLessThan(blocks.length / 2);
  });
});
