/**
 * Issue 19's figures for the harnesses beyond Claude Code: each one's capture
 * hook, spawn to exit, for a 64-entry run (the target of DESIGN.md 7.2,
 * < 50 ms p95, as Claude Code's), and `capture sync`'s backfill throughput
 * in MiB of transcript per second (target ≥ 50 MiB/s), compressed Codex
 * rollouts included, and Claude Code's, beside bare SQLite writing the rows
 * it stored, in the same transactions, just after it (issue 32, _bare.ts). The transcripts come from the capture tests' fixture
 * writers (test/capture/_codex.ts, _gemini.ts, _opencode.ts, _fixtures.ts), each checked
 * against the real CLI's format there. Every run's result is checked in the
 * store: a figure never times a run that stored less than it says.
 */
import { appendFileSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rolloutLines } from "../../test/capture/_codex.ts";
import { conversation } from "../../test/capture/_fixtures.ts";
import { chatHead, msg } from "../../test/capture/_gemini.ts";
import { opencodeDb } from "../../test/capture/_opencode.ts";
import { type Figure, type Section, connectedHome, percentile, ratio, scratch } from "./_lib.ts";
import { bareStore, bareWrite, capturedTransactions } from "./_bare.ts";

const MiB = 1024 * 1024;
const THREAD = "019a0000-bbbb-7000-8000-00000000beef";
const GEMINI_SESSION = "bench000-0000-4000-8000-000000000000";
const jsonl = (v: unknown) => `${JSON.stringify(v)}\n`;

/** A home with one project directory; the environment a hook or sync sees there. */
function layout(parent: string, name: string) {
  const home = scratch(parent, name);
  const cwd = join(home, "work", "app");
  mkdirSync(cwd, { recursive: true });
  // As `zerodb connect --capture` leaves it: every hook run and backfill reads its config.json.
  connectedHome(home);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb"), CODEX_HOME: join(home, ".codex") };
  return { home, cwd, env };
}

/** Milliseconds from spawn to exit; throws unless it exited 0. */
async function timed(cmd: string[], opts: { cwd: string; env: Record<string, string>; stdin?: string }): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, {
    cwd: opts.cwd,
    env: opts.env,
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "ignore",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`${cmd.slice(1).join(" ")} exited ${code}: ${err.slice(0, 300)}`);
  return ms;
}

/** How many turns the store of a home holds. */
async function storedTurns(bin: string, env: Record<string, string>, cwd: string): Promise<number> {
  const p = Bun.spawn([bin, "stats", "--json"], { cwd, env, stdout: "pipe", stderr: "ignore" });
  return (JSON.parse(await new Response(p.stdout).text()) as { turns: { count: number } }).turns.count;
}

/** A harness: how to grow its transcript by 64 entries, how to run its hook, and a backfill fixture. */
interface Harness {
  name: string;
  /** Sets up the transcript and returns a function adding 64 entries. */
  start(h: ReturnType<typeof layout>): () => void;
  hook(bin: string, h: ReturnType<typeof layout>): string[] | { cmd: string[]; stdin: string };
  /** Writes a transcript of about `mib` MiB (or more); returns its size in bytes. */
  backfill(h: ReturnType<typeof layout>, mib: number): number;
}

function codexPaths(h: ReturnType<typeof layout>): string {
  const dir = join(h.home, ".codex", "sessions", "2026", "11", "30");
  mkdirSync(dir, { recursive: true });
  return join(dir, `rollout-2026-11-30T10-00-00-${THREAD}.jsonl`);
}

/** Codex rollout lines of `turns` turns (8 lines each) after its 4 head lines, numbered from `from`. */
function codexTurns(cwd: string, turns: number, from: number): string {
  return rolloutLines(THREAD, cwd, turns, `step ${from}`)
    .slice(4, 4 + 8 * turns)
    .map(jsonl)
    .join("");
}

const codex = (compressed: boolean): Harness => ({
  name: compressed ? "Codex (.jsonl.zst)" : "Codex",
  start(h) {
    const path = codexPaths(h);
    writeFileSync(path, rolloutLines(THREAD, h.cwd, 0).slice(0, 4).map(jsonl).join(""));
    let n = 0;
    return () => appendFileSync(path, codexTurns(h.cwd, 8, n++));
  },
  hook: (bin, h) => [bin, "hook", "codex", JSON.stringify({ type: "agent-turn-complete", "thread-id": THREAD, cwd: h.cwd })],
  backfill(h, mib) {
    const path = codexPaths(h);
    const parts = [rolloutLines(THREAD, h.cwd, 0).slice(0, 4).map(jsonl).join("")];
    let size = parts[0]!.length;
    // Turns with realistic tool outputs of a few KB.
    for (let i = 0; size < mib * MiB; i++) {
      const text = codexTurns(h.cwd, 1, i).replace(/"output":"([^"]*)"/, (_m, o) => `"output":"${`${o} `.repeat(200)}"`);
      parts.push(text);
      size += Buffer.byteLength(text);
    }
    const bytes = Buffer.from(parts.join(""));
    if (compressed) writeFileSync(`${path}.zst`, Bun.zstdCompressSync(bytes, { level: 3 }));
    else writeFileSync(path, bytes);
    return bytes.length;
  },
});

function geminiChat(h: ReturnType<typeof layout>): string {
  const project = join(h.home, ".gemini", "tmp", "app");
  mkdirSync(join(project, "chats"), { recursive: true });
  writeFileSync(join(project, ".project_root"), h.cwd);
  return join(project, "chats", "session-2026-11-30T10-00-bench000.jsonl");
}

/** 64 Gemini message lines numbered from `from`: prompts, replies with a tool call, plain replies. */
function geminiLines(from: number, count = 64, pad = 1): string {
  let out = "";
  for (let i = from; i < from + count; i++) {
    const id = `m${i}`;
    if (i % 3 === 0) out += jsonl(msg.user(id, `step ${i} please continue`));
    else if (i % 3 === 1) out += jsonl(msg.tool(id, `c${i}`, `step ${i} output `.repeat(20 * pad)));
    else out += jsonl(msg.gemini(id, `step ${i} done `.repeat(10 * pad)));
  }
  return out;
}

const gemini: Harness = {
  name: "Gemini CLI",
  start(h) {
    const path = geminiChat(h);
    writeFileSync(path, jsonl(chatHead(GEMINI_SESSION)));
    let n = 0;
    return () => {
      appendFileSync(path, geminiLines(n));
      n += 64;
    };
  },
  hook: (bin, h) => ({
    cmd: [bin, "hook", "gemini"],
    stdin: JSON.stringify({ session_id: GEMINI_SESSION, transcript_path: geminiChat(h), cwd: h.cwd, hook_event_name: "AfterAgent" }),
  }),
  backfill(h, mib) {
    const path = geminiChat(h);
    const parts = [jsonl(chatHead(GEMINI_SESSION))];
    let size = parts[0]!.length;
    for (let n = 0; size < mib * MiB; n += 64) {
      const text = geminiLines(n, 64, 10);
      parts.push(text);
      size += Buffer.byteLength(text);
    }
    writeFileSync(path, parts.join(""));
    return size;
  },
};

/** The opencode fixture of a home and its session, made once per home. */
const opencodeHomes = new Map<string, { oc: ReturnType<typeof opencodeDb>; session: string }>();
function opencodeOf(h: ReturnType<typeof layout>) {
  let found = opencodeHomes.get(h.home);
  if (!found) {
    const oc = opencodeDb(h.home);
    found = { oc, session: oc.session(h.cwd) };
    opencodeHomes.set(h.home, found);
  }
  return found;
}

const opencode: Harness = {
  name: "opencode",
  start(h) {
    const { oc, session } = opencodeOf(h);
    let n = 0;
    return () => {
      // 5 exchanges of 12 records, then a prompt of 3 records answered by a finished reply: 64 records.
      oc.db.run("BEGIN");
      for (let i = 0; i < 5; i++) oc.exchange(session, n++, "step");
      oc.assistant(session, oc.user(session, ["go on", "and then"]));
      oc.db.run("COMMIT");
    };
  },
  hook: (bin, h) => [bin, "hook", "opencode", opencodeOf(h).session],
  backfill(h, mib) {
    const { oc, session } = opencodeOf(h);
    const size = () =>
      oc.db.query<{ n: number }, []>("SELECT (SELECT coalesce(sum(length(data)), 0) FROM part) + (SELECT sum(length(data)) FROM message) AS n").get()!.n;
    const out = "output of the command ".repeat(150);
    oc.db.run("BEGIN");
    for (let i = 0; size() < mib * MiB; i++) {
      for (let k = 0; k < 20; k++) oc.exchange(session, i * 20 + k, out);
    }
    oc.db.run("COMMIT");
    return size();
  },
};

/** Claude Code, for its backfill only (its hook is timed by the hook section): the Codex turns' shape, a prompt, a tool call, its few-KB result and a reply. */
const claudeCode: Pick<Harness, "name" | "backfill"> = {
  name: "Claude Code",
  backfill(h, mib) {
    const id = "bench000-0000-4000-8000-00000000c1a0";
    const dir = join(h.home, ".claude", "projects", h.cwd.replace(/[^A-Za-z0-9]/g, "-"));
    mkdirSync(dir, { recursive: true });
    const c = conversation(id, h.cwd);
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < mib * MiB; i++) {
      const text = [
        c.user(`step ${i}: run the tests and fix what fails`),
        c.assistant([{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: `npm test -- --grep step${i}` } }]),
        c.toolResult(`toolu_${i}`, `step ${i} output `.repeat(200)),
        c.assistant([{ type: "text", text: `step ${i} answer` }]),
      ]
        .map(jsonl)
        .join("");
      parts.push(text);
      size += Buffer.byteLength(text);
    }
    writeFileSync(join(dir, `${id}.jsonl`), parts.join(""));
    return size;
  },
};

const section: Section = {
  name: "harnesses",
  async run(ctx) {
    const runs = ctx.quick ? 15 : 40;
    const mib = ctx.quick ? 8 : 32;
    const bun = ctx.figures.get("machine: bun -e 0")?.value;
    const figures: Figure[] = [];
    for (const harness of [codex(false), gemini, opencode]) {
      const h = layout(ctx.tmp, `hook-${harness.name.replace(/\W+/g, "-")}`);
      const add = harness.start(h);
      const spec = harness.hook(ctx.bin, h);
      const { cmd, stdin } = Array.isArray(spec) ? { cmd: spec, stdin: undefined } : spec;
      // Warm-up: the first run creates the home, the store and the cursor.
      add();
      await timed(cmd, { cwd: h.cwd, env: h.env, stdin });
      const before = await storedTurns(ctx.bin, h.env, h.cwd);
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        add();
        ms.push(await timed(cmd, { cwd: h.cwd, env: h.env, ...(stdin !== undefined ? { stdin } : {}) }));
      }
      const stored = (await storedTurns(ctx.bin, h.env, h.cwd)) - before;
      if (stored !== 64 * runs) throw new Error(`${harness.name}: ${runs} hook runs stored ${stored} entries, not ${64 * runs}`);
      const p95 = percentile(ms, 95);
      figures.push({
        name: `${harness.name} hook, 64-entry run: spawn to exit p95`,
        value: p95,
        unit: "ms",
        min: Math.min(...ms),
        max: Math.max(...ms),
        runs: ms.length,
        ratio: ratio("bun -e 0", p95, bun),
        note: "target < 50 ms",
      });
    }
    for (const harness of [codex(false), codex(true), gemini, opencode, claudeCode]) {
      const h = layout(ctx.tmp, `sync-${harness.name.replace(/\W+/g, "-")}`);
      const bytes = harness.backfill(h, mib);
      const ms = await timed([ctx.bin, "capture", "sync", "--json"], { cwd: h.cwd, env: h.env });
      const stored = await storedTurns(ctx.bin, h.env, h.cwd);
      if (stored === 0) throw new Error(`${harness.name}: capture sync stored nothing`);
      const disk = harness.name.includes(".zst")
        ? ` (${(statSync(join(h.home, ".codex", "sessions", "2026", "11", "30", `rollout-2026-11-30T10-00-00-${THREAD}.jsonl.zst`)).size / MiB).toFixed(1)} MiB on disk)`
        : "";
      // The reference: the rows the sync stored, in its transactions, written by bare SQLite into a fresh store.
      const txs = capturedTransactions(join(h.env.ZERODB_HOME, "data"));
      const bareMs = bareWrite(bareStore(scratch(ctx.tmp, `bare-${harness.name.replace(/\W+/g, "-")}`)), txs);
      const rate = bytes / MiB / (ms / 1000);
      figures.push({
        name: `${harness.name} backfill (capture sync)`,
        value: rate,
        unit: "MiB/s",
        ratio: ratio("bare SQLite, same rows and transactions", rate, bytes / MiB / (bareMs / 1000)),
        note: `${(bytes / MiB).toFixed(1)} MiB of transcript${disk}, ${stored} entries in ${txs.length} commits; bare SQLite ${bareMs.toFixed(0)} ms against ${ms.toFixed(0)} ms spawn to exit; target ≥ 50 MiB/s`,
      });
    }
    for (const { oc } of opencodeHomes.values()) oc.close();
    opencodeHomes.clear();
    return figures;
  },
};

export default section;
