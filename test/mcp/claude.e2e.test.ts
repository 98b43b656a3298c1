/**
 * Claude Code's own health check of the server (HARNESSES.md: checking a
 * registration): `claude mcp list` starts `zerodb mcp`, initializes and lists
 * its tools, and prints whether it connected. Run offline: no API key, no
 * updater, no nonessential traffic.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ZERODB, tempDir } from "../helpers.ts";
import { harnessBin } from "../harness/_clis.ts";

// harnessBin prints why when it returns undefined; the test is then reported as skipped.
const claude = await harnessBin("claude");

async function runClaude(bin: string, args: string[], home: string) {
  const proc = Bun.spawn([bin, ...args], {
    cwd: home,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ZERODB_HOME: join(home, "zerodb"),
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      MCP_TIMEOUT: "20000",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

describe("Claude Code health check", () => {
  test.skipIf(!claude)(
    "claude mcp list shows zerodb as connected",
    async () => {
      using tmp = tempDir();
      const data = join(tmp.path, "data");
      const add = await runClaude(claude!, ["mcp", "add", "zerodb", "--", ZERODB, "mcp", "--data-dir", data], tmp.path);
      expect(add.code).toBe(0);
      const list = await runClaude(claude!, ["mcp", "list"], tmp.path);
      // It exits 0 even when a server fails: the verdict is in the output.
      expect(list.code).toBe(0);
      const line = list.stdout.split("\n").find((l) => l.startsWith("zerodb:"));
      expect(line, `claude mcp list printed:\n${list.stdout}\n${list.stderr}`).toBeDefined();
      expect(line).toContain(`${ZERODB} mcp --data-dir ${data}`);
      expect(line).toContain("✔ Connected");
      expect(line).not.toContain("Failed");
    },
    120_000,
  );
});
