/**
 * `zerodb mcp` figures (issue 4): start-up to a completed initialize (every
 * harness spawns the server afresh, DESIGN.md section 10), and remember and
 * search calls per second over stdio with the SDK's own client.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type Figure, ROOT, type Section, perSecond, ratio, repeat, scratch, summarize } from "./_lib.ts";
import { filler } from "./store.ts";

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
})}\n`;

/** Milliseconds from spawn to the first complete line on stdout (the initialize answer). */
async function msToInitialize(cmd: string[], env: Record<string, string>, cwd: string): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn(cmd, { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  proc.stdin.write(INITIALIZE);
  proc.stdin.flush();
  const reader = proc.stdout.getReader();
  let seen = "";
  let ms = Number.NaN;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    if (seen.includes("\n")) {
      ms = performance.now() - t0;
      break;
    }
  }
  proc.stdin.end();
  proc.kill();
  await proc.exited;
  if (!seen.includes('"protocolVersion"')) throw new Error(`${cmd.join(" ")} did not answer initialize: ${seen.slice(0, 200)}`);
  return ms;
}

/** The environment of a server under test: its own home, nothing of the user's. */
function envFor(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") };
}

const section: Section = {
  name: "mcp",
  async run(ctx) {
    const out: Figure[] = [];
    const home = scratch(ctx.tmp, "home");
    const bunStart = ctx.figures.get("machine: bun -e 0")?.value;

    const ours = await repeat(10, () => msToInitialize([ctx.bin, "mcp"], envFor(home), home));
    const start = summarize("zerodb mcp: spawn to initialize answer", ours, "ms");
    start.ratio = ratio("bun -e 0", start.value, bunStart);
    out.push(start);

    // The reference memory server under node, for scale (DESIGN.md section 10 quotes about 400 ms).
    const reference = resolve(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
    const refHome = scratch(ctx.tmp, "ref");
    mkdirSync(refHome, { recursive: true });
    const refEnv = { ...envFor(refHome), MEMORY_FILE_PATH: join(refHome, "memory.jsonl") };
    const theirs = await repeat(10, () => msToInitialize(["node", reference], refEnv, refHome));
    const ref = summarize("reference server-memory (node): spawn to initialize", theirs, "ms");
    out.push(ref);
    out[0]!.note = `${(ref.value / start.value).toFixed(1)}× faster than the reference server`;

    // Calls over stdio: one client, one server, sequential calls (a harness waits for each answer).
    const transport = new StdioClientTransport({ command: ctx.bin, args: ["mcp"], env: envFor(home), cwd: home, stderr: "ignore" });
    const client = new Client({ name: "bench", version: "0" });
    await client.connect(transport);
    try {
      const n = ctx.quick ? 200 : 1000;
      const remember = await repeat(3, async (r) => {
        const t0 = performance.now();
        for (let i = 0; i < n; i++) await client.callTool({ name: "remember", arguments: { content: filler(r * n + i), session: "bench/mcp" } });
        return perSecond(n, performance.now() - t0);
      });
      out.push(summarize("remember over stdio (durable, ~300 B)", remember, "calls/s", { note: `${n} sequential calls per run` }));
      const search = await repeat(3, async (r) => {
        const t0 = performance.now();
        for (let i = 0; i < n; i++) await client.callTool({ name: "search", arguments: { query: filler(r * n + i).split(" ")[i % 20]!, limit: 10 } });
        return perSecond(n, performance.now() - t0);
      });
      out.push(summarize(`search over stdio (limit 10, ${3 * n} turns stored)`, search, "calls/s"));
    } finally {
      await client.close();
    }
    return out;
  },
};

export default section;
