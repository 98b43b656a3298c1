/**
 * Issue 33 in a real headless Chromium against a real `zerodb serve`: the
 * "as of" control on the session, search and facts pages shows memory as
 * it was, a bad point is an error naming as_of, and a session downloads as
 * the Markdown `zerodb export --format markdown` writes, markup escaped.
 * Skips with a message when no Chromium is installed (see _browser.ts).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { tempDir } from "../../helpers.ts";
import { type ServerProcess, createToken, startServer } from "../_server.ts";
import { CHROMIUM } from "./_browser.ts";

if (CHROMIUM === undefined) console.warn("history.browser.test.ts: skipped: no chromium found (apt-get install -y chromium, or set ZERODB_CHROMIUM)");

describe.skipIf(CHROMIUM === undefined)("issue 33: the viewer as of a point, and a session as Markdown", () => {
  setDefaultTimeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess;
  let browser: Browser;
  let token: string;
  const lsns: number[] = [];
  let factLsn = 0;

  async function api<T>(path: string, init: RequestInit): Promise<T> {
    const res = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  async function loggedIn(): Promise<BrowserContext> {
    const ctx = await browser.newContext({ acceptDownloads: true });
    await ctx.route("**/*", (route) => (route.request().url().startsWith(`${server.url}/`) ? route.continue() : route.abort()));
    const page = await ctx.newPage();
    await page.goto(`${server.url}/`);
    await page.fill('input[name="token"]', token);
    await Promise.all([page.waitForURL(`${server.url}/ui`), page.click('button[type="submit"]')]);
    await page.close();
    return ctx;
  }

  beforeAll(async () => {
    dir = tempDir();
    server = await startServer(dir.path);
    token = await createToken(dir.path, "alice");
    const append = async (content: string) =>
      lsns.push(
        (
          await api<{ entries: { lsn: number }[] }>("/v1/turns", {
            method: "POST",
            body: JSON.stringify({ session: "proj/s", entries: [{ role: "user", content }] }),
          })
        ).entries[0]!.lsn,
      );
    await append("first: the cormorant plan <b>bold?</b>");
    factLsn = (await api<{ lsn: number }>("/v1/facts/deploy/target", { method: "PUT", body: JSON.stringify({ value: "staging" }) })).lsn;
    await append("second: cormorant revised");
    await api("/v1/facts/deploy/target", { method: "PUT", body: JSON.stringify({ value: "prod" }) });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.[Symbol.asyncDispose]();
    dir?.[Symbol.dispose]();
  });

  test("a session page as of a point, through its form; a bad point is refused naming as_of", async () => {
    const ctx = await loggedIn();
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/session?s=proj%2Fs`);
    expect(await page.locator("article.turn").count()).toBe(2);
    await page.fill('form[aria-label="As of"] input[name="as_of"]', String(factLsn));
    await Promise.all([page.waitForURL(/as_of=/), page.click('form[aria-label="As of"] button')]);
    expect(await page.locator("article.turn").count()).toBe(1);
    expect(await page.locator("article.turn pre").textContent()).toBe("first: the cormorant plan <b>bold?</b>");
    expect(await page.locator('[role="status"]').textContent()).toContain(`As the memory was at LSN ${factLsn}`);
    const bad = await page.goto(`${server.url}/ui/session?s=proj%2Fs&as_of=someday`);
    expect(bad!.status()).toBe(400);
    expect(await page.locator(".error").textContent()).toContain("as_of");
    await ctx.close();
  });

  test("search and facts as of a point", async () => {
    const ctx = await loggedIn();
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/search?q=cormorant`);
    expect(await page.locator(".hit").count()).toBe(2);
    await page.fill('form[aria-label="Search"] input[name="as_of"]', String(factLsn));
    await Promise.all([page.waitForURL(/as_of=/), page.click('form[aria-label="Search"] button[type="submit"]')]);
    expect(await page.locator(".hit").count()).toBe(1);
    expect(await page.locator(".hit a").first().textContent()).toBe(`LSN ${lsns[0]}`);
    await page.goto(`${server.url}/ui/facts`);
    expect(await page.locator("td pre").first().textContent()).toBe('"prod"');
    await page.fill('input[name="as_of"]', String(factLsn));
    await Promise.all([page.waitForURL(/as_of=/), page.click('button:has-text("Filter")')]);
    expect(await page.locator("td pre").first().textContent()).toBe('"staging"');
    await page.goto(`${server.url}/ui/facts?as_of=${lsns[0]}`);
    expect(await page.locator("td pre").count()).toBe(0);
    await ctx.close();
  });

  test("Download as Markdown: the session as the export writes it, as of the point shown", async () => {
    const ctx = await loggedIn();
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/session?s=proj%2Fs&as_of=${factLsn}`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("text=Download as Markdown")]);
    expect(download.suggestedFilename()).toBe("proj-s.md");
    const md = readFileSync((await download.path())!, "utf8");
    expect(md).toStartWith("# Session `proj/s`\n\n1 turn,");
    expect(md).toContain("first: the cormorant plan &lt;b&gt;bold?&lt;/b&gt;");
    expect(md).not.toContain("cormorant revised");
    await ctx.close();
  });
});
