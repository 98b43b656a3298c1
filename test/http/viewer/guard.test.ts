/**
 * The viewer's logins and guards in-process (DESIGN.md 13): the login page at
 * / shows no tenant's data, sessions come from a token or a one-time code and
 * live server-side, every answer carries the CSP, a foreign Host and a forged
 * POST are refused, and each session sees its own tenant only.
 */
import { describe, expect, test } from "bun:test";
import { CSP } from "../../../src/http/viewer/guard.ts";
import { ORIGIN, browser, seed, viewerApp } from "./_app.ts";

describe("viewer logins and guards", () => {
  test("/ is a login page with no tenant data, CSP and security headers", async () => {
    using v = viewerApp();
    await seed(v.store.memory("alice"));
    const res = await browser(v.app).request("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(CSP);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = await res.text();
    expect(html).toContain('action="/ui/login"');
    for (const data of ["alice", "proj/alpha", "rocket"]) expect(html).not.toContain(data);
  });

  test("a page without a session goes to the login page; a wrong token is refused", async () => {
    using v = viewerApp();
    const b = browser(v.app);
    const res = await b.request("/ui");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/ui/login");
    const bad = await b.request("/ui/login", { form: { token: "zdb_nope" } });
    expect(bad.status).toBe(401);
    expect(b.cookie()).toBe("");
  });

  test("no page, object or change answers without a session", async () => {
    using v = viewerApp();
    await seed(v.store.memory("alice"));
    const put = await v.store.memory("alice").objectPut(new TextEncoder().encode("x"), { type: "image/png" });
    const b = browser(v.app);
    const pages = ["/ui", "/ui/session?s=proj%2Falpha", "/ui/turn/1", "/ui/search?q=rocket", "/ui/facts", "/ui/fact?key=k", "/ui/objects"];
    for (const path of [...pages, `/ui/object/${put.object}`, "/ui/stats", "/ui/forget", "/ui/context?project=proj", "/ui/capture", "/ui/nowhere"]) {
      const res = await b.request(path);
      expect({ path, status: res.status, location: res.headers.get("location") }).toEqual({ path, status: 303, location: "/ui/login" });
    }
    const forged = await b.request("/ui/forget", { form: { step: "confirm", kind: "session", value: "proj/alpha" } });
    expect(forged.status).toBe(401);
    expect((await v.store.memory("alice").read({ session: "proj/alpha" })).turns).toHaveLength(4);
  });

  test("a token login sets an HttpOnly SameSite=Strict cookie holding a session id, not the token", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const res = await browser(v.app).request("/ui/login", { form: { token } });
    expect(res.status).toBe(303);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^zerodb_session_7077=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(token);
  });

  test("revoking the token ends its sessions", async () => {
    using v = viewerApp();
    const t = await v.store.tokens.create({ tenant: "alice" });
    const b = browser(v.app);
    await b.login(t.token);
    expect((await b.request("/ui")).status).toBe(200);
    await v.store.tokens.revoke({ id: t.id });
    expect((await b.request("/ui")).status).toBe(303);
  });

  test("a one-time code logs in once", async () => {
    using v = viewerApp();
    const code = v.viewer.issueCode("local");
    const b = browser(v.app);
    expect((await b.request(`/ui/login/once?code=${code}`)).status).toBe(303);
    expect(await (await b.request("/ui")).text()).toContain("tenant local");
    expect((await browser(v.app).request(`/ui/login/once?code=${code}`)).status).toBe(401);
  });

  test("a foreign Host is refused (DNS rebinding), on / and on pages", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const b = browser(v.app);
    await b.login(token);
    for (const path of ["/", "/ui", "/ui/login"]) {
      const res = await b.request(path, { headers: { host: "attacker.example:7077" } });
      expect(res.status).toBe(403);
    }
    for (const host of ["localhost:7077", "[::1]:7077"]) expect((await b.request("/ui", { headers: { host } })).status).toBe(200);
    // Port 80 has a cookie of its own (cookies are not kept apart by port): a login page, not a refusal.
    expect((await b.request("/ui/login", { headers: { host: "127.0.0.1" } })).status).toBe(200);
  });

  test("a forged POST is refused: foreign Origin, no Origin, wrong CSRF token", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    await seed(v.store.memory("alice"));
    const b = browser(v.app);
    const csrf = await b.login(token);
    const form = { _csrf: csrf, step: "confirm", kind: "session", value: "proj/alpha" };
    expect((await b.request("/ui/forget", { form, headers: { origin: "http://evil.example" } })).status).toBe(403);
    expect((await b.request("/ui/forget", { form: { ...form, _csrf: "x".repeat(43) } })).status).toBe(403);
    const noOrigin = await v.app.request(`${ORIGIN}/ui/forget`, {
      method: "POST",
      headers: { host: "127.0.0.1:7077", cookie: b.cookie(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
    expect(noOrigin.status).toBe(403);
    expect((await v.store.memory("alice").read({ session: "proj/alpha" })).turns).toHaveLength(4);
    // Login CSRF: a token posted from another site's page is refused too.
    expect((await browser(v.app).request("/ui/login", { form: { token }, headers: { origin: "http://evil.example" } })).status).toBe(403);
  });

  test("each session sees its own tenant only", async () => {
    using v = viewerApp();
    const a = await v.store.tokens.create({ tenant: "alice" });
    const bTok = await v.store.tokens.create({ tenant: "bob" });
    await seed(v.store.memory("alice"));
    const put = await v.store.memory("alice").objectPut(new TextEncoder().encode("alice's image"), { type: "image/png", name: "a.png" });
    const bob = browser(v.app);
    await bob.login(bTok.token);
    expect(await (await bob.request("/ui")).text()).not.toContain("proj/alpha");
    expect((await bob.request("/ui/session?s=proj%2Falpha")).status).toBe(404);
    expect((await bob.request("/ui/turn/1")).status).toBe(404);
    expect((await bob.request(`/ui/object/${put.object}`)).status).toBe(404);
    expect(await (await bob.request("/ui/search?q=rocket")).text()).toContain("0 hits");
    const alice = browser(v.app);
    await alice.login(a.token);
    expect(await (await alice.request("/ui/session?s=proj%2Falpha")).text()).toContain("rocket");
    const obj = await alice.request(`/ui/object/${put.object}`);
    expect(obj.status).toBe(200);
    expect(obj.headers.get("content-type")).toBe("image/png");
    expect(obj.headers.get("x-content-type-options")).toBe("nosniff");
  });
  test("a session cookie of one port is not another port's", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const b = browser(v.app);
    await b.login(token);
    expect(b.cookie()).toStartWith("zerodb_session_7077=");
    expect((await b.request("/ui", { headers: { host: "127.0.0.1:7078" } })).status).toBe(303);
  });

  test("logout ends the session server-side", async () => {
    using v = viewerApp();
    const { token } = await v.store.tokens.create({ tenant: "alice" });
    const b = browser(v.app);
    const csrf = await b.login(token);
    const cookie = b.cookie();
    expect((await b.request("/ui/logout", { form: { _csrf: csrf } })).status).toBe(303);
    const again = await v.app.request(`${ORIGIN}/ui`, { headers: { host: "127.0.0.1:7077", cookie } });
    expect(again.status).toBe(303);
  });
});
