/**
 * When a background sync starts (src/sync/background.ts): only with sync
 * configured on a local store, at most once per interval per store, and for
 * a long-lived writer (the MCP server) one owed within the interval starts
 * when it ends, or when the writer closes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../src/config.ts";
import {
  BACKGROUND_INTERVAL_MS,
  OWED_FILE,
  OWED_STALE_MS,
  STAMP_FILE,
  backgroundSync,
  backgroundSyncer,
  waitOutInterval,
  wroteSomething,
} from "../../src/sync/background.ts";
import { openJournal, takeSyncLock } from "../../src/sync/journal.ts";
import type { SyncResult } from "../../src/sync/run.ts";
import { trailingSync } from "../../src/sync/trailing.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

/** The parts of a configuration background sync reads. */
function config(dataDir: string, opts: { sync?: boolean; url?: string } = {}): Config {
  const file = opts.sync === false ? {} : { sync: { url: "http://127.0.0.1:9", token_file: "t" } };
  return { dataDir, url: opts.url, file } as unknown as Config;
}

/** A sync's result, as far as these tests look at it. */
const done = (pushed: number) => ({ pushed }) as unknown as SyncResult;

/** Makes a stamp older than the interval. */
function age(stamp: string): void {
  const over = (Date.now() - BACKGROUND_INTERVAL_MS - 1000) / 1000;
  utimesSync(stamp, over, over);
}

describe("background sync", () => {
  test("starts only with sync configured on a local store, after a write, once per interval", () => {
    using dir = tempDir();
    let spawned = 0;
    const spawn = () => void spawned++;
    expect(backgroundSync(config(dir.path, { sync: false }), { appended: 3, spawn })).toBe(false);
    expect(backgroundSync(config(dir.path, { url: "http://127.0.0.1:9" }), { appended: 3, spawn })).toBe(false);
    expect(backgroundSync(config(dir.path), { appended: 0, spawn })).toBe(false);
    expect({ spawned, stamp: existsSync(join(dir.path, STAMP_FILE)) }).toEqual({ spawned: 0, stamp: false });
    const t0 = Date.now();
    expect(backgroundSync(config(dir.path), { appended: 1, spawn, now: t0 })).toBe(true);
    expect(backgroundSync(config(dir.path), { appended: 1, spawn, now: t0 + BACKGROUND_INTERVAL_MS - 1000 })).toBe(false);
    expect(backgroundSync(config(dir.path), { appended: 1, spawn, now: t0 + BACKGROUND_INTERVAL_MS + 1000 })).toBe(true);
    expect(spawned).toBe(2);
  });

  test("a long-lived writer: a write owed within the interval starts at its end, or when the writer closes", async () => {
    using dir = tempDir();
    let spawned = 0;
    const syncer = backgroundSyncer(config(dir.path), () => void spawned++);
    syncer.wrote();
    expect(spawned).toBe(1);
    // Within the interval: owed, not started; closing starts it, once.
    syncer.wrote();
    syncer.wrote();
    expect(spawned).toBe(1);
    syncer.close();
    expect(spawned).toBe(2);
    syncer.close();
    expect(spawned).toBe(2);

    // The interval almost over: an owed write starts by itself when it ends (polled, bounded).
    const other = backgroundSyncer(config(dir.path), () => void spawned++);
    const stamp = join(dir.path, STAMP_FILE);
    const almost = (Date.now() - BACKGROUND_INTERVAL_MS + 300) / 1000;
    utimesSync(stamp, almost, almost);
    other.wrote();
    expect(spawned).toBe(2);
    for (let i = 0; i < 100 && spawned === 2; i++) await Bun.sleep(50);
    expect(spawned).toBe(3);
    // Nothing owed any more: closing starts none.
    other.close();
    expect(spawned).toBe(3);
  });

  test("a hook's or command's write within the interval starts one trailing sync; a mark left by a dead one is taken over", () => {
    using dir = tempDir();
    const started: string[] = [];
    const opts = (now: number) => ({ appended: 1, now, spawn: () => void started.push("now"), spawnTrailing: () => void started.push("trailing") });
    const t0 = Date.now();
    expect(backgroundSync(config(dir.path), opts(t0))).toBe(true);
    expect(existsSync(join(dir.path, OWED_FILE))).toBe(false);
    // Within the interval: one trailing sync, whose mark the next writes find.
    expect(backgroundSync(config(dir.path), opts(t0 + 1000))).toBe(false);
    expect(backgroundSync(config(dir.path), opts(t0 + 2000))).toBe(false);
    expect(started).toEqual(["now", "trailing"]);
    expect(existsSync(join(dir.path, OWED_FILE))).toBe(true);
    // A mark not freshened for OWED_STALE_MS: its sync died, the next write starts another.
    const stale = (t0 - OWED_STALE_MS - 1000) / 1000;
    utimesSync(join(dir.path, OWED_FILE), stale, stale);
    expect(backgroundSync(config(dir.path), opts(t0 + 3000))).toBe(false);
    expect(started).toEqual(["now", "trailing", "trailing"]);
    // Without a way to start one (the MCP server keeps its own timer), nothing trails.
    rmSync(join(dir.path, OWED_FILE));
    expect(backgroundSync(config(dir.path), { appended: 1, now: t0 + 4000, spawn: () => void started.push("now") })).toBe(false);
    expect(existsSync(join(dir.path, OWED_FILE))).toBe(false);
  });

  test("a trailing sync waits out the interval, following the stamp, keeping its mark fresh, and removes the mark before it syncs", async () => {
    using dir = tempDir();
    const stamp = join(dir.path, STAMP_FILE);
    const owed = join(dir.path, OWED_FILE);
    writeFileSync(stamp, "");
    writeFileSync(owed, "");
    const old = (Date.now() - 10_000) / 1000;
    utimesSync(owed, old, old);
    const slept: number[] = [];
    await waitOutInterval(dir.path, {
      sleep: async (ms) => {
        slept.push(ms);
        // The mark is fresh while it waits.
        expect(Date.now() - statSync(owed).mtimeMs).toBeLessThan(5000);
        // Later, the interval is over (the stamp made older).
        if (slept.length === 3) {
          const over = (Date.now() - BACKGROUND_INTERVAL_MS - 1000) / 1000;
          utimesSync(stamp, over, over);
        }
      },
    });
    expect(slept).toEqual([1000, 1000, 1000]);
    expect(existsSync(owed)).toBe(false);
  });

  test("a trailing sync: nothing without a store; a sync holding the lock is waited for; nothing waiting, no sync", async () => {
    using dir = tempDir();
    const none = await trailingSync({
      dataDir: join(dir.path, "none"),
      tenant: "local",
      withStore: () => Promise.reject(new Error("opened")),
      sync: () => Promise.reject(new Error("synced")),
    });
    expect(none).toEqual({ skipped: `no store in ${join(dir.path, "none")}` });
    expect(existsSync(join(dir.path, "none"))).toBe(false);

    const data = join(dir.path, "data");
    const store = openSqliteStore(data);
    try {
      const lock = takeSyncLock(data);
      const synced: number[] = [];
      const sleeps: number[] = [];
      const result = await trailingSync({
        dataDir: data,
        tenant: "local",
        withStore: (fn) => fn(store),
        sync: async () => {
          // What runSync does first: take the lock (held here until the first sleep).
          takeSyncLock(data).release();
          synced.push(Date.now());
          return done(0);
        },
        sleep: async (ms) => {
          sleeps.push(ms);
          lock.release();
        },
      });
      expect({ result, synced: synced.length, sleeps }).toEqual({ result: done(0), synced: 1, sleeps: [1000] });
      // The stamp moved when it synced: it was the interval's background sync.
      expect(Date.now() - statSync(join(data, STAMP_FILE)).mtimeMs).toBeLessThan(5000);
      // A store that synced, with nothing of its own waiting: no sync.
      const journal = openJournal(data);
      journal.bind({ url: "http://127.0.0.1:9", tenant: "team", local_tenant: "local" });
      journal.close();
      age(join(data, STAMP_FILE));
      const idle = await trailingSync({ dataDir: data, tenant: "local", withStore: (fn) => fn(store), sync: () => Promise.reject(new Error("synced")) });
      expect(idle).toEqual({ skipped: "nothing waits to be pushed" });
      // One record of its own waiting: synced.
      await store.memory("local").append({ session: "s", entries: [{ role: "user", content: "owed" }] });
      age(join(data, STAMP_FILE));
      const owed = await trailingSync({
        dataDir: data,
        tenant: "local",
        withStore: (fn) => fn(store),
        sync: async () => done(1),
      });
      expect(owed).toEqual(done(1));
    } finally {
      store.close();
    }
  });

  test("a write's result says whether it stored something", () => {
    const cases: [unknown, boolean][] = [
      [
        {
          entries: [
            { lsn: 4, duplicate: true },
            { lsn: 5, duplicate: false },
          ],
        },
        true,
      ],
      [{ entries: [{ lsn: 4, duplicate: true }] }, false],
      [{ lsn: 7, duplicate: false }, true],
      [{ key: "k", lsn: 7, duplicate: true }, false],
      [{ lsn: 9, hidden: 2, dry_run: false }, true],
      [{ lsn: null, hidden: 0, dry_run: false }, false],
      [{ lsn: null, hidden: 3, dry_run: true }, false],
      [undefined, false],
    ];
    for (const [result, want] of cases) expect({ result, got: wroteSomething(result) }).toEqual({ result, got: want });
  });
});
