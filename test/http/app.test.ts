/**
 * In-process details of createApp that a real server cannot easily reach:
 * an unexpected failure is answered with a generic 500 (no stack, SQL or
 * path, DESIGN.md I10) and logged exactly once; server-side ZeroDbErrors
 * keep their code and status.
 */
import { describe, expect, test } from "bun:test";
import { ZeroDbError } from "../../src/errors.ts";
import { createApp } from "../../src/http/app.ts";
import type { Memory, Store } from "../../src/store/types.ts";

/** A store whose one tenant fails every stats call with `err`. */
function failingStore(err: unknown): Store {
  const memory = {
    tenant: "alice",
    stats: async () => {
      throw err;
    },
  } as unknown as Memory;
  return {
    dataDir: "/srv/zerodb/data",
    memory: () => memory,
    tokens: {
      create: async () => {
        throw new Error("unused");
      },
      list: async () => ({ tokens: [] }),
      revoke: async () => {
        throw new Error("unused");
      },
      verify: async (t: string) => (t === "zdb_good" ? "alice" : undefined),
    },
    capture: () => {
      throw new Error("unused");
    },
    exportTape: async function* () {},
    importTape: async () => ({ records: 0, last_lsn: 0 }),
    check: async () => ({ ok: true, detail: "" }),
    close: () => {},
  };
}

const auth = { headers: { authorization: "Bearer zdb_good" } };

describe("createApp", () => {
  test("an unexpected error is a generic 500, logged once with its detail", async () => {
    const secret = new Error("SQLITE_ERROR near \"SELECT * FROM tape WHERE tenant = 'bob'\": /home/bob/.local/share/zerodb/data");
    const lines: string[] = [];
    const app = createApp({ store: failingStore(secret), log: (l) => lines.push(l) });
    const res = await app.request("/v1/stats", auth);
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe(JSON.stringify({ error: { code: "internal", message: "internal error" } }));
    const errors = lines.filter((l) => l.startsWith("zerodb: internal"));
    expect(errors).toEqual([`zerodb: internal on GET /v1/stats: Error: ${secret.message}`]);
    expect(lines.filter((l) => /^GET \/v1\/stats 500 /.test(l))).toHaveLength(1);
    expect(lines).toHaveLength(2);
  });

  test("a thrown non-Error is a generic 500 too", async () => {
    const app = createApp({ store: failingStore("a string with /etc/passwd"), log: () => {} });
    const res = await app.request("/v1/stats", auth);
    expect({ status: res.status, text: await res.text() }).toEqual({ status: 500, text: '{"error":{"code":"internal","message":"internal error"}}' });
  });

  test("a server-side ZeroDbError keeps its code, status and safe message, and is logged", async () => {
    const lines: string[] = [];
    const err = new ZeroDbError("storage_full", "the disk is full: free some space and retry", { cause: new Error("ENOSPC /srv") });
    const app = createApp({ store: failingStore(err), log: (l) => lines.push(l) });
    const res = await app.request("/v1/stats", auth);
    expect(res.status).toBe(507);
    expect(await res.json()).toEqual({ error: { code: "storage_full", message: "the disk is full: free some space and retry" } });
    expect(lines.filter((l) => l.startsWith("zerodb: storage_full on GET /v1/stats"))).toHaveLength(1);
  });

  test("client errors are not logged as failures", async () => {
    const lines: string[] = [];
    const app = createApp({ store: failingStore(new ZeroDbError("not_found", "nothing")), log: (l) => lines.push(l) });
    expect((await app.request("/v1/stats", auth)).status).toBe(404);
    expect((await app.request("/v1/stats")).status).toBe(401);
    expect(lines.map((l) => l.replace(/ \d+\.\d+ms$/, ""))).toEqual(["GET /v1/stats 404", "GET /v1/stats 401"]);
  });
});
