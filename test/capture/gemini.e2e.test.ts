/**
 * A real `gemini -p` session, offline (HARNESSES.md "Gemini CLI": the base
 * URL pointed at a stand-in Gemini API on 127.0.0.1, in a trusted folder),
 * runs the hooks `zerodb connect --capture` installed, and the prompt and
 * the reply land in the directory's project session. Skips with a message
 * when the Gemini CLI cannot be installed.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../src/project.ts";
import { harnessBin } from "../harness/_clis.ts";
import { runJson, tempDir } from "../helpers.ts";
import { logLines, readSession } from "./_fixtures.ts";

/** Answers the chat stream with one text and the router's and summary's calls with a small JSON text. */
function fakeGemini(text: string): ReturnType<typeof Bun.serve> {
  const usageMetadata = { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 };
  const answer = (t: string) => ({ candidates: [{ content: { role: "model", parts: [{ text: t }] }, finishReason: "STOP", index: 0 }], usageMetadata });
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path.includes(":streamGenerateContent"))
        return new Response(`data: ${JSON.stringify(answer(text))}\r\n\r\n`, { headers: { "content-type": "text/event-stream" } });
      if (path.includes(":generateContent")) return Response.json(answer(JSON.stringify({ reasoning: "simple", model_choice: "flash" })));
      if (path.includes(":countTokens")) return Response.json({ totalTokens: 1 });
      return new Response("{}", { status: 404 });
    },
  });
}

test("Gemini CLI: a real `gemini -p` runs the hooks connect --capture installed; the turn lands in the project session", async () => {
  const gemini = await harnessBin("gemini");
  if (!gemini) return console.warn("skipping: Gemini CLI unavailable");
  using home = tempDir();
  mkdirSync(join(home.path, ".gemini"));
  const project = join(home.path, "project");
  const tmp = join(home.path, "tmp");
  mkdirSync(project);
  mkdirSync(tmp);
  const r = await runJson(["connect", "--capture", "--harness", "gemini"], { home: home.path });
  expect(r.results.map((o: { what: string; status: string }) => [o.what, o.status])).toEqual([
    ["mcp", "added"],
    ["hooks", "added"],
    ["config", "added"],
  ]);
  const settingsPath = join(home.path, ".gemini", "settings.json");
  const settings = JSON.parse(readFileSync(settingsPath, "utf8"));
  writeFileSync(settingsPath, JSON.stringify({ ...settings, security: { auth: { selectedType: "gemini-api-key" } } }, null, 2));
  writeFileSync(join(home.path, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
  await using api = fakeGemini("noted the word");
  const proc = Bun.spawn([gemini, "-p", "remember the word zebra"], {
    cwd: project,
    // No ZERODB_HOME: the hook command pins the home connect used.
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home.path,
      TMPDIR: tmp,
      GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${api.port}`,
      GEMINI_API_KEY: "anything",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  const [out, , code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, out: out.includes("noted the word") }).toEqual({ code: 0, out: true });
  const chats = join(home.path, ".gemini", "tmp", "project", "chats");
  const sessionId = JSON.parse(readFileSync(join(chats, Array.from(new Bun.Glob("session-*.jsonl").scanSync(chats))[0]!), "utf8").split("\n")[0]!).sessionId;
  // Gemini waits for its hooks: the turns are stored when it exits.
  const turns = await readSession(home.path, captureSession(projectSession(project), sessionId));
  const said = turns.filter((t) => t.meta?.kind === "prompt" || t.meta?.kind === "reply").map((t) => [t.role, t.content]);
  expect(said).toEqual([
    ["user", "remember the word zebra"],
    ["assistant", "noted the word"],
  ]);
  // The $set that seeds the history (Gemini's session context) is bookkeeping, not a prompt.
  expect(turns.find((t) => t.meta?.type === "$set")?.meta.noise).toBe("bookkeeping");
  expect(await logLines(home.path)).toEqual([]);
}, 180_000);
