/**
 * Tenant isolation over HTTP (DESIGN.md I5): tenant bob, asking for
 * everything alice wrote, gets byte for byte the answers carol (who has
 * nothing, and asks for the same names) gets: no route tells whether
 * another tenant's records exist.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../helpers.ts";
import { createToken, startServer } from "./_server.ts";

describe("tenant isolation", () => {
  test("every read, listing and search of another tenant's data answers like data that does not exist", async () => {
    using dir = tempDir();
    const [alice, bob, carol] = [await createToken(dir.path, "alice"), await createToken(dir.path, "bob"), await createToken(dir.path, "carol")];
    await using server = await startServer(dir.path);
    const call = async (token: string, path: string, init: { method?: string; json?: unknown } = {}) => {
      const res = await fetch(server.url + path, {
        method: init.method ?? "GET",
        headers: { authorization: `Bearer ${token}`, ...(init.json === undefined ? {} : { "content-type": "application/json" }) },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
      return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
    };
    /** Everything a caller can see of an answer, as one string to compare byte for byte. */
    const seen = async (token: string, path: string, init?: { method?: string; json?: unknown }) => {
      const r = await call(token, path, init);
      return `${r.status}\n${r.type}\n${r.text}`;
    };

    // Alice's data: turns in two sessions, facts, an idempotency key, a forget.
    const appended = JSON.parse(
      (
        await call(alice, "/v1/turns", {
          method: "POST",
          json: { session: "secret/plans", entries: [{ role: "user", content: "launch the falcon project", idem_key: "alice-1" }] },
        })
      ).text,
    );
    await call(alice, "/v1/turns", { method: "POST", json: { session: "secret/other", entries: [{ role: "note", content: "falcon budget" }] } });
    await call(alice, "/v1/facts/secret/code", { method: "PUT", json: { value: "1234" } });
    const lsn = appended.entries[0].lsn as number;
    expect(JSON.parse((await call(alice, "/v1/search?q=falcon")).text).hits).toHaveLength(2);

    const probes: [string, { method?: string; json?: unknown }?][] = [
      ["/v1/turns?session=secret%2Fplans"],
      [`/v1/turns?session=secret/plans&after=${lsn - 1}&limit=1`],
      ["/v1/sessions"],
      ["/v1/sessions?prefix=secret%2F"],
      ["/v1/search?q=falcon"],
      ["/v1/search?q=falcon&session=secret/plans"],
      ["/v1/search?q=falcon&prefix=secret/"],
      ["/v1/facts/secret/code"],
      ["/v1/facts"],
      ["/v1/facts?prefix=secret"],
      ["/v1/forget", { method: "POST", json: { selector: { session: "secret/plans" }, dry_run: true } }],
      ["/v1/forget", { method: "POST", json: { selector: { turn: lsn }, dry_run: true } }],
      ["/v1/forget", { method: "POST", json: { selector: { fact: "secret/code" }, dry_run: true } }],
      ["/v1/forget", { method: "POST", json: { selector: { session_prefix: "secret/" }, dry_run: true } }],
      ["/v1/forget", { method: "POST", json: { selector: { before: "2999-01-01T00:00:00Z" }, dry_run: true } }],
    ];
    for (const [path, init] of probes) {
      const asBob = await seen(bob, path, init);
      const asCarol = await seen(carol, path, init);
      expect(asBob).toBe(asCarol);
      expect(asBob).not.toContain("falcon");
      expect(asBob).not.toContain("1234");
    }
    // Stats: a tenant sees its own counts only; both empty tenants see zero of everything.
    const bobStats = JSON.parse((await call(bob, "/v1/stats")).text);
    expect(bobStats).toMatchObject({ tenant: "bob", last_lsn: 0, turns: { count: 0, bytes: 0 }, sessions: 0, facts: { count: 0, bytes: 0 }, forgets: 0 });

    // Bob may use the idempotency key alice used: keys are per tenant, so it is new to him.
    const bobWrite = await call(bob, "/v1/turns", {
      method: "POST",
      json: { session: "secret/plans", entries: [{ role: "user", content: "different words", idem_key: "alice-1" }] },
    });
    expect(bobWrite.status).toBe(200);
    expect(JSON.parse(bobWrite.text).entries[0].duplicate).toBe(false);
    // Bob's real forget of "his" session hides only his own turn; alice's stays.
    expect(JSON.parse((await call(bob, "/v1/forget", { method: "POST", json: { selector: { session: "secret/plans" } } })).text).hidden).toBe(1);
    expect(JSON.parse((await call(bob, "/v1/forget", { method: "POST", json: { selector: { turn: lsn } } })).text).hidden).toBe(0);
    expect((await call(alice, "/v1/turns?session=secret/plans")).text).toContain("launch the falcon project");
    expect((await call(alice, "/v1/facts/secret/code")).text).toContain("1234");
  }, 30_000);
});
