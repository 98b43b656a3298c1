/**
 * The viewer's pages for links, a fact's history, charts over time, the
 * doctor's checks and capture per harness (issue 18), in-process. The
 * browser suite (browser.test.ts) opens them in Chromium with axe-core.
 */
import { describe, expect, test } from "bun:test";
import { createApp } from "../../../src/http/app.ts";
import { createViewer } from "../../../src/http/viewer/state.ts";
import type { DoctorReport } from "../../../src/doctor/run.ts";
import { browser, viewerApp } from "./_app.ts";

describe("viewer pages", () => {
  test("the new pages need a session", async () => {
    using v = viewerApp();
    const b = browser(v.app);
    for (const path of ["/ui/links", "/ui/fact?key=k&lsn=1", "/ui/doctor", "/ui/doctor?run=1", "/ui/stats?days=30"]) {
      const res = await b.request(path);
      expect({ path, status: res.status, location: res.headers.get("location") }).toEqual({ path, status: 303, location: "/ui/login" });
    }
  });

  test("links: newest first, by URL prefix, paged, escaped, the tenant's own, each with its forget", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const m = v.store.memory("alice");
    const first = await m.linkAdd({ url: "https://example.com/runbook", title: "Runbook <b>x</b>", note: "ask ops first" });
    for (let i = 0; i < 101; i++) await m.linkAdd({ url: `https://docs.example.org/page-${i}` });
    await v.store.memory("bob").linkAdd({ url: "https://example.com/bobs-secret" });
    const b = browser(v.app);
    await b.login(token);
    const page = await (await b.request("/ui/links")).text();
    expect(page).toContain("https://docs.example.org/page-100");
    expect(page).not.toContain("https://example.com/runbook");
    expect(page).not.toContain("bobs-secret");
    expect(page.indexOf("page-100")).toBeLessThan(page.indexOf("page-99"));
    expect(page).toContain('rel="noreferrer noopener nofollow"');
    const older = /href="(\/ui\/links\?before=\d+)"/.exec(page)![1]!;
    const second = await (await b.request(older)).text();
    expect(second).toContain("https://example.com/runbook");
    expect(second).toContain("Runbook &lt;b&gt;x&lt;/b&gt;");
    expect(second).toContain("ask ops first");
    expect(second).toContain(`href="/ui/forget?kind=link&amp;value=${first.lsn}"`);
    const filtered = await (await b.request("/ui/links?prefix=https%3A%2F%2Fexample.com%2F")).text();
    expect(filtered.match(/<tr data-lsn=/g)).toHaveLength(1);
    expect(filtered).toContain("https://example.com/runbook");
    await m.forget({ selector: { link: first.lsn } });
    expect(await (await b.request("/ui/links?prefix=https%3A%2F%2Fexample.com%2F")).text()).toContain("No links with this prefix.");
  });

  test("a fact's page: its value, every earlier value newest first, each whole by its LSN", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const m = v.store.memory("alice");
    const old = await m.factSet({ key: "deploy/target", value: { host: "<b>old</b>" } });
    const big = await m.factSet({ key: "deploy/target", value: `${"y".repeat(20_000)}END` });
    const now = await m.factSet({ key: "deploy/target", value: "prod-3" });
    const other = await m.factSet({ key: "deploy/other", value: "elsewhere" });
    const b = browser(v.app);
    await b.login(token);
    const html = await (await b.request("/ui/fact?key=deploy%2Ftarget")).text();
    expect(html).toContain(`LSN ${now.lsn}`);
    expect(html).toContain("&quot;prod-3&quot;");
    const rows = [...html.matchAll(/<tr data-lsn="(\d+)"/g)].map((r) => Number(r[1]));
    expect(rows).toEqual([big.lsn, old.lsn]);
    expect(html).toContain("&lt;b&gt;old&lt;/b&gt;");
    // A long past value is cut on the page, whole on its own.
    expect(html).not.toContain("yEND");
    expect(html).toContain(`href="/ui/fact?key=deploy%2Ftarget&amp;lsn=${big.lsn}"`);
    expect(await (await b.request(`/ui/fact?key=deploy%2Ftarget&lsn=${big.lsn}`)).text()).toContain("yEND&quot;");
    // An LSN that is not this key's value, or a key of another tenant's, is not found.
    expect((await b.request(`/ui/fact?key=deploy%2Ftarget&lsn=${other.lsn}`)).status).toBe(404);
    await v.store.memory("bob").factSet({ key: "bob/k", value: 1 });
    expect((await b.request("/ui/fact?key=bob%2Fk")).status).toBe(404);
    // Only value: said so.
    expect(await (await b.request("/ui/fact?key=deploy%2Fother")).text()).toContain("None: this is the only value the tape holds.");
  });

  test("a fact's history pages by LSN", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const m = v.store.memory("alice");
    const lsns: number[] = [];
    for (let i = 0; i < 60; i++) lsns.push((await m.factSet({ key: "counter", value: i })).lsn);
    const b = browser(v.app);
    await b.login(token);
    const first = await (await b.request("/ui/fact?key=counter")).text();
    expect([...first.matchAll(/<tr data-lsn="(\d+)"/g)]).toHaveLength(50);
    const older = /href="(\/ui\/fact\?key=counter&amp;before=\d+)"/.exec(first)![1]!.replaceAll("&amp;", "&");
    const rest = [...(await (await b.request(older)).text()).matchAll(/<tr data-lsn="(\d+)"/g)].map((r) => Number(r[1]));
    expect(rest).toEqual(lsns.slice(0, 9).reverse());
  });

  test("stats: turns and bytes per day with title, description and a table; repeated content and bytes on disk", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const m = v.store.memory("alice");
    await m.append({ session: "s", entries: ["same", "same", "other text"].map((content) => ({ role: "user" as const, content })) });
    const b = browser(v.app);
    await b.login(token);
    const html = await (await b.request("/ui/stats?days=30")).text();
    for (const id of ["turns-per-day", "bytes-per-day", "payload-histogram", "repeated", "on-disk"]) {
      expect(html).toContain(`aria-labelledby="${id}-title" aria-describedby="${id}-desc"`);
      expect(html).toContain(`<title id="${id}-title">`);
      expect(html).toContain(`<desc id="${id}-desc">`);
    }
    expect(html).toContain("Turns per day, last 30 days (UTC)");
    expect(html).toContain("3 turns in 1 of 30 days");
    const today = new Date().toISOString().slice(0, 10);
    // The day's row in the table fallback: 3 turns, and 18 bytes in the bytes chart's table.
    expect(html).toContain(`<th scope="row">${today}</th><td class="num">3</td>`);
    expect(html).toContain(`<th scope="row">${today}</th><td class="num">18 B</td>`);
    expect(html).toContain('<th scope="row">repeated</th><td class="num">4 B</td>');
    expect(html).toContain('<option value="30" selected="">last 30 days</option>');
    // A span the page does not offer falls back to 90 days.
    expect(await (await b.request("/ui/stats?days=7")).text()).toContain("Turns per day, last 90 days (UTC)");
    expect((await b.request("/ui/stats?days=x")).status).toBe(400);
  });

  test("doctor: under zerodb ui the one-time link's session runs the checks; a token's session and a server of tokens say why not", async () => {
    using v = viewerApp();
    let runs = 0;
    const report: DoctorReport = {
      ok: false,
      checks: [
        { name: "store", status: "pass", detail: "quick_check ok" },
        { name: "hooks", status: "fail", detail: "capture is on but <settings> lacks a hook", fix: "zerodb connect --capture" },
      ],
    };
    const viewer = createViewer({
      store: v.store,
      localDoctor: async () => {
        runs++;
        return report;
      },
    });
    const app = createApp({ store: v.store, viewer });
    const local = browser(app);
    expect((await local.request(`/ui/login/once?code=${viewer.issueCode("local")}`)).status).toBe(303);
    const intro = await (await local.request("/ui/doctor")).text();
    expect(intro).toContain("Run the checks");
    expect(runs).toBe(0);
    const html = await (await local.request("/ui/doctor?run=1")).text();
    expect(runs).toBe(1);
    expect(html).toContain("1 check(s) failed.");
    expect(html).toContain('data-check="hooks" data-status="fail"');
    expect(html).toContain("&lt;settings&gt;");
    expect(html).toContain("<code>zerodb connect --capture</code>");
    // A token's session under the same `zerodb ui` is a tenant's, not this machine's user's.
    const { token } = await v.store.tokens.create({ tenant: "bob" });
    const bob = browser(app);
    await bob.login(token);
    expect(await (await bob.request("/ui/doctor?run=1")).text()).toContain("The doctor&#39;s checks are not shown here.");
    expect(runs).toBe(1);
    // A server of tokens (no localDoctor) shows none either.
    const served = browser(v.app);
    await served.login(token);
    expect(await (await served.request("/ui/doctor?run=1")).text()).toContain("The operator runs <code>zerodb doctor</code> on the server.");
  });

  test("capture under zerodb ui: a line per harness, Claude Code, Codex and Gemini CLI, with warnings", async () => {
    using v = viewerApp();
    const row = (
      harness: "claude-code" | "codex" | "gemini",
      source: string,
      captured: number,
      behind: number,
      extra: { missing?: true; none?: true } = {},
    ) => ({
      source,
      harness,
      capture_session: extra.none ? null : `proj/${source}`,
      transcript: `/home/me/${source}.jsonl`,
      lines_captured: captured,
      lines_behind: behind,
      ...(extra.missing ? { missing: true as const } : {}),
    });
    const viewer = createViewer({
      store: v.store,
      localCapture: async () => [row("claude-code", "cc1", 10, 0), row("claude-code", "cc2", 5, 0, { missing: true }), row("codex", "codex:t1", 3, 4)],
    });
    const app = createApp({ store: v.store, viewer });
    const b = browser(app);
    expect((await b.request(`/ui/login/once?code=${viewer.issueCode("local")}`)).status).toBe(303);
    const html = await (await b.request("/ui/capture")).text();
    const line = (h: string) => new RegExp(`<tr data-harness="${h}">(.*?)</tr>`, "s").exec(html)![1]!;
    expect(line("claude-code")).toContain('<td class="num">2</td><td class="num">15</td><td class="num">0</td>');
    expect(line("claude-code")).toContain("1 transcript(s) deleted by the harness");
    expect(line("codex")).toContain('<td class="num">1</td><td class="num">3</td><td class="num">4</td>');
    expect(line("codex")).toContain("1 transcript(s) behind: run zerodb capture sync");
    expect(line("gemini")).toContain("no transcripts on this machine");
    // A token's session under the same viewer sees the tenant's cursors, not this machine's transcripts.
    const { token } = await v.store.tokens.create({ tenant: "bob" });
    const bob = browser(app);
    await bob.login(token);
    const theirs = await (await bob.request("/ui/capture")).text();
    expect(theirs).toContain("Capture cursors");
    expect(theirs).not.toContain("cc1");
  });
});
