/**
 * The cursor protocol in-process (DESIGN.md 7.2): commitCapture in one
 * transaction on the SQLite engine, and the remote sink (cursor files plus
 * idempotency keys) over any Memory, here a local one.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { remoteSink } from "../../src/capture/remote-sink.ts";
import type { CaptureBatch, CaptureCursor } from "../../src/store/capture.ts";
import { commitCapture, getCursor } from "../../src/store/sqlite/capture.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

/** A batch of single-chunk lines `from..to` (10 bytes each), as the reader would build it. */
function batch(from: number, to: number, session = "proj-00000000/abc"): CaptureBatch {
  const at = (p: number): CaptureCursor => ({ offset: p * 10, position: p, chunk: 0 });
  return {
    source: "sid",
    session,
    path: "/t/sid.jsonl",
    start: at(from),
    end: at(to),
    entries: Array.from({ length: to - from }, (_, i) => ({
      entry: { role: "user" as const, content: `line ${from + i}`, meta: { position: from + i }, idem_key: `sid:${from + i}:0` },
      before: at(from + i),
    })),
  };
}

/** A line of three chunks at position 0, from chunk `from`. */
function chunked(from: number): CaptureBatch {
  const at = (chunk: number): CaptureCursor => ({ offset: 0, position: 0, chunk });
  return {
    source: "big",
    session: "proj-00000000/abc",
    path: "/t/big.jsonl",
    start: at(from),
    end: { offset: 100, position: 1, chunk: 0 },
    entries: [0, 1, 2].slice(from).map((k) => ({ entry: { role: "tool" as const, content: `part ${k}`, idem_key: `big:0:${k}` }, before: at(k) })),
  };
}

async function contents(store: ReturnType<typeof openSqliteStore>, session = "proj-00000000/abc"): Promise<string[]> {
  return (await store.memory("local").read({ session, limit: 1000 })).turns.map((t) => t.content);
}

describe("commitCapture", () => {
  test("appends a batch and moves the cursor in one transaction", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    expect(commitCapture(store.db, "local", batch(0, 3))).toEqual({ status: "committed", appended: 3, skipped: 0, cursor: { offset: 30, position: 3, chunk: 0 } });
    expect(getCursor(store.db, "local", "sid")).toMatchObject({ session: "proj-00000000/abc", path: "/t/sid.jsonl", offset: 30, position: 3, chunk: 0 });
    expect(await contents(store)).toEqual(["line 0", "line 1", "line 2"]);
    store.close();
  });

  test("a batch overlapping what another run stored appends only the rest; one fully stored appends nothing", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    commitCapture(store.db, "local", batch(0, 3));
    // Another hook read from 0 too, but further: it finds the cursor at 3, inside its batch.
    expect(commitCapture(store.db, "local", batch(0, 5))).toEqual({ status: "committed", appended: 2, skipped: 0, cursor: { offset: 50, position: 5, chunk: 0 } });
    // A third, slower hook read from 0 to 4: the cursor is past its end.
    expect(commitCapture(store.db, "local", batch(0, 4))).toEqual({ status: "moved", cursor: { offset: 50, position: 5, chunk: 0 } });
    expect(await contents(store)).toEqual(["line 0", "line 1", "line 2", "line 3", "line 4"]);
    store.close();
  });

  test("a batch that does not cover the cursor is refused: the caller reads again from it", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    // No cursor yet (position 0), but the batch starts at 2: it would leave a gap.
    expect(commitCapture(store.db, "local", batch(2, 4))).toEqual({ status: "moved", cursor: { offset: 0, position: 0, chunk: 0 } });
    expect(await contents(store)).toEqual([]);
    expect(getCursor(store.db, "local", "sid")).toBeUndefined();
    store.close();
  });

  test("chunks resume at the first missing one", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const firstTwo = { ...chunked(0), end: { offset: 0, position: 0, chunk: 2 }, entries: chunked(0).entries.slice(0, 2) };
    expect(commitCapture(store.db, "local", firstTwo).status).toBe("committed");
    expect(getCursor(store.db, "local", "big")).toMatchObject({ offset: 0, position: 0, chunk: 2 });
    // A run that read the whole line from chunk 0 appends only chunk 2.
    expect(commitCapture(store.db, "local", chunked(0))).toMatchObject({ status: "committed", appended: 1 });
    expect(await contents(store)).toEqual(["part 0", "part 1", "part 2"]);
    store.close();
  });

  test("keys the tenant already holds stay reserved after a forget: a replay brings nothing back (I3)", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    commitCapture(store.db, "local", batch(0, 3));
    await store.memory("local").forget({ selector: { session: "proj-00000000/abc" } });
    store.db.run("DELETE FROM capture_cursors");
    expect(commitCapture(store.db, "local", batch(0, 4))).toEqual({ status: "committed", appended: 1, skipped: 3, cursor: { offset: 40, position: 4, chunk: 0 } });
    expect(await contents(store)).toEqual(["line 3"]);
    store.close();
  });

  test("cursors are per tenant", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    commitCapture(store.db, "local", batch(0, 2));
    expect(getCursor(store.db, "other", "sid")).toBeUndefined();
    expect(commitCapture(store.db, "other", batch(0, 2)).status).toBe("committed");
    expect((await store.memory("other").read({ session: "proj-00000000/abc" })).turns.length).toBe(2);
    store.close();
  });
});

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
});
