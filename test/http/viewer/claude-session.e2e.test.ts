/**
 * A real `claude -p` session browsed in a real headless Chromium (DESIGN.md
 * 13): Claude Code runs offline against a scripted Messages API on 127.0.0.1
 * (HARNESSES.md) with zerodb's capture hooks installed; the model reads a
 * picture (Claude Code's Read tool returns it as an image block) and runs a
 * shell command, then answers. `zerodb ui` then shows the captured session as
 * a chat: the prompt and replies open, the tool calls and results folded, the
 * picture inline from its object; search finds a word of the prompt and its
 * hit opens the turn in its session. Skips with a message when Chromium or
 * Claude Code cannot be had.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { type Browser, chromium } from "playwright-core";
import {
  type ScriptedBlock,
  type StoredTurn,
  logLines,
  onlyCaptureSession,
  readSession,
  runClaudeOffline,
  runJson,
  scriptedMessagesApi,
} from "../../capture/_fixtures.ts";
import { harnessBin } from "../../harness/_clis.ts";
import { tempDir } from "../../helpers.ts";
import { CHROMIUM, SHOTS, seriousViolations } from "./_browser.ts";
import { spawnUi } from "./_ui.ts";

if (CHROMIUM === undefined) console.warn("claude-session.e2e.test.ts: skipped: no chromium found (apt-get install -y chromium, or set ZERODB_CHROMIUM)");

const PROMPT = "what does the picture of the harbour lighthouse in lamp.png show?";
const REPLIES = ["Opening the picture.", "A yellow lamp, lit, on a dark blue night."];
/** PNG chunk: length, type, data, CRC-32 of type and data. */
function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(Bun.hash.crc32(body), body.length + 4);
  return out;
}

/** The picture the model reads: a 48×32 RGB PNG, a yellow lamp on a dark blue night. */
function lampPng(width = 48, height = 32): Buffer {
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < width; x++) {
      const lit = (x - width / 2) ** 2 + (y - height / 2) ** 2 < 64;
      rows.push(...(lit ? [255, 214, 10] : [12, 28, 72]));
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.from(rows))),
    chunk("IEND", new Uint8Array()),
  ]);
}
const PNG = lampPng();

/** The model's script, by how many tool results the conversation holds: read the picture, run a command, answer. */
function scriptedApi(picture: string) {
  const steps: ScriptedBlock[][] = [
    [{ text: REPLIES[0]! }, { tool: "Read", input: { file_path: picture } }],
    [{ tool: "Bash", input: { command: "echo tide-table", description: "Print the tide table" } }],
  ];
  return scriptedMessagesApi((body) => {
    const results = body.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => (b as { type?: string }).type === "tool_result").length;
    return steps[results] ?? [{ text: REPLIES[1]! }];
  });
}

describe.skipIf(CHROMIUM === undefined)("a captured claude -p session in the viewer", () => {
  let dir: ReturnType<typeof tempDir>;
  let browser: Browser | undefined;
  /** Undefined when Claude Code could not be installed (harnessBin said why). */
  let captured: { session: string; turns: StoredTurn[] } | undefined;

  beforeAll(async () => {
    dir = tempDir();
    const claude = await harnessBin("claude");
    if (!claude) return;
    mkdirSync(join(dir.path, ".claude"));
    const cwd = join(dir.path, "project");
    mkdirSync(cwd);
    const picture = join(cwd, "lamp.png");
    writeFileSync(picture, PNG);
    await runJson(["connect", "--capture", "--harness", "claude-code"], { home: dir.path });
    using api = scriptedApi(picture);
    const run = await runClaudeOffline(claude, { home: dir.path, cwd, api, args: [PROMPT, "--allowedTools", "Read", "Bash(echo:*)"] });
    expect({ code: run.code, stdout: run.stdout.trim(), stderr: run.stderr }).toEqual({ code: 0, stdout: REPLIES[1]!, stderr: "" });
    // SessionEnd may leave a tail to a detached catch-up: sync waits for nothing and leaves nothing behind.
    await runJson(["capture", "sync"], { home: dir.path, env: { CLAUDE_CONFIG_DIR: join(dir.path, ".claude") } });
    expect(await logLines(dir.path)).toEqual([]);
    const session = await onlyCaptureSession(dir.path);
    captured = { session, turns: await readSession(dir.path, session) };
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    mkdirSync(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    dir?.[Symbol.dispose]();
  });

  test("browse to the session, see the chat with its tool turns folded and the picture inline, search a word of the prompt and open its turn in context", async () => {
    if (!captured || !browser) return; // harnessBin said why
    const { session, turns } = captured;
    // What capture stored, which the page must show: the prompt, the replies, each tool's call and result, the picture as an object.
    const prompt = turns.filter((t) => t.meta.kind === "prompt");
    expect(prompt.map((t) => t.content)).toEqual([PROMPT]);
    expect(turns.filter((t) => t.meta.kind === "reply").map((t) => t.content)).toEqual(REPLIES);
    const calls = turns.filter((t) => t.meta.kind === "tool_call");
    expect(calls.map((t) => t.meta.tools)).toEqual([["Read"], ["Bash"]]);
    const results = turns.filter((t) => t.meta.kind === "tool_result");
    expect(results.length).toBe(2);
    const image = results[0]!.meta.images?.[0] as { object: string; type: string } | undefined;
    expect(image?.type).toBe("image/png");
    expect(results[1]!.content).toContain("tide-table");

    await using ui = spawnUi(dir.path);
    const link = await ui.firstLine();
    const origin = new URL(link).origin;
    const requested: string[] = [];
    const ctx = await browser.newContext();
    await ctx.route("**/*", (route) => {
      const url = route.request().url();
      requested.push(url);
      return url.startsWith(`${origin}/`) ? route.continue() : route.abort();
    });
    const page = await ctx.newPage();
    await page.goto(link);
    await page.waitForURL(`${origin}/ui`);

    // The overview lists the captured session under its project; its link opens the chat.
    const sessionLink = page.getByRole("link", { name: session, exact: true });
    expect(await sessionLink.count()).toBe(1);
    await Promise.all([page.waitForURL(/\/ui\/session\?s=/), sessionLink.click()]);
    expect(await page.locator("h1").textContent()).toBe(session);
    // Every captured turn is on the page (one page: fewer than 200), in LSN order.
    expect(await page.locator("article.turn").evaluateAll((els) => els.map((e) => e.id))).toEqual(turns.map((t) => `t${t.lsn}`));

    // Claude Code's bookkeeping (and zerodb's own context) between them is folded, each run under one line.
    const runs: StoredTurn[][] = [];
    turns.forEach((t, i) => {
      if (t.meta.noise === undefined) return;
      if (i > 0 && turns[i - 1]!.meta.noise !== undefined) runs.at(-1)!.push(t);
      else runs.push([t]);
    });
    expect(runs.length).toBeGreaterThan(2);
    const groups = page.locator("details.noise");
    expect(await groups.evaluateAll((els) => els.map((e) => [...e.querySelectorAll(":scope > article")].map((a) => a.id)))).toEqual(
      runs.map((r) => r.map((t) => `t${t.lsn}`)),
    );
    expect(await groups.evaluateAll((els) => els.filter((e) => e.hasAttribute("open")).length)).toBe(0);
    const first = runs[0]!;
    expect(await groups.first().locator("> summary").textContent()).toBe(
      `${first.length} bookkeeping turn${first.length === 1 ? "" : "s"} (harness metadata, zerodb's own context and calls) · LSN ${first.length === 1 ? first[0]!.lsn : `${first[0]!.lsn}–${first.at(-1)!.lsn}`}`,
    );
    expect(await page.locator(`article#t${first[0]!.lsn}`).isVisible()).toBe(false);

    const article = (lsn: number) => page.locator(`article#t${lsn}`);
    // The prompt and the replies are open, not folded.
    const asked = article(prompt[0]!.lsn);
    expect(await asked.getAttribute("class")).toBe("turn user");
    expect(await asked.locator("details").count()).toBe(0);
    expect(await asked.locator("pre").textContent()).toBe(PROMPT);
    expect(await asked.locator("pre").isVisible()).toBe(true);
    for (const reply of turns.filter((t) => t.meta.kind === "reply")) {
      expect(await article(reply.lsn).locator("details").count()).toBe(0);
      expect(await article(reply.lsn).locator("pre").textContent()).toBe(reply.content);
      expect(await article(reply.lsn).locator("pre").isVisible()).toBe(true);
    }
    // Each tool call is folded under its tool's name, its input in the fold.
    const [read, bash] = calls as [StoredTurn, StoredTurn];
    expect(await article(read.lsn).locator(".who strong").textContent()).toBe("tool call: Read");
    expect(await article(read.lsn).locator("summary").textContent()).toMatch(/^\[tool_use Read\] .*lamp\.png/);
    expect(await article(read.lsn).locator("details pre").isVisible()).toBe(false);
    expect(await article(read.lsn).locator("details pre").textContent()).toContain("lamp.png");
    expect(await article(bash.lsn).locator(".who strong").textContent()).toBe("tool call: Bash");
    expect(await article(bash.lsn).locator("summary").textContent()).toMatch(/^\[tool_use Bash\] .*echo tide-table/);
    expect(await article(bash.lsn).locator("details pre").textContent()).toContain("echo tide-table");
    // The command's result is folded: hidden until its summary is opened from the keyboard (a <details>, no script).
    const printed = article(results[1]!.lsn);
    expect(await printed.locator(".who strong").textContent()).toBe("tool result");
    expect(await printed.locator("details").getAttribute("open")).toBeNull();
    expect(await printed.locator("details pre").isVisible()).toBe(false);
    await printed.locator("summary").focus();
    await page.keyboard.press("Enter");
    expect(await printed.locator("details pre").isVisible()).toBe(true);
    expect(await printed.locator("details pre").textContent()).toContain("tide-table");
    // The picture the Read tool returned shows inline in its folded result, served from its object.
    const shown = article(results[0]!.lsn);
    const img = shown.locator("img.thumb");
    expect(await img.getAttribute("src")).toBe(`/ui/object/${image!.object}`);
    const served = page.waitForResponse(`${origin}/ui/object/${image!.object}`);
    await shown.locator("summary").click();
    const object = await served;
    expect(object.headers()["content-type"]).toBe("image/png");
    // The very bytes of the file the model read (Claude Code passed it on unchanged).
    expect(Buffer.compare(await object.body(), PNG)).toBe(0);
    await page.waitForFunction(`document.querySelector("article#t${results[0]!.lsn} img.thumb")?.naturalWidth === 48`);
    expect(await img.isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, "claude-session.png"), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    // The same page in dark mode passes axe-core too, and at a phone's width it is no wider than the screen.
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 375, height: 740 });
    // Every fold open, so the long lines of the bookkeeping (ids, hashes, JSON) are measured too.
    await page.evaluate(`document.querySelectorAll("details").forEach((d) => { d.open = true; })`);
    expect(await page.evaluate("document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth")).toBe(true);
    await page.screenshot({ path: join(SHOTS, "claude-session-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });

    // Search a word of the prompt from the navigation; the first hit is the prompt, highlighted, and the
    // others are its replies (they hold no query word), each linking the prompt as the match it follows.
    await Promise.all([page.waitForURL(`${origin}/ui/search`), page.getByRole("link", { name: "Search", exact: true }).click()]);
    await page.fill('input[name="q"]', "lighthouse");
    await Promise.all([page.waitForURL(/q=lighthouse/), page.press('input[name="q"]', "Enter")]);
    const all = page.locator(".hit");
    expect(await all.locator("mark").allTextContents()).toEqual(["lighthouse"]);
    const hits = all.first();
    expect(await hits.locator("pre").textContent()).toBe(PROMPT);
    const lsn0 = prompt[0]!.lsn;
    for (let i = 1; i < (await all.count()); i++) {
      expect(await all.nth(i).locator(`a[href="/ui/turn/${lsn0}"]`).textContent()).toBe(`LSN ${lsn0}`);
    }
    await page.screenshot({ path: join(SHOTS, "claude-search.png"), fullPage: true });
    // The hit's session link opens the session at that turn, the turn first and targeted.
    const lsn = prompt[0]!.lsn;
    await Promise.all([
      page.waitForURL(new RegExp(`/ui/session\\?s=.*&after=${lsn - 1}&at=${lsn}#t${lsn}$`)),
      hits.getByRole("link", { name: session }).click(),
    ]);
    expect(await page.locator("article.turn").first().getAttribute("id")).toBe(`t${lsn}`);
    expect(await page.locator("article.turn:target pre").textContent()).toBe(PROMPT);
    expect(await page.locator("article.turn").count()).toBe(turns.filter((t) => t.lsn >= lsn).length);
    // And its LSN link opens the turn's own page.
    await Promise.all([page.waitForURL(`${origin}/ui/turn/${lsn}`), page.locator(`article#t${lsn} .who a`).click()]);
    expect(await page.locator("h1").textContent()).toBe(`Turn ${lsn}`);
    expect(await page.locator("article.turn > pre").textContent()).toBe(PROMPT);

    // With bookkeeping included, a hit in a folded run (the prompt as Claude Code's last-prompt line) opens that run at the turn.
    const lastPrompt = turns.find((t) => t.meta.type === "last-prompt");
    expect(lastPrompt?.meta.noise).toBe("bookkeeping");
    await page.goto(`${origin}/ui/search?q=lighthouse&include_noise=1&limit=50`);
    const noiseHit = page.locator(".hit").filter({ has: page.getByRole("link", { name: `LSN ${lastPrompt!.lsn}`, exact: true }) });
    expect(await noiseHit.count()).toBe(1);
    await Promise.all([page.waitForURL(new RegExp(`#t${lastPrompt!.lsn}$`)), noiseHit.getByRole("link", { name: session }).click()]);
    expect(await page.locator(`details.noise:has(> article#t${lastPrompt!.lsn})`).getAttribute("open")).toBe("");
    expect(await page.locator("details.noise[open]").count()).toBe(1);
    expect(await page.locator(`article#t${lastPrompt!.lsn}`).isVisible()).toBe(true);
    expect(await page.locator("article.turn:target").getAttribute("id")).toBe(`t${lastPrompt!.lsn}`);

    expect(requested.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    await ctx.close();
    ui.proc.kill("SIGTERM");
    expect(await ui.proc.exited).toBe(0);
  }, 120_000);
});
