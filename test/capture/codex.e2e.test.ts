/**
 * A real `codex exec` session, offline (HARNESSES.md "Codex CLI": a custom
 * model provider pointed at a stand-in Responses API on 127.0.0.1), runs the
 * notify hook `zerodb connect --capture` installed, and the prompt and the
 * reply land in the directory's project session. Skips with a message when
 * the Codex CLI cannot be installed.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../src/project.ts";
import { harnessBin } from "../harness/_clis.ts";
import { runJson, tempDir } from "../helpers.ts";
import { keysOf, readSession, type StoredTurn } from "./_fixtures.ts";

/** An assistant message item of the Responses API. */
const say = (id: string, text: string) => ({ type: "message", role: "assistant", id, content: [{ type: "output_text", text, annotations: [] }] });

/**
 * A stand-in Responses API on 127.0.0.1: every POST .../responses is
 * answered, as server-sent events, with the one output item `next` makes
 * of the request's input (JSON) and the response's number.
 */
function standIn(next: (input: string, n: number) => Record<string, unknown> | Promise<Record<string, unknown>>): ReturnType<typeof Bun.serve> {
  const ev = (data: { type: string; [k: string]: unknown }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: null, output_tokens_details: null };
  let n = 0;
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (!new URL(req.url).pathname.endsWith("/responses")) return new Response("not found", { status: 404 });
      const input = JSON.stringify(((await req.json()) as { input?: unknown }).input ?? []);
      n++;
      const body = [
        ev({ type: "response.created", response: { id: `resp_${n}` } }),
        ev({ type: "response.output_item.done", output_index: 0, item: await next(input, n) }),
        ev({ type: "response.completed", response: { id: `resp_${n}`, usage } }),
      ].join("");
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  });
}

/**
 * Points Codex at a stand-in API on `port` (top-level keys before every table
 * of the config connect wrote, `features` and the provider's table after)
 * and runs `codex exec` in `project`; its exit code, output and thread id.
 * No ZERODB_HOME: the notify command pins the home connect used.
 */
async function codexExec(
  codex: string,
  opts: { home: string; project: string; port: number; prompt: string; features?: string },
): Promise<{ code: number; out: string; thread: string | undefined }> {
  const config = join(opts.home, ".codex", "config.toml");
  const provider = `[model_providers.local]\nname = "local"\nbase_url = "http://127.0.0.1:${opts.port}/v1"\nenv_key = "LOCAL_KEY"\nwire_api = "responses"\n`;
  writeFileSync(
    config,
    `model = "stand-in"\nmodel_provider = "local"\n${readFileSync(config, "utf8")}\n${opts.features ? `${opts.features}\n` : ""}${provider}`,
  );
  const proc = Bun.spawn([codex, "exec", "--skip-git-repo-check", opts.prompt], {
    cwd: opts.project,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: opts.home, LOCAL_KEY: "anything" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, thread: /session id: ([0-9a-f-]{36})/.exec(out + err)?.[1] };
}

/** Answers every request with one assistant message. */
const fakeResponses = (text: string) => standIn(() => say("msg_1", text));

test("Codex: a real `codex exec` runs the notify hook connect --capture installed; the turn lands in the project session", async () => {
  const codex = await harnessBin("codex");
  if (!codex) return console.warn("skipping: Codex CLI unavailable");
  using home = tempDir();
  mkdirSync(join(home.path, ".codex"));
  const project = join(home.path, "project");
  mkdirSync(project);
  const r = await runJson(["connect", "--capture", "--harness", "codex"], { home: home.path });
  expect(r.results.map((o: { what: string; status: string }) => [o.what, o.status])).toEqual([
    ["mcp", "added"],
    ["hooks", "added"],
    ["config", "added"],
  ]);
  await using api = fakeResponses("noted the word");
  const { code, out, thread } = await codexExec(codex, { home: home.path, project, port: api.port!, prompt: "remember the word zebra" });
  expect({ code, out: out.includes("noted the word") }).toEqual({ code: 0, out: true });
  expect(thread).toBeDefined();
  const session = captureSession(projectSession(project), thread!);
  // Codex starts notify without waiting for it: wait for the condition (the reply stored), bounded.
  let turns: StoredTurn[] = [];
  for (let i = 0; i < 200; i++) {
    const names = (await runJson(["sessions"], { home: home.path })) as { sessions?: { name: string }[] };
    if (JSON.stringify(names).includes(session)) {
      turns = await readSession(home.path, session);
      if (turns.some((t) => t.content === "noted the word")) break;
    }
    await Bun.sleep(50);
  }
  const said = turns.filter((t) => t.meta?.kind === "prompt" || t.meta?.kind === "reply").map((t) => [t.role, t.content]);
  expect(said).toEqual([
    ["user", "remember the word zebra"],
    ["assistant", "noted the word"],
  ]);
  expect(turns.every((t) => t.idem_key?.startsWith(`codex:${thread}:`))).toBe(true);
}, 180_000);

/** A stand-in Responses API that has the parent spawn one subagent (multi_agent v1's spawn_agent), the subagent answer, then the parent finish. */
function spawningResponses(codexHome: string): ReturnType<typeof Bun.serve> {
  return standIn(async (input, n) => {
    if (input.includes("function_call_output")) {
      // spawn_agent answers at once: the parent's last reply waits until the child's rollout holds its
      // own reply, so `codex exec` never ends (and stops the child) before the child has said it.
      await childSaid(codexHome, "koala");
      return say(`msg_${n}`, "the subagent said koala");
    }
    return input.includes("say the word koala")
      ? say(`msg_${n}`, "koala")
      : {
          type: "function_call",
          id: `fc_${n}`,
          call_id: "call_spawn",
          name: "spawn_agent",
          namespace: "multi_agent_v1",
          arguments: '{"message":"say the word koala"}',
        };
  });
}

/** Resolves once a spawned thread's rollout under `codexHome`/sessions holds `text` as its reply (at most a minute). */
async function childSaid(codexHome: string, text: string): Promise<void> {
  const reply = `"output_text","text":${JSON.stringify(text)}`;
  for (let i = 0; i < 600; i++) {
    let files: string[] = [];
    try {
      files = readdirSync(join(codexHome, "sessions"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
    } catch {}
    for (const f of files) {
      const body = readFileSync(join(codexHome, "sessions", f), "utf8");
      if (body.includes('"thread_spawn"') && body.includes(reply)) return;
    }
    await Bun.sleep(100);
  }
}

test("Codex: a real subagent spawned by `codex exec` (multi_agent) is captured into its parent thread's session, marked as a sidechain", async () => {
  const codex = await harnessBin("codex");
  if (!codex) return console.warn("skipping: Codex CLI unavailable");
  using home = tempDir();
  mkdirSync(join(home.path, ".codex"));
  const project = join(home.path, "project");
  mkdirSync(project);
  await runJson(["connect", "--capture", "--harness", "codex"], { home: home.path });
  await using api = spawningResponses(join(home.path, ".codex"));
  const features = "[features]\nmulti_agent = true\n";
  const { code, out, thread } = await codexExec(codex, { home: home.path, project, port: api.port!, prompt: "ask a helper for a word", features });
  expect({ code, out: out.includes("the subagent said koala") }).toEqual({ code: 0, out: true });
  expect(thread).toBeDefined();
  const session = captureSession(projectSession(project), thread!);
  // Whatever the notify hooks (detached) caught of either thread by now, capture sync finishes both rollouts, no line twice.
  const sync = await runJson(["capture", "sync"], {
    home: home.path,
    env: { CODEX_HOME: join(home.path, ".codex"), CLAUDE_CONFIG_DIR: join(home.path, "none") },
  });
  expect(sync.warnings).toEqual([]);
  const turns = await readSession(home.path, session);
  expect(keysOf(turns).duplicates).toEqual([]);
  const child = turns.filter((t) => t.meta?.isSidechain === true);
  const childThread = child[0]?.meta?.agent_id as string | undefined;
  expect(childThread).toMatch(/^[0-9a-f-]{36}$/);
  expect(childThread).not.toBe(thread);
  expect(child.every((t) => t.meta?.agent_id === childThread && t.idem_key?.startsWith(`codex:${childThread}:`))).toBe(true);
  expect(child.some((t) => t.meta?.kind === "reply" && t.content === "koala")).toBe(true);
  const parent = turns.filter((t) => t.meta?.isSidechain !== true);
  expect(parent.every((t) => t.idem_key?.startsWith(`codex:${thread}:`))).toBe(true);
  expect(parent.some((t) => t.meta?.kind === "reply" && t.content === "the subagent said koala")).toBe(true);
  // The child's session_meta as Codex wrote it: what capture relies on.
  const meta = child.find((t) => t.meta?.type === "session_meta");
  expect(meta?.content).toContain(`"thread_spawn":{"parent_thread_id":"${thread}"`);
}, 180_000);
