/**
 * Start-up figures (DESIGN.md section 10: start-up is a feature; the hook
 * runs on every prompt and every harness spawns `zerodb mcp` afresh). Each
 * is set beside `bun -e 0` and `node -e 0` from the machine section of the
 * same run, and beside a bare compiled Bun binary built here with the same
 * flags: the floor no command can go under.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Figure, type Section, ratio, repeat, scratch, summarize } from "./_lib.ts";

/** Milliseconds from spawn to exit. */
async function msToExit(cmd: string[], opts: { env: Record<string, string>; cwd: string; stdin?: string }): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { ...opts, stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]), stdout: "ignore", stderr: "ignore" });
  const code = await p.exited;
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}`);
  return ms;
}

/** Milliseconds from spawn to the first complete stdout line, after writing `request` on stdin. */
async function msToFirstLine(cmd: string[], request: string, opts: { env: Record<string, string>; cwd: string }): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { ...opts, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  p.stdin.write(request);
  p.stdin.flush();
  const decoder = new TextDecoder();
  let seen = "";
  let ms = Number.NaN;
  for await (const chunk of p.stdout) {
    seen += decoder.decode(chunk, { stream: true });
    if (seen.includes("\n")) {
      ms = performance.now() - t0;
      break;
    }
  }
  p.stdin.end();
  p.kill();
  await p.exited;
  if (!seen.includes('"result"')) throw new Error(`${cmd.join(" ")} gave no answer: ${seen.slice(0, 200)}`);
  return ms;
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench-startup", version: "0" } },
})}\n`;

const section: Section = {
  name: "startup",
  async run(ctx) {
    const n = ctx.quick ? 10 : 30;
    const home = scratch(ctx.tmp, "home");
    const opts = { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") }, cwd: home };
    const bun = ctx.figures.get("machine: bun -e 0")?.value;
    const node = ctx.figures.get("machine: node -e 0")?.value;
    const out: Figure[] = [];
    const add = (f: Figure, target?: string) => {
      f.ratio = ratio("bun -e 0", f.value, bun, target);
      if (node !== undefined) f.note = `${(f.value / node).toFixed(2)}× node -e 0`;
      out.push(f);
      return f;
    };

    // The floor: a compiled binary that does nothing, built with the release flags.
    const bare = join(ctx.tmp, "bare");
    await Bun.write(join(ctx.tmp, "bare.ts"), "process.exitCode = 0;\n");
    const built = Bun.spawnSync([process.execPath, "build", join(ctx.tmp, "bare.ts"), "--compile", "--bytecode", "--format=cjs", "--outfile", bare], {
      stdout: "ignore",
      stderr: "pipe",
    });
    if (built.exitCode !== 0) throw new Error(`bare build failed: ${built.stderr.toString()}`);
    add(summarize("bare compiled Bun binary: spawn to exit", await repeat(n, () => msToExit([bare], opts)), "ms"));

    // One warm-up so the first sample does not pay for creating the home and the store.
    await msToExit([ctx.bin, "stats"], opts);
    add(summarize("zerodb version: spawn to exit", await repeat(n, () => msToExit([ctx.bin, "version"], opts)), "ms"), "≤ 3×");
    add(summarize("zerodb stats: spawn to exit", await repeat(n, () => msToExit([ctx.bin, "stats"], opts)), "ms"));
    add(summarize("zerodb mcp: spawn to initialize answer", await repeat(n, () => msToFirstLine([ctx.bin, "mcp"], INITIALIZE, opts)), "ms"));

    // The hook runs on every prompt; its usual run finds nothing new in the transcript (the cursor is at its end).
    const project = join(home, "project");
    mkdirSync(project, { recursive: true });
    const transcript = join(home, "transcript.jsonl");
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: "user", sessionId: "bench", cwd: project, uuid: "u1", message: { role: "user", content: "bench prompt" } })}\n`,
    );
    const event = (name: string) => JSON.stringify({ session_id: "bench", transcript_path: transcript, cwd: project, hook_event_name: name });
    await msToExit([ctx.bin, "hook", "claude-code"], { ...opts, stdin: event("Stop") });
    const hook = await repeat(n, () => msToExit([ctx.bin, "hook", "claude-code"], { ...opts, stdin: event("UserPromptSubmit") }));
    add(summarize("zerodb hook claude-code, no-op: spawn to exit", hook, "ms"));
    return out;
  },
};

export default section;
