/**
 * The viewer's pages in-process (DESIGN.md 13): content is escaped, forget
 * goes dry run → confirm → gone, search marks what matched, sessions page and
 * fold their bookkeeping, and facts, objects, stats and capture render what the
 * tenant holds. Logins, sessions and the guards are in guard.test.ts; the
 * browser suite (browser.test.ts) checks the same in Chromium.
 */
import { describe, expect, test } from "bun:test";
import { createApp } from "../../../src/http/app.ts";
import { createViewer } from "../../../src/http/viewer/state.ts";
import { browser, csrfOf, seed, viewerApp } from "./_app.ts";

describe("viewer pages", () => {
  test("content is escaped: <script> and an onerror attribute show as text", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    await seed(v.store.memory("alice"));
    const b = browser(v.app);
    await b.login(token);
    for (const path of ["/ui/session?s=proj%2Falpha", "/ui/turn/4", "/ui/search?q=done"]) {
      const html = await (await b.request(path)).text();
      expect(html).not.toContain("<script>");
      expect(html).not.toContain("<img src=x");
      expect(html).toContain("&lt;script&gt;");
    }
  });

  test("forget: the dry-run count, a confirmation, then gone", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    await seed(v.store.memory("alice"));
    const b = browser(v.app);
    const csrf = await b.login(token);
    const dry = await (await b.request("/ui/forget", { form: { _csrf: csrf, step: "preview", kind: "session", value: "proj/alpha" } })).text();
    expect(dry).toContain('data-count="4"');
    expect(csrfOf(dry)).toBe(csrf);
    expect((await v.store.memory("alice").read({ session: "proj/alpha" })).turns).toHaveLength(4);
    const done = await (await b.request("/ui/forget", { form: { _csrf: csrf, step: "confirm", kind: "session", value: "proj/alpha" } })).text();
    expect(done).toContain("Forgot <strong");
    expect((await b.request("/ui/session?s=proj%2Falpha")).status).toBe(404);
    expect(await (await b.request("/ui")).text()).not.toContain("proj/alpha");
  });

  test("search marks the matched words, by stem, and leaves a literal [x] alone", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    await v.store.memory("alice").append({ session: "s", entries: [{ role: "user", content: "Deploying rockets [x] today" }] });
    const b = browser(v.app);
    await b.login(token);
    const html = await (await b.request("/ui/search?q=deploy+rocket")).text();
    expect(html).toContain("<mark>Deploying</mark> <mark>rockets</mark> [x] today");
  });

  test("a search hit that follows a match (a tool result holding none of the words) links the turn it follows", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const { entries } = await v.store.memory("alice").append({
      session: "s",
      entries: [
        { role: "assistant", content: "go tool pprof -top heap", meta: { kind: "tool_call" } },
        { role: "tool", content: "Showing nodes accounting for 2.1GB", meta: { kind: "tool_result" } },
      ],
    });
    const b = browser(v.app);
    await b.login(token);
    const html = await (await b.request("/ui/search?q=pprof")).text();
    expect(html).toContain("Showing nodes accounting for 2.1GB");
    expect(html).toContain(`after the match <a href="/ui/turn/${entries[0]!.lsn}">LSN ${entries[0]!.lsn}</a>`);
  });

  test("a session page stays bounded however big its turns; the turn's page has all of it", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const big = `${"x".repeat(1024 * 1024)}END`;
    await v.store.memory("alice").append({ session: "big", entries: Array.from({ length: 3 }, () => ({ role: "tool" as const, content: big })) });
    const b = browser(v.app);
    await b.login(token);
    const page = await (await b.request("/ui/session?s=big")).text();
    expect(page.length).toBeLessThan(64 * 1024);
    expect(page).toContain('<a href="/ui/turn/1">the whole turn</a>');
    expect(await (await b.request("/ui/turn/1")).text()).toContain("xEND");
    await v.store.memory("alice").factSet({ key: "big/value", value: `${"y".repeat(512 * 1024)}END` });
    const facts = await (await b.request("/ui/facts")).text();
    expect(facts.length).toBeLessThan(64 * 1024);
    expect(await (await b.request("/ui/fact?key=big%2Fvalue")).text()).toContain("yEND&quot;");
  });

  test("a turn's captured images show inline, from the tenant's objects", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const m = v.store.memory("alice");
    const put = await m.objectPut(new TextEncoder().encode("png bytes"), { type: "image/png" });
    const images = [{ object: put.object, type: "image/png", bytes: 9 }, { object: "javascript:alert(1)" }];
    await m.append({ session: "s", entries: [{ role: "user", content: "[image image/png, 9 bytes]", meta: { images } }] });
    const b = browser(v.app);
    await b.login(token);
    const html = await (await b.request("/ui/session?s=s")).text();
    expect(html).toContain(`<img class="thumb" src="/ui/object/${put.object}"`);
    expect(html).not.toContain("javascript:");
  });

  test("a session's bookkeeping is folded run by run; what was said, and a remembered note, stay open", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const bk = (type: string, position: number) => ({ kind: "system", noise: "bookkeeping", type, position });
    await v.store.memory("alice").append({
      session: "proj/s",
      entries: [
        { role: "system", content: "[queue-operation] enqueue", meta: bk("queue-operation", 0) },
        { role: "user", content: "the question", meta: { kind: "prompt", type: "user", position: 1 } },
        { role: "system", content: "<system-reminder> one", meta: bk("attachment", 2) },
        // Captured before capture classified lines: known by its type alone.
        { role: "system", content: "[last-prompt] the question", meta: { type: "last-prompt", position: 3 } },
        { role: "assistant", content: "the answer", meta: { kind: "reply", type: "assistant", position: 4 } },
        { role: "note", content: "a note someone chose to keep" },
      ],
    });
    const b = browser(v.app);
    await b.login(token);
    const html = await (await b.request("/ui/session?s=proj%2Fs")).text();
    const groups = [...html.matchAll(/<details class="noise"( open="")?><summary>([^<]*)<\/summary>(.*?)<\/details><(?:article|\/main)/gs)];
    expect(groups.map((g) => [g[1] ?? "", g[2], [...g[3]!.matchAll(/<article class="[^"]*" id="t(\d+)"/g)].map((a) => Number(a[1]))])).toEqual([
      ["", "1 bookkeeping turn (harness metadata, zerodb&#39;s own context and calls) · LSN 1", [1]],
      ["", "2 bookkeeping turns (harness metadata, zerodb&#39;s own context and calls) · LSN 3–4", [3, 4]],
    ]);
    // Every turn is on the page, in order; the prompt, the reply and the note outside any group.
    expect([...html.matchAll(/<article class="[^"]*" id="t(\d+)"/g)].map((a) => Number(a[1]))).toEqual([1, 2, 3, 4, 5, 6]);
    for (const text of ["the question</pre>", "the answer</pre>", "a note someone chose to keep</pre>"]) {
      const at = html.indexOf(text);
      expect(groups.some((g) => at > g.index! && at < g.index! + g[0].length)).toBe(false);
    }
    // Linked to a turn in a run (a search hit's at=), the page opens that run; paged past it (after= alone), it stays folded.
    const linked = await (await b.request("/ui/session?s=proj%2Fs&after=2&at=4")).text();
    expect(linked).toContain('<details class="noise" open=""><summary>2 bookkeeping turns');
    expect(await (await b.request("/ui/session?s=proj%2Fs&after=2")).text()).toContain('<details class="noise"><summary>2 bookkeeping turns');
    expect(await (await b.request("/ui/session?s=proj%2Fs&at=2")).text()).not.toContain("open=");
  });

  test("a session pages by LSN", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const m = v.store.memory("alice");
    for (let i = 0; i < 3; i++)
      await m.append({ session: "big", entries: Array.from({ length: 100 }, (_, j) => ({ role: "user" as const, content: `turn ${i * 100 + j}` })) });
    const b = browser(v.app);
    await b.login(token);
    const first = await (await b.request("/ui/session?s=big")).text();
    expect(first).toContain("turn 199");
    expect(first).not.toContain("turn 200<");
    expect(first).toContain("after=200");
    expect(await (await b.request("/ui/session?s=big&after=200")).text()).toContain("turn 299");
  });

  test("the SessionStart context of a project, with its size, and looking writes nothing", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const m = v.store.memory("alice");
    await seed(m);
    await m.append({ session: "proj", entries: [{ role: "note", content: "remember the launch window" }] });
    await m.factSet({ key: "project/proj/owner", value: "ada" });
    const b = browser(v.app);
    await b.login(token);
    expect(await (await b.request("/ui")).text()).toContain('href="/ui/context?project=proj"');
    const before = (await m.stats()).last_lsn;
    const html = await (await b.request("/ui/context?project=proj")).text();
    expect(html).toContain("# zerodb memory of this project");
    expect(html).toContain("remember the launch window");
    expect(html).toContain("project/proj/owner = ada");
    expect(Number(/data-bytes="(\d+)"/.exec(html)?.[1])).toBeGreaterThan(100);
    expect((await m.stats()).last_lsn).toBe(before);
    expect((await m.factList({ prefix: "project/proj/latest" })).facts).toEqual([]);
  });

  test("facts, objects and stats pages render what the tenant holds", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const m = v.store.memory("alice");
    await seed(m);
    await m.factSet({ key: "deploy/target", value: { host: "<b>prod</b>" } });
    const put = await m.objectPut(new TextEncoder().encode("<html><script>1</script></html>"), { type: "text/html", name: "page.html" });
    const b = browser(v.app);
    await b.login(token);
    const facts = await (await b.request("/ui/facts?prefix=deploy%2F")).text();
    expect(facts).toContain("deploy/target");
    expect(facts).toContain("&lt;b&gt;prod&lt;/b&gt;");
    const objects = await (await b.request("/ui/objects")).text();
    expect(objects).toContain("page.html");
    expect(objects).not.toContain(`<img class="thumb" src="/ui/object/${put.object}"`);
    // Stored HTML never renders as a page of the viewer: a sandboxed download.
    const raw = await b.request(`/ui/object/${put.object}`);
    expect(raw.headers.get("content-disposition")).toStartWith("attachment;");
    expect(raw.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    const stats = await (await b.request("/ui/stats")).text();
    expect(stats).toContain('<svg class="chart" width="');
    expect(stats).toContain('class="bar"');
  });

  test("capture: a token's tenant sees its own cursors only, never this machine's transcripts", async () => {
    using v = viewerApp();
    const a = await v.store.tokens.create({ tenant: "alice" });
    const bTok = await v.store.tokens.create({ tenant: "bob" });
    const entry = { entry: { role: "user" as const, content: "captured prompt", idem_key: "cc:1:0" }, before: { offset: 0, position: 0, chunk: 0 } };
    const outcome = await v.store.capture("alice").commit({
      source: "harness-session-1",
      session: "proj/captured",
      path: "/etc/passwd",
      start: { offset: 0, position: 0, chunk: 0 },
      end: { offset: 10, position: 1, chunk: 0 },
      entries: [entry],
    });
    expect(outcome.status).toBe("committed");
    const alice = browser(v.app);
    await alice.login(a.token);
    const html = await (await alice.request("/ui/capture")).text();
    expect(html).toContain("harness-session-1");
    expect(html).toContain("1 lines");
    expect(html).not.toContain("/etc/passwd");
    const bob = browser(v.app);
    await bob.login(bTok.token);
    expect(await (await bob.request("/ui/capture")).text()).toContain("Nothing captured into this tenant yet.");
  });

  test("capture under zerodb ui: this machine's transcripts, captured and behind", async () => {
    using v = viewerApp();
    const viewer = createViewer({
      store: v.store,
      localCapture: async (tenant) => [
        {
          source: `${tenant}-src`,
          harness: "claude-code" as const,
          capture_session: "proj/x",
          transcript: "/home/me/.claude/projects/p/s.jsonl",
          lines_captured: 7,
          lines_behind: 3,
        },
      ],
    });
    const app = createApp({ store: v.store, viewer });
    const b = browser(app);
    expect((await b.request(`/ui/login/once?code=${viewer.issueCode("local")}`)).status).toBe(303);
    const html = await (await b.request("/ui/capture")).text();
    expect(html).toContain("local-src");
    expect(html).toContain("3 line(s) behind");
  });
});
