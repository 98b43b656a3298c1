/**
 * Every route of DESIGN.md 6.1 (objects and links aside) answering with the
 * operation's result, in-process and through a real `zerodb serve`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { VERSION } from "../../src/version.ts";
import { TARGETS, type Target, answer, authed } from "./_targets.ts";

describe.each(Object.keys(TARGETS))("routes (%s)", (name) => {
  let t: Target;
  let tok: string;
  beforeAll(async () => {
    t = await TARGETS[name]!();
    tok = t.tokens.alice;
  });
  afterAll(() => t.close());

  const get = async (path: string) => answer(await t.send(path, authed(tok)));
  const send = async (method: string, path: string, json: unknown) => answer(await t.send(path, authed(tok, method, json)));

  test("GET /healthz needs no token", async () => {
    expect(await answer(await t.send("/healthz"))).toEqual({ status: 200, body: { ok: true, version: VERSION } });
  });

  test("GET /v1/whoami names the token's tenant", async () => {
    expect(await get("/v1/whoami")).toEqual({ status: 200, body: { tenant: "alice" } });
    expect(await answer(await t.send("/v1/whoami", authed(t.tokens.bob)))).toEqual({ status: 200, body: { tenant: "bob" } });
  });

  test("POST and GET /v1/turns append and page a session", async () => {
    const appended = await send("POST", "/v1/turns", {
      session: "proj/notes",
      entries: [
        { role: "user", content: "the deploy key lives in vault", meta: { source: "test" } },
        { role: "assistant", content: "noted: deploy key in vault", idem_key: "k1" },
        { role: "note", content: "third" },
      ],
    });
    expect(appended.status).toBe(200);
    const lsns = appended.body.entries.map((e: { lsn: number }) => e.lsn);
    expect(appended.body.entries.map((e: { duplicate: boolean }) => e.duplicate)).toEqual([false, false, false]);
    expect(lsns[1]).toBeGreaterThan(lsns[0]);

    const retry = await send("POST", "/v1/turns", {
      session: "proj/notes",
      entries: [{ role: "assistant", content: "noted: deploy key in vault", idem_key: "k1" }],
    });
    expect(retry).toEqual({ status: 200, body: { entries: [{ lsn: lsns[1], duplicate: true }] } });

    const page1 = await get("/v1/turns?session=proj%2Fnotes&limit=2");
    expect(page1.status).toBe(200);
    expect(page1.body.turns.map((x: { content: string }) => x.content)).toEqual(["the deploy key lives in vault", "noted: deploy key in vault"]);
    expect(page1.body.turns[0]).toMatchObject({ lsn: lsns[0], session: "proj/notes", role: "user", meta: { source: "test" } });
    expect(page1.body.turns[1].idem_key).toBe("k1");
    expect(page1.body.next).toBe(lsns[1]);
    const page2 = await get(`/v1/turns?session=proj/notes&after=${page1.body.next}&limit=2`);
    expect(page2.body.turns.map((x: { lsn: number }) => x.lsn)).toEqual([lsns[2]]);
    expect(page2.body.next).toBeNull();
  });

  test("GET /v1/sessions lists by prefix and pages", async () => {
    await send("POST", "/v1/turns", { session: "list/a", entries: [{ role: "note", content: "one" }] });
    await send("POST", "/v1/turns", {
      session: "list/b",
      entries: [
        { role: "note", content: "two" },
        { role: "note", content: "three" },
      ],
    });
    const all = await get("/v1/sessions?prefix=list%2F");
    expect(all.status).toBe(200);
    expect(all.body.sessions.map((s: { name: string; turns: number }) => [s.name, s.turns])).toEqual([
      ["list/a", 1],
      ["list/b", 2],
    ]);
    const first = await get("/v1/sessions?prefix=list/&limit=1");
    expect(first.body).toMatchObject({ sessions: [{ name: "list/a" }], next: "list/a" });
    const second = await get(`/v1/sessions?prefix=list/&after=${encodeURIComponent(first.body.next)}`);
    expect(second.body.sessions.map((s: { name: string }) => s.name)).toEqual(["list/b"]);
  });

  test("GET /v1/search finds words, filtered by session and role", async () => {
    await send("POST", "/v1/turns", {
      session: "search/s1",
      entries: [
        { role: "user", content: "zebra crossing ahead" },
        { role: "assistant", content: "a zebra was seen" },
      ],
    });
    await send("POST", "/v1/turns", { session: "search/s2", entries: [{ role: "user", content: "zebra stripes" }] });
    const all = await get("/v1/search?q=zebra");
    expect(all.status).toBe(200);
    expect(all.body.hits).toHaveLength(3);
    const bySession = await get("/v1/search?q=zebra&session=search%2Fs1&role=user");
    expect(bySession.body.hits.map((h: { session: string; role: string }) => [h.session, h.role])).toEqual([["search/s1", "user"]]);
    // Any word matches; the turn holding both words ranks first, and all_words keeps only it.
    const byPrefix = await get("/v1/search?q=zebra+stripes&prefix=search/");
    expect(byPrefix.body.hits.map((h: { session: string }) => h.session)).toEqual(["search/s2", "search/s1", "search/s1"]);
    expect(byPrefix.body.hits[0].matched).toEqual(["zebra", "stripes"]);
    const every = await get("/v1/search?q=zebra+stripes&prefix=search/&all_words=true");
    expect(every.body.hits.map((h: { session: string }) => h.session)).toEqual(["search/s2"]);
    expect((await get("/v1/search?q=zebra&all_words=maybe")).body.error).toMatchObject({ code: "invalid_input", field: "all_words" });
    expect((await get("/v1/search?q=zebra&limit=1")).body.hits).toHaveLength(1);
  });

  test("PUT and GET /v1/facts/<key> with '/' in the key, and GET /v1/facts lists", async () => {
    const set = await send("PUT", "/v1/facts/proj/owner", { value: { name: "alice", since: 2024 } });
    expect(set.status).toBe(200);
    expect(set.body.duplicate).toBe(false);
    expect(await get("/v1/facts/proj/owner")).toEqual({ status: 200, body: { key: "proj/owner", value: { name: "alice", since: 2024 }, lsn: set.body.lsn } });
    // An encoded '/' names the same key as a literal one; other characters round-trip.
    expect((await get("/v1/facts/proj%2Fowner")).body.key).toBe("proj/owner");
    const odd = "proj/naïve key+plus?&#";
    const path = `/v1/facts/${odd.split("/").map(encodeURIComponent).join("/")}`;
    expect((await send("PUT", path, { value: "x", idem_key: "f1" })).status).toBe(200);
    expect(await get(path)).toMatchObject({ status: 200, body: { key: odd, value: "x" } });
    expect((await send("PUT", path, { value: "x", idem_key: "f1" })).body.duplicate).toBe(true);

    const list = await get("/v1/facts?prefix=proj%2F");
    expect(list.body.facts.map((f: { key: string }) => f.key)).toEqual(["proj/naïve key+plus?&#", "proj/owner"]);
    expect(list.body.next).toBeNull();
    const paged = await get("/v1/facts?prefix=proj/&limit=1");
    expect(paged.body).toMatchObject({ facts: [{ key: odd }], next: odd });
  });

  test("POST /v1/forget counts with dry_run, then hides", async () => {
    await send("POST", "/v1/turns", {
      session: "forget/me",
      entries: [
        { role: "note", content: "secret one" },
        { role: "note", content: "secret two" },
      ],
    });
    const dry = await send("POST", "/v1/forget", { selector: { session: "forget/me" }, dry_run: true });
    expect(dry).toEqual({ status: 200, body: { lsn: null, hidden: 2, dry_run: true } });
    expect((await get("/v1/turns?session=forget/me")).body.turns).toHaveLength(2);
    const done = await send("POST", "/v1/forget", { selector: { session: "forget/me" } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ hidden: 2, dry_run: false });
    expect(done.body.lsn).toBeGreaterThan(0);
    expect((await get("/v1/turns?session=forget/me")).body).toEqual({ turns: [], next: null });
    expect((await get("/v1/search?q=secret")).body).toEqual({ hits: [] });
  });

  test("GET /v1/stats counts the tenant's records", async () => {
    const stats = await get("/v1/stats");
    expect(stats.status).toBe(200);
    expect(stats.body.tenant).toBe("alice");
    expect(stats.body.turns.count).toBeGreaterThan(0);
    expect(stats.body.forgets).toBe(1);
    expect(stats.body.forgotten).toBe(2);
    expect(Object.keys(stats.body.disk)).toEqual(["store_bytes", "object_bytes"]);
  });
});
