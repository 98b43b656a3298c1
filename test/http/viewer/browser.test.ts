/**
 * The viewer in a real headless Chromium (DESIGN.md 13), against a real
 * `zerodb serve`: log in with a token, browse, search, open a turn, preview
 * an object, forget with the dry run and a confirmation; every request the
 * pages make goes to the server's own origin; the CSP stops an injected
 * script; a foreign Host (DNS rebinding, simulated with Chromium's host
 * resolver rules), a cross-site form POST and another tenant's cookie get
 * nothing. Skips with a message when no Chromium is installed (`.ci/run`
 * installs Debian's `chromium`; ZERODB_CHROMIUM names another binary).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium } from "playwright-core";
import { tempDir } from "../../helpers.ts";
import { type ServerProcess, createToken, startServer } from "../_server.ts";
import { CHROMIUM, SHOTS, seriousViolations } from "./_browser.ts";
import { spawnUi } from "./_ui.ts";

const EXE = CHROMIUM;
if (EXE === undefined) console.warn("browser.test.ts: skipped: no chromium found (apt-get install -y chromium, or set ZERODB_CHROMIUM)");

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

const XSS = 'done <script>window.pwned=1</script> "><img src=x onerror="window.pwned=2">';

describe.skipIf(EXE === undefined)("viewer in Chromium", () => {
  setDefaultTimeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess;
  let browser: Browser;
  let alice: string;
  let bob: string;
  let image: string;
  /** Every URL any page of a checked context asked for. */
  const requested: string[] = [];

  async function api(token: string, path: string, init: RequestInit): Promise<unknown> {
    const res = await fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  /** A context whose every request is recorded; anything not for the server is refused (no outbound request). */
  async function checkedContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const ctx = await browser.newContext(options);
    await ctx.route("**/*", (route) => {
      const url = route.request().url();
      requested.push(url);
      return url.startsWith(`${server.url}/`) ? route.continue() : route.abort();
    });
    return ctx;
  }

  /** A context logged in through the login form with a token. */
  async function loggedIn(token: string, options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const ctx = await checkedContext(options);
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
    alice = await createToken(dir.path, "alice");
    bob = await createToken(dir.path, "bob");
    const json = { "content-type": "application/json" };
    const turns = [
      { role: "user", content: "how do we deploy the rocket?" },
      { role: "assistant", content: "running the deploy script", meta: { tools: ["Bash"] } },
      { role: "tool", content: "deploy ok" },
      { role: "assistant", content: XSS },
    ];
    await api(alice, "/v1/turns", { method: "POST", headers: json, body: JSON.stringify({ session: "proj/alpha", entries: turns }) });
    await api(alice, "/v1/turns", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ session: "proj/beta", entries: [{ role: "user", content: "beta" }] }),
    });
    const put = (await api(alice, "/v1/objects", { method: "PUT", headers: { "content-type": "image/png", "x-zerodb-name": "dot.png" }, body: PNG })) as {
      object: string;
    };
    image = put.object;
    await api(alice, "/v1/links", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ url: "https://example.com/runbook", title: "Deploy runbook", note: "ask ops first" }),
    });
    for (const value of ["staging", "prod-1", "prod-2"]) {
      await api(alice, "/v1/facts/deploy/target", { method: "PUT", headers: json, body: JSON.stringify({ value }) });
    }
    browser = await chromium.launch({
      executablePath: EXE,
      headless: true,
      // rebind.test stands for a DNS-rebinding name that resolves to the viewer's loopback address.
      args: ["--no-sandbox", "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
    });
    mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.[Symbol.asyncDispose]();
    dir?.[Symbol.dispose]();
  });

  test("browse: sessions newest first, a session as a chat with folded tool turns, content as text", async () => {
    const ctx = await loggedIn(alice);
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui`);
    const names = await page.locator("td a").allTextContents();
    expect(names).toEqual(["proj/beta", "proj/alpha"]);
    await page.screenshot({ path: join(SHOTS, "sessions.png"), fullPage: true });
    await page.click("text=proj/alpha");
    await page.waitForURL(/\/ui\/session\?s=proj%2Falpha$/);
    expect(await page.locator("article.turn").count()).toBe(4);
    expect(await page.locator("article.turn details").count()).toBe(2);
    expect(await page.locator("text=how do we deploy the rocket?").isVisible()).toBe(true);
    // The hostile turn is text on the page, and nothing of it ran or loaded.
    expect(await page.locator("article.turn").last().locator("pre").textContent()).toBe(XSS);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate("typeof window.pwned")).toBe("undefined");
    await page.screenshot({ path: join(SHOTS, "session.png"), fullPage: true });
    await ctx.close();
  });

  test("the CSP header is strict and stops an injected inline script", async () => {
    const ctx = await loggedIn(alice);
    const page = await ctx.newPage();
    const res = await page.goto(`${server.url}/ui`);
    expect(res!.headers()["content-security-policy"]).toContain("script-src 'none'");
    expect(res!.headers()["content-security-policy"]).toContain("default-src 'self'");
    const violations: string[] = [];
    page.on("console", (m) => violations.push(m.text()));
    // Evaluated by the test driver (CDP, not subject to the CSP); the script element it adds is.
    const ran = await page.evaluate(`(async () => {
      const s = document.createElement("script");
      s.textContent = "window.injected = 1";
      document.body.appendChild(s);
      await new Promise((r) => setTimeout(r, 50));
      return typeof window.injected;
    })()`);
    expect(ran).toBe("undefined");
    expect(violations.some((v) => v.includes("Content Security Policy"))).toBe(true);
    await ctx.close();
  });

  test("search highlights the matched words and links each hit to its turn", async () => {
    const ctx = await loggedIn(alice);
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/search`);
    await page.fill('input[name="q"]', "rocket");
    await Promise.all([page.waitForURL(/q=rocket/), page.press('input[name="q"]', "Enter")]);
    expect(await page.locator(".hit mark").first().textContent()).toBe("rocket");
    await page.screenshot({ path: join(SHOTS, "search.png"), fullPage: true });
    await Promise.all([page.waitForURL(/\/ui\/turn\/\d+$/), page.locator(".hit a").first().click()]);
    expect(await page.locator("h1").textContent()).toMatch(/^Turn \d+$/);
    expect(await page.locator("article.turn pre").textContent()).toBe("how do we deploy the rocket?");
    await ctx.close();
  });

  test("objects: an image preview served with its type and nosniff", async () => {
    const ctx = await loggedIn(alice);
    const page = await ctx.newPage();
    const img = page.waitForResponse(`${server.url}/ui/object/${image}`);
    await page.goto(`${server.url}/ui/objects`);
    const res = await img;
    expect(res.headers()["content-type"]).toBe("image/png");
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    // The preview decoded as an image (a 1×1 PNG): waited for, not slept for.
    await page.waitForFunction('document.querySelector("img.thumb")?.naturalWidth === 1');
    expect(await page.locator("img.thumb").getAttribute("alt")).toBe("dot.png");
    await ctx.close();
  });

  test("links, a fact's history, charts over time and the doctor page", async () => {
    const ctx = await loggedIn(alice);
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui`);
    await Promise.all([page.waitForURL(`${server.url}/ui/links`), page.getByRole("link", { name: "Links", exact: true }).click()]);
    expect(await page.locator("tbody tr").count()).toBe(1);
    expect(await page.getByRole("link", { name: "https://example.com/runbook" }).getAttribute("rel")).toBe("noreferrer noopener nofollow");
    expect(await page.locator("tbody td").first().textContent()).toContain("Deploy runbook");
    await page.fill('input[name="prefix"]', "https://other.example/");
    await Promise.all([page.waitForURL(/prefix=/), page.press('input[name="prefix"]', "Enter")]);
    expect(await page.getByText("No links with this prefix.").isVisible()).toBe(true);
    // A fact's page: its value, then the earlier ones newest first.
    await page.goto(`${server.url}/ui/facts`);
    await Promise.all([page.waitForURL(/\/ui\/fact\?key=deploy%2Ftarget$/), page.getByRole("link", { name: "deploy/target" }).click()]);
    expect(await page.locator("main > pre").textContent()).toBe('"prod-2"');
    expect(await page.locator("table[aria-labelledby=history] tbody pre").allTextContents()).toEqual(['"prod-1"', '"staging"']);
    await page.screenshot({ path: join(SHOTS, "fact.png"), fullPage: true });
    // Charts: an image named by its title and description, and a table for anyone who cannot read it.
    await page.goto(`${server.url}/ui/stats?days=30`);
    const chart = page.getByRole("img", { name: "Turns per day, last 30 days (UTC)", exact: true });
    expect(await chart.count()).toBe(1);
    expect(await chart.getAttribute("aria-describedby")).toBe("turns-per-day-desc");
    expect(await page.locator("#turns-per-day-desc").textContent()).toMatch(/^5 turns in 1 of 30 days since \d{4}-\d{2}-\d{2}/);
    const figure = page.locator("figure.chart").first();
    expect(await figure.locator("tbody").isVisible()).toBe(false);
    await figure.getByText("Turns per day, last 30 days (UTC) as a table", { exact: true }).click();
    const today = new Date().toISOString().slice(0, 10);
    expect(await figure.locator("tbody tr").allTextContents()).toEqual([`${today}5`]);
    await page.screenshot({ path: join(SHOTS, "stats.png"), fullPage: true });
    // Under `serve` a token's session gets no doctor checks, and is told why.
    await page.goto(`${server.url}/ui/doctor?run=1`);
    expect(await page.locator("main").textContent()).toContain("The operator runs zerodb doctor on the server.");
    await ctx.close();
  });

  /** The main pages, each with something on it (turns, hits, charts). */
  const MAIN_PAGES = [
    "/ui",
    "/ui/session?s=proj%2Falpha",
    "/ui/search?q=rocket",
    "/ui/stats",
    "/ui/turn/1",
    "/ui/facts",
    "/ui/links",
    "/ui/objects",
    "/ui/forget",
  ];

  test("at phone width (375×740) no main page is wider than the screen", async () => {
    const ctx = await loggedIn(alice, { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    const page = await ctx.newPage();
    const wide: { path: string; scrollWidth: number; clientWidth: number }[] = [];
    for (const path of MAIN_PAGES) {
      await page.goto(`${server.url}${path}`);
      const { scrollWidth, clientWidth } = (await page.evaluate(
        "({ scrollWidth: document.scrollingElement.scrollWidth, clientWidth: document.scrollingElement.clientWidth })",
      )) as { scrollWidth: number; clientWidth: number };
      // The layout viewport is the device's width (the page's viewport meta), not a zoomed-out desktop page.
      expect(clientWidth).toBe(375);
      if (scrollWidth > clientWidth) wide.push({ path, scrollWidth, clientWidth });
    }
    expect(wide).toEqual([]);
    await page.goto(`${server.url}/ui/session?s=proj%2Falpha`);
    await page.screenshot({ path: join(SHOTS, "session-phone.png"), fullPage: true });
    await ctx.close();
  });

  test("in dark mode the pages are dark and their text contrast passes axe-core", async () => {
    const ctx = await loggedIn(alice, { colorScheme: "dark" });
    const page = await ctx.newPage();
    /** Relative luminance (WCAG) of a computed `rgb(...)` colour. */
    const luminance = (css: string): number => {
      const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const found: { page: string; id: string; impact: string; help: string }[] = [];
    for (const path of ["/ui/session?s=proj%2Falpha", "/ui/search?q=rocket", "/ui/stats"]) {
      await page.goto(`${server.url}${path}`);
      const colours = (await page.evaluate(
        "({ page: getComputedStyle(document.body).backgroundColor, text: getComputedStyle(document.body).color, scheme: matchMedia('(prefers-color-scheme: dark)').matches })",
      )) as { page: string; text: string; scheme: boolean };
      expect(colours.scheme).toBe(true);
      expect(luminance(colours.page)).toBeLessThan(0.05);
      expect(luminance(colours.text)).toBeGreaterThan(0.6);
      for (const v of await seriousViolations(page)) found.push({ page: path, ...v });
    }
    expect(found).toEqual([]);
    await page.goto(`${server.url}/ui/search?q=rocket`);
    await page.screenshot({ path: join(SHOTS, "search-dark.png"), fullPage: true });
    await ctx.close();
  });

  test("keyboard: Tab from the top reaches the navigation then the search box, each visibly focused; Enter follows a link", async () => {
    const ctx = await loggedIn(alice);
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/search`);
    /** What has the focus: its tag, its name, and whether anything shows it (an outline or a box-shadow). */
    const focused = async () =>
      (await page.evaluate(`(() => {
        const e = document.activeElement;
        const s = getComputedStyle(e);
        const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0;
        return { tag: e.tagName.toLowerCase(), name: e.getAttribute("name") ?? e.textContent.trim(), shown: outline || s.boxShadow !== "none" };
      })()`)) as { tag: string; name: string; shown: boolean };
    const order: { tag: string; name: string; shown: boolean }[] = [];
    for (let i = 0; i < 11; i++) {
      await page.keyboard.press("Tab");
      order.push(await focused());
    }
    const nav = ["Sessions", "Search", "Facts", "Links", "Objects", "Stats", "Capture", "Doctor", "Forget"];
    expect(order).toEqual([
      ...nav.map((name) => ({ tag: "a", name, shown: true })),
      { tag: "button", name: "Log out", shown: true },
      { tag: "input", name: "q", shown: true },
    ]);
    // Type a query into the search box the keyboard reached, and submit it with Enter.
    await page.keyboard.type("rocket");
    await Promise.all([page.waitForURL(/\/ui\/search\?q=rocket/), page.keyboard.press("Enter")]);
    expect(await page.locator(".hit mark").first().textContent()).toBe("rocket");
    // Back at the top, Tab to Stats and press Enter: the link is followed.
    await page.goto(`${server.url}/ui`);
    for (let i = 0; i < nav.indexOf("Stats") + 1; i++) await page.keyboard.press("Tab");
    expect(await focused()).toEqual({ tag: "a", name: "Stats", shown: true });
    await Promise.all([page.waitForURL(`${server.url}/ui/stats`), page.keyboard.press("Enter")]);
    expect(await page.locator("h1").textContent()).toBe("Stats");
    await ctx.close();
  });

  test("another tenant's cookie sees none of it", async () => {
    const ctx = await loggedIn(bob);
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui`);
    expect(await page.content()).not.toContain("proj/alpha");
    for (const path of ["/ui/session?s=proj%2Falpha", "/ui/turn/1", `/ui/object/${image}`]) {
      const res = await page.goto(`${server.url}${path}`);
      expect(res!.status()).toBe(404);
    }
    await page.goto(`${server.url}/ui/search?q=rocket`);
    expect(await page.locator(".hit").count()).toBe(0);
    await ctx.close();
  });

  test("a foreign Host (DNS rebinding) is refused", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const port = new URL(server.url).port;
    for (const path of ["/", "/ui", "/ui/login"]) {
      const res = await page.goto(`http://rebind.test:${port}${path}`);
      expect(res!.status()).toBe(403);
    }
    await ctx.close();
  });

  test("a cross-site form POST is refused and changes nothing", async () => {
    const ctx = await loggedIn(alice);
    const attacker = await ctx.newPage();
    // An attacker's page on another origin that posts a forget to the viewer when it loads.
    await ctx.route("http://evil.test/**", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<form id=f method=post action="${server.url}/ui/forget"><input name=step value=confirm><input name=kind value=session><input name=value value=proj/alpha><input name=_csrf value=guess></form><script>document.getElementById("f").submit()</script>`,
      }),
    );
    const refused = attacker.waitForResponse((r) => r.url() === `${server.url}/ui/forget`);
    await attacker.goto("http://evil.test/");
    expect([401, 403]).toContain((await refused).status());
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/session?s=proj%2Falpha`);
    expect(await page.locator("article.turn").count()).toBe(4);
    await ctx.close();
  });

  test("forget: the dry-run count, a confirmation, then gone", async () => {
    const ctx = await loggedIn(alice);
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/session?s=proj%2Falpha`);
    await Promise.all([page.waitForURL(/\/ui\/forget\?/), page.click("text=Forget this session…")]);
    await page.getByRole("button", { name: "Count what would go" }).click();
    await page.waitForSelector("[data-count]");
    expect(await page.locator("[data-count]").textContent()).toBe("4");
    await page.screenshot({ path: join(SHOTS, "forget-confirm.png"), fullPage: true });
    await page.getByRole("button", { name: "Forget 4 record(s)" }).click();
    await page.waitForSelector("p[role=status]");
    expect(await page.locator("p[role=status] [data-count]").textContent()).toBe("4");
    const res = await page.goto(`${server.url}/ui/session?s=proj%2Falpha`);
    expect(res!.status()).toBe(404);
    await page.goto(`${server.url}/ui`);
    expect(await page.locator("td a").allTextContents()).toEqual(["proj/beta"]);
    await ctx.close();
  });

  test("axe-core finds no serious or critical accessibility violation on the main pages", async () => {
    const ctx = await loggedIn(alice);
    const page = await ctx.newPage();
    const found: { page: string; id: string; impact: string; help: string }[] = [];
    const pages = ["/ui", "/ui/session?s=proj%2Fbeta", "/ui/search?q=beta", "/ui/facts", "/ui/fact?key=deploy%2Ftarget", "/ui/links", "/ui/objects"];
    for (const path of [...pages, "/ui/stats", "/ui/stats?days=365", "/ui/forget", "/ui/capture", "/ui/doctor", "/"]) {
      await page.goto(`${server.url}${path}`);
      for (const v of await seriousViolations(page)) found.push({ page: path, ...v });
    }
    expect(found).toEqual([]);
    await ctx.close();
  });

  test("zerodb ui: the one-time link, the doctor's checks run from the page, capture per harness; axe-core on both", async () => {
    using home = tempDir();
    // One Claude Code transcript on this machine, never captured: two lines behind.
    const projects = join(home.path, ".claude", "projects", "-work-proj");
    mkdirSync(projects, { recursive: true });
    const line = (text: string) => JSON.stringify({ type: "user", message: { role: "user", content: text } });
    writeFileSync(join(projects, "0b7e3c1e-1111-4222-8333-944455556666.jsonl"), `${line("hello")}\n${line("again")}\n`);
    await using ui = spawnUi(home.path);
    const link = await ui.firstLine();
    const origin = new URL(link).origin;
    const ctx = await browser.newContext();
    await ctx.route("**/*", (route) => (route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort()));
    const page = await ctx.newPage();
    await page.goto(link);
    await page.waitForURL(`${origin}/ui`);
    await page.getByRole("link", { name: "Doctor" }).click();
    await Promise.all([page.waitForURL(/\/ui\/doctor\?run=1$/), page.getByRole("button", { name: "Run the checks" }).click()]);
    expect(await page.locator('tr[data-check="store"]').getAttribute("data-status")).toBe("pass");
    expect(await page.locator('tr[data-check="round trip"]').getAttribute("data-status")).toBe("pass");
    expect(await page.locator('tr[data-check="mcp"]').getAttribute("data-status")).toBe("pass");
    expect(await page.locator("p[role=status]").textContent()).toMatch(/^(All checks passed|\d+ check\(s\) failed)/);
    await page.screenshot({ path: join(SHOTS, "doctor.png"), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${origin}/ui/capture`);
    const claude = page.locator('tr[data-harness="claude-code"] td');
    expect(await claude.allTextContents()).toEqual(["1", "0", "2", "1 transcript(s) behind: run zerodb capture sync; 1 transcript(s) not captured yet"]);
    for (const h of ["codex", "gemini", "opencode"])
      expect(await page.locator(`tr[data-harness="${h}"] td`).last().textContent()).toBe("no transcripts on this machine");
    await page.screenshot({ path: join(SHOTS, "capture.png"), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await ctx.close();
    ui.proc.kill("SIGTERM");
    expect(await ui.proc.exited).toBe(0);
  });

  test("no page asked for anything but the server's own origin", () => {
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((u) => !u.startsWith(`${server.url}/`))).toEqual([]);
  });
});
