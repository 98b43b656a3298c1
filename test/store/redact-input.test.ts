/**
 * An append is parsed again after redaction only when redaction changed it
 * (src/store/memory.ts): `unchanged` must be false whenever a secret or a
 * private span was taken out or the marker of redaction being off was
 * added, and a marker longer than its secret must still meet the limits.
 */
import { describe, expect, test } from "bun:test";
import { CONTENT_MAX_BYTES } from "../../src/limits.ts";
import { redactAppend } from "../../src/store/redact-input.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

const append = (content: string, extra: { redact?: boolean; meta?: Record<string, unknown> } = {}) => ({
  session: "s",
  ...(extra.redact !== undefined ? { redact: extra.redact } : {}),
  entries: [{ role: "user" as const, content, ...(extra.meta ? { meta: extra.meta } : {}) }],
});

describe("redactAppend's unchanged", () => {
  test("true for text with nothing to take out; false for a secret, a private span, a secret in meta, or redaction off", () => {
    expect(redactAppend(append("nothing secret here"), true)).toMatchObject({ redacted: 0, unchanged: true });
    expect(redactAppend(append("key AKIAQWERTYUIOPASDFGH end"), true)).toMatchObject({ redacted: 1, unchanged: false });
    expect(redactAppend(append("<private>x</private>y"), true)).toMatchObject({ unchanged: false });
    expect(redactAppend(append("plain", { meta: { note: "password=hunter2 end" } }), true)).toMatchObject({ redacted: 1, unchanged: false });
    expect(redactAppend(append("plain", { redact: false }), true).unchanged).toBe(false);
    expect(redactAppend(append("plain"), false).unchanged).toBe(false);
  });

  test("zerodb's own meta keys are dropped whether or not anything else changed", () => {
    const r = redactAppend(append("plain", { meta: { redaction: "off", redacted: 0, kept: 1 } }), true);
    expect(r.unchanged).toBe(true);
    expect(r.input.entries[0]!.meta).toEqual({ kept: 1 });
  });
});

describe("append after redaction", () => {
  test("a marker that makes content longer than the limit is refused as too_large, and nothing is written", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    try {
      const m = store.memory("local");
      const secret = " key AKIAQWERTYUIOPASDFGH";
      const content = "x".repeat(CONTENT_MAX_BYTES - secret.length) + secret;
      expect(Buffer.byteLength(content)).toBe(CONTENT_MAX_BYTES);
      await expect(m.append({ session: "s", entries: [{ role: "user", content }] })).rejects.toMatchObject({ code: "too_large", field: "entries.0.content" });
      expect((await m.sessions({})).sessions).toEqual([]);
      // The same length with nothing to redact is stored as given.
      const plain = "x".repeat(CONTENT_MAX_BYTES);
      const r = await m.append({ session: "s", entries: [{ role: "user", content: plain, meta: { redaction: "off" } }] });
      const [turn] = (await m.read({ session: "s" })).turns;
      expect(turn).toMatchObject({ lsn: r.entries[0]!.lsn, content: plain, meta: {} });
    } finally {
      store.close();
    }
  });
});
