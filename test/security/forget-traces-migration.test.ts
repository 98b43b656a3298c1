/**
 * Issue 14 item 4, in a store written before forget left no trace: opening
 * it runs migration 5, which scrubs the op_hash, idem keys and selectors
 * earlier forgets left from every file, keeps the forgotten keys reserved,
 * and gives the store its old release's export imports as. The fixture
 * first shows the attack and the scan succeeding (so the test could fail).
 */
import { describe, expect, test } from "bun:test";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { filesContaining, tempDir } from "../helpers.ts";
import { FIXTURE, crackPin, dataFiles, exportOf, feed, opened } from "./_forget-traces.ts";

describe("migration 5 scrubs what earlier forgets left (issue 14 item 4)", () => {
  test("an older store's op_hash, idem keys and selectors are gone from every file after it is opened, its keys stay reserved, and it exports as its old export imports", async () => {
    using dir = tempDir();
    cpSync(join(FIXTURE, "data"), dir.path, { recursive: true });
    const secrets = ["acme-layoffs-2027/notes", "hr/termination-", "set-pin-b7e2c1", "note-k3v9q2"];
    // The fixture (schema 4, written by d520fb7) holds every trace.
    expect(crackPin("pin", dataFiles(dir.path))).toEqual(["4821"]);
    for (const s of secrets) expect(filesContaining(dir.path, s).length, s).toBeGreaterThan(0);

    using store = opened(dir.path);
    // The open truncated the WAL the migration wrote: the old pages are overwritten in the file.
    expect(crackPin("pin", dataFiles(dir.path))).toEqual([]);
    for (const s of secrets) expect(filesContaining(dir.path, s), s).toEqual([]);
    const m = store.memory("local");
    expect(await m.factSet({ key: "pin", value: "4821", idem_key: "set-pin-b7e2c1" })).toEqual({ lsn: 2, duplicate: true });
    expect(await m.factSet({ key: "pin", value: "1234", idem_key: "set-pin-b7e2c1" })).toEqual({ lsn: 2, duplicate: true });
    expect((await m.append({ session: "x", entries: [{ role: "note", content: "y", idem_key: "note-k3v9q2" }] })).entries).toEqual([
      { lsn: 3, duplicate: true },
    ]);
    expect((await store.check({ full: true })).ok).toBe(true);

    // The migrated store and the import of the old release's own export are the same store.
    using b = tempDir();
    using imported = opened(b.path);
    const old = readFileSync(join(FIXTURE, "export.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    await imported.importTape(feed(old));
    expect(await exportOf(store)).toEqual(await exportOf(imported));
    store.close();
    for (const s of secrets) expect(filesContaining(dir.path, s), s).toEqual([]);
  });
});
