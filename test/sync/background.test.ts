/**
 * When a background sync starts (src/sync/background.ts): only with sync
 * configured on a local store, at most once per interval per store, and for
 * a long-lived writer (the MCP server) one owed within the interval starts
 * when it ends, or when the writer closes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, utimesSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../src/config.ts";
import { BACKGROUND_INTERVAL_MS, STAMP_FILE, backgroundSync, backgroundSyncer, wroteSomething } from "../../src/sync/background.ts";
import { tempDir } from "../helpers.ts";

/** The parts of a configuration background sync reads. */
function config(dataDir: string, opts: { sync?: boolean; url?: string } = {}): Config {
  const file = opts.sync === false ? {} : { sync: { url: "http://127.0.0.1:9", token_file: "t" } };
  return { dataDir, url: opts.url, file } as unknown as Config;
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
