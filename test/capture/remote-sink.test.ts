/**
 * The remote sink in-process (DESIGN.md 7.2): cursor files plus idempotency
 * keys over any Memory, here a local one.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { remoteSink } from "../../src/capture/remote-sink.ts";
import { ZeroDbError } from "../../src/errors.ts";
import type { Memory } from "../../src/store/types.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";
import { BATCH_SESSION, lineBatch as batch } from "./_batches.ts";

async function contents(store: ReturnType<typeof openSqliteStore>, session = BATCH_SESSION): Promise<string[]> {
  return (await store.memory("local").read({ session, limit: 1000 })).turns.map((t) => t.content);
}

// The cursor protocol on an engine (commit, overlap, chunks, reserved keys, tenants) is in the Store contract: test/store/contract/_capture.ts.
describe("remote sink (cursor files + idempotency keys)", () => {
  test("appends through the Memory, keeps the cursor in a 0600 file, and never moves it back", async () => {
    using dir = tempDir();
    const store = openSqliteStore(join(dir.path, "server"));
    const cursors = join(dir.path, "home", "capture", "x");
    const sink = remoteSink(store.memory("local"), cursors);
    expect(await sink.commit(batch(0, 3))).toEqual({ status: "committed", appended: 3, skipped: 0, cursor: { offset: 30, position: 3, chunk: 0 } });
    expect(await sink.cursor("sid")).toMatchObject({ source: "sid", session: "proj-00000000/abc", offset: 30, position: 3, chunk: 0 });
    const files = readdirSync(cursors);
    expect(files.length).toBe(1);
    expect(statSync(join(cursors, files[0]!)).mode & 0o777).toBe(0o600);
    expect(await sink.commit(batch(0, 2))).toEqual({ status: "moved", cursor: expect.objectContaining({ position: 3 }) });
    expect((await sink.cursors()).map((c) => c.position)).toEqual([3]);
    expect(await contents(store)).toEqual(["line 0", "line 1", "line 2"]);
    store.close();
  });

  test("a lost cursor file only resends: the server answers duplicates and keeps forgotten keys reserved", async () => {
    using dir = tempDir();
    const store = openSqliteStore(join(dir.path, "server"));
    const cursors = join(dir.path, "cursors");
    const memory = store.memory("local");
    const sink = remoteSink(memory, cursors);
    await sink.commit(batch(0, 3));
    await memory.forget({ selector: { session: "proj-00000000/abc" } });
    for (const f of readdirSync(cursors)) await Bun.file(join(cursors, f)).delete();
    expect(await sink.commit(batch(0, 4))).toEqual({ status: "committed", appended: 1, skipped: 3, cursor: { offset: 40, position: 4, chunk: 0 } });
    expect(await contents(store)).toEqual(["line 3"]);
    // The same key with different content is a conflict on the server: that entry is dropped, the rest goes in.
    const changed = batch(0, 6);
    changed.entries[4]!.entry.content = "a different line 4";
    for (const f of readdirSync(cursors)) await Bun.file(join(cursors, f)).delete();
    await memory.append({ session: "proj-00000000/abc", entries: [{ role: "user", content: "line 4", meta: { position: 4 }, idem_key: "sid:4:0" }] });
    expect(await sink.commit(changed)).toEqual({ status: "committed", appended: 1, skipped: 5, cursor: { offset: 60, position: 6, chunk: 0 } });
    expect(await contents(store)).toEqual(["line 3", "line 4", "line 5"]);
    store.close();
  });

  test("issue 29: a line the server refuses as it is never stalls the session; every other line goes in", async () => {
    using dir = tempDir();
    const store = openSqliteStore(join(dir.path, "server"));
    const local = store.memory("local");
    // A server of another release that cannot take line 2 (an older team server once answered a NUL so, as a 500).
    const refusing: Memory = {
      ...local,
      append: async (input) => {
        const i = input.entries.findIndex((e) => e.content === "line 2");
        if (i >= 0) throw new ZeroDbError("invalid_input", `entries.${i}.content: refused`, { field: `entries.${i}.content` });
        return local.append(input);
      },
    };
    const sink = remoteSink(refusing, join(dir.path, "cursors"));
    expect(await sink.commit(batch(0, 5))).toEqual({ status: "committed", appended: 4, skipped: 1, cursor: { offset: 50, position: 5, chunk: 0 } });
    expect(await sink.commit(batch(5, 7))).toEqual({ status: "committed", appended: 2, skipped: 0, cursor: { offset: 70, position: 7, chunk: 0 } });
    expect(await contents(store)).toEqual(["line 0", "line 1", "line 3", "line 4", "line 5", "line 6"]);
    // Anything else (the server down, a fault of its own) fails the run and leaves the cursor for the next one.
    const down: Memory = { ...local, append: async () => Promise.reject(new ZeroDbError("internal", "internal error")) };
    await expect(remoteSink(down, join(dir.path, "cursors")).commit(batch(7, 8))).rejects.toMatchObject({ code: "internal" });
    expect((await sink.cursor("sid"))?.position).toBe(7);
    store.close();
  });
});
