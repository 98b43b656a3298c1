/**
 * A real `codex exec` session, offline (HARNESSES.md "Codex CLI": a custom
 * model provider pointed at a stand-in Responses API on 127.0.0.1), runs the
 * notify hook `zerodb connect --capture` installed, and the prompt and the
 * reply land in the directory's project session. Skips with a message when
 * the Codex CLI cannot be installed.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../src/project.ts";
import { harnessBin } from "../harness.ts";
import { runJson, tempDir } from "../helpers.ts";
import { readSession, type StoredTurn } from "./_fixtures.ts";

/** Answers every POST /v1/responses with one assistant message, as server-sent events. */
function fakeResponses(text: string): ReturnType<typeof Bun.serve> {
  const ev = (data: { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      if (!new URL(req.url).pathname.endsWith("/responses")) return new Response("not found", { status: 404 });
      const item = { type: "message", role: "assistant", id: "msg_1", content: [{ type: "output_text", text, annotations: [] }] };
      const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: null, output_tokens_details: null };
      const body = [
        ev({ type: "response.created", response: { id: "resp_1" } } as { type: string }),
        ev({ type: "response.output_item.done", output_index: 0, item } as { type: string }),
        ev({ type: "response.completed", response: { id: "resp_1", usage } } as { type: string }),
      ].join("");
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  });
}

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
  // The stand-in provider: top-level keys before every table, the provider's table after.
  const config = join(home.path, ".codex", "config.toml");
  writeFileSync(
    config,
    `model = "stand-in"\nmodel_provider = "local"\n${readFileSync(config, "utf8")}\n[model_providers.local]\nname = "local"\nbase_url = "http://127.0.0.1:${api.port}/v1"\nenv_key = "LOCAL_KEY"\nwire_api = "responses"\n`,
  );
  // No ZERODB_HOME: the notify command pins the home connect used.
  const proc = Bun.spawn([codex, "exec", "--skip-git-repo-check", "remember the word zebra"], {
    cwd: project,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home.path, LOCAL_KEY: "anything" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, out: out.includes("noted the word") }).toEqual({ code: 0, out: true });
  const thread = /session id: ([0-9a-f-]{36})/.exec(out + err)?.[1];
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
