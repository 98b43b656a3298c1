/** `zerodb ui` (DESIGN.md 13): a loopback server for the local store, its one-time link on stdout, spent on first use. */
import { expect, test } from "bun:test";
import { ZERODB, runZ, tempDir } from "../../helpers.ts";
import { envFor } from "../_server.ts";

test("zerodb ui --no-open prints a one-time link to a loopback viewer of tenant local", async () => {
  using dir = tempDir();
  expect((await runZ(["append", "--session", "proj/ui", "hello from the local store"], { home: dir.path })).code).toBe(0);
  await using proc = spawnUi(dir.path);
  const link = await proc.firstLine();
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/login\/once\?code=[A-Za-z0-9_-]{43}$/);
  const first = await fetch(link, { redirect: "manual" });
  expect(first.status).toBe(303);
  const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
  const page = await fetch(new URL("/ui", link), { headers: { cookie } });
  const html = await page.text();
  expect(html).toContain("tenant local");
  expect(html).toContain("proj/ui");
  // The user's own machine: its transcripts (none in this empty home), not only the cursors.
  expect(await (await fetch(new URL("/ui/capture", link), { headers: { cookie } })).text()).toContain("No Claude Code, Codex or Gemini CLI transcripts found.");
  // Spent: the URL left in history logs nobody in.
  expect((await fetch(link, { redirect: "manual" })).status).toBe(401);
  proc.proc.kill("SIGTERM");
  expect(await proc.proc.exited).toBe(0);
});

/** `zerodb ui --no-open` in `home`, with its stdout read line by line. */
function spawnUi(home: string) {
  const proc = Bun.spawn([ZERODB, "ui", "--no-open"], { cwd: home, env: envFor(home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return {
    proc,
    async firstLine(): Promise<string> {
      let text = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        text += decoder.decode(chunk, { stream: true });
        if (text.includes("\n")) return text.split("\n")[0]!;
      }
      throw new Error(`zerodb ui printed no link; stderr: ${await new Response(proc.stderr).text()}`);
    },
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}
